import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { Send } from "lucide-react";
import { useId, type ComponentProps } from "react";
import { useForm } from "react-hook-form";
import { FormField } from "./FormField";
import {
  CONTACT_LIMITS,
  contactMessageSchema,
  DEFAULT_REQUEST_TYPE,
  REQUEST_TYPE_LABELS,
  REQUEST_TYPES,
  type ContactMessage,
  type ContactMessageInput,
  type RequestType,
} from "../../src/features/contact/contract";
import { ApiError, apiRequest } from "../lib/api";
import { toast } from "../lib/toast";

export function emptyContactMessage(requestType: RequestType = DEFAULT_REQUEST_TYPE): ContactMessageInput {
  return { name: "", email: "", company: "", phone: "", requestType, subject: "", message: "", domains: "" };
}

/** SPEC §8 contact toasts. */
export const CONTACT_SENT_TOAST = { title: "Message Sent Successfully", description: "We'll get back to you within 24 hours." } as const;
export const CONTACT_FAILED_TOAST = { title: "Failed to Send Message", description: "Please try again in a moment." } as const;

/**
 * The contact message form of SPEC §3/§5, used by the contact dialog and the /contact page.
 * Validates with the server's own schema; while sending the button reads Sending...; on
 * success it toasts, resets and calls onSent; on failure it stays filled in and toasts.
 */
export function ContactForm({ defaultRequestType = DEFAULT_REQUEST_TYPE, onSent }: { defaultRequestType?: RequestType; onSent?: () => void }) {
  const uid = useId();
  const form = useForm<ContactMessageInput, unknown, ContactMessage>({
    resolver: zodResolver(contactMessageSchema),
    defaultValues: emptyContactMessage(defaultRequestType),
  });
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = form;

  const send = useMutation({
    mutationFn: (message: ContactMessage) => apiRequest("POST", "/api/contact", message),
    onSuccess: () => {
      toast({ ...CONTACT_SENT_TOAST, variant: "success" });
      form.reset(emptyContactMessage(defaultRequestType));
      onSent?.();
    },
    onError: (error) => {
      // The server's field messages (same schema) go beside their fields; the toast is SPEC §8's.
      if (error instanceof ApiError && error.fields) {
        for (const [name, message] of Object.entries(error.fields)) {
          if (name in emptyContactMessage()) form.setError(name as keyof ContactMessageInput, { message });
        }
      }
      toast({ ...CONTACT_FAILED_TOAST, variant: "destructive" });
    },
  });

  const id = (name: string) => `${uid}-${name}`;
  const field = (name: keyof ContactMessageInput) => ({
    id: id(name),
    "aria-invalid": errors[name] ? true : undefined,
    "aria-describedby": errors[name] ? id(`${name}-error`) : undefined,
  });
  const sending = send.isPending;

  return (
    <form noValidate onSubmit={handleSubmit((message) => send.mutate(message))} className="grid gap-4" aria-label="Contact form">
      <div className="grid gap-4 sm:grid-cols-2">
        <Field label="Full Name" htmlFor={id("name")} error={errors.name} errorId={id("name-error")}>
          <input {...register("name")} {...field("name")} className="input w-full aria-invalid:border-error" autoComplete="name" maxLength={CONTACT_LIMITS.name} placeholder="Jane Smith" />
        </Field>
        <Field label="Email Address" htmlFor={id("email")} error={errors.email} errorId={id("email-error")}>
          <input {...register("email")} {...field("email")} type="email" className="input w-full aria-invalid:border-error" autoComplete="email" maxLength={CONTACT_LIMITS.email} placeholder="jane@company.com" />
        </Field>
        <Field label="Company" htmlFor={id("company")} error={errors.company} errorId={id("company-error")}>
          <input {...register("company")} {...field("company")} className="input w-full aria-invalid:border-error" autoComplete="organization" maxLength={CONTACT_LIMITS.company} placeholder="Company name" />
        </Field>
        <Field label="Phone" optional htmlFor={id("phone")} error={errors.phone} errorId={id("phone-error")}>
          <input {...register("phone")} {...field("phone")} type="tel" className="input w-full aria-invalid:border-error" autoComplete="tel" maxLength={CONTACT_LIMITS.phone} placeholder="+1 (555) 000-0000" />
        </Field>
      </div>
      <Field label="Request Type" htmlFor={id("requestType")} error={errors.requestType} errorId={id("requestType-error")}>
        <select {...register("requestType")} {...field("requestType")} defaultValue={defaultRequestType} className="select w-full aria-invalid:border-error">
          {REQUEST_TYPES.map((type) => (
            <option key={type} value={type}>
              {REQUEST_TYPE_LABELS[type]}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Subject" htmlFor={id("subject")} error={errors.subject} errorId={id("subject-error")}>
        <input {...register("subject")} {...field("subject")} className="input w-full aria-invalid:border-error" maxLength={CONTACT_LIMITS.subject} placeholder="How can we help?" />
      </Field>
      <Field label="Message" htmlFor={id("message")} error={errors.message} errorId={id("message-error")}>
        <textarea
          {...register("message")}
          {...field("message")}
          className="textarea h-32 w-full aria-invalid:border-error"
          maxLength={CONTACT_LIMITS.message}
          placeholder="Tell us about your email security needs..."
        />
      </Field>
      <Field
        label="Domains"
        optional
        hint="Comma separated, e.g. example.com, example.org"
        htmlFor={id("domains")}
        error={errors.domains}
        errorId={id("domains-error")}
      >
        <input {...register("domains")} {...field("domains")} className="input w-full aria-invalid:border-error" maxLength={CONTACT_LIMITS.domains} placeholder="example.com, example.org" />
      </Field>
      <button type="submit" className="btn btn-primary w-full" disabled={sending}>
        {sending ? (
          <>
            <span className="loading loading-spinner loading-sm" aria-hidden />
            Sending...
          </>
        ) : (
          <>
            <Send className="h-4 w-4" aria-hidden />
            Send Message
          </>
        )}
      </button>
    </form>
  );
}

/** Contact fields mark the required ones with a star. */
function Field(props: Omit<ComponentProps<typeof FormField>, "required">) {
  return <FormField required={!props.optional} {...props} />;
}
