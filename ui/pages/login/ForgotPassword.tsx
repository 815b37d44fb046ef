import { zodResolver } from "@hookform/resolvers/zod";
import { useMutation } from "@tanstack/react-query";
import { MailCheck } from "lucide-react";
import { useForm } from "react-hook-form";
import { passwordLinkSchema, type PasswordLinkInput } from "../../../src/features/auth/contract";
import { apiRequest, errorMessage } from "../../lib/api";
import { AuthCard, Field } from "./AuthCard";

/**
 * /login?forgot=1: asks for a set-password link by mail. The server answers the same whether
 * or not the address has an account, so the screen does too.
 */
export function ForgotPassword({ email, onBack }: { email: string; onBack: () => void }) {
  const { register, handleSubmit, formState, getValues } = useForm<PasswordLinkInput>({ resolver: zodResolver(passwordLinkSchema), defaultValues: { email } });
  const send = useMutation({
    mutationFn: async (input: { email: string }) => (await (await apiRequest("POST", "/api/auth/password-link", input)).json()) as { message: string },
  });
  const back = (
    <button type="button" className="link link-primary" onClick={onBack}>
      Back to sign in
    </button>
  );

  if (send.isSuccess) {
    return (
      <AuthCard title="Check your inbox" footer={back}>
        <div className="flex gap-3 rounded-box bg-success/10 p-4 text-sm" role="status">
          <MailCheck className="h-5 w-5 shrink-0 text-success" aria-hidden />
          <div>
            <p>{send.data.message}</p>
            <p className="mt-2 opacity-70">You asked for {getValues("email").trim().toLowerCase()}. Nothing there after a few minutes? Look in your spam folder, or check the address and try again.</p>
          </div>
        </div>
        <button type="button" className="btn btn-outline w-full" onClick={() => send.reset()}>
          Use another address
        </button>
      </AuthCard>
    );
  }

  return (
    <AuthCard title="Reset your password" subtitle="Enter the email address of your account. We will send you a link to set a new password." footer={back}>
      <form onSubmit={handleSubmit((values) => send.mutate({ email: values.email }))} noValidate className="flex flex-col gap-4">
        <Field label="Email" error={formState.errors.email?.message}>
          <input {...register("email")} type="email" autoComplete="email" autoFocus className={`input input-bordered w-full ${formState.errors.email ? "input-error" : ""}`} />
        </Field>
        {send.isError && (
          <p className="rounded-box bg-error/10 px-3 py-2 text-sm text-error" role="alert">
            {errorMessage(send.error)}
          </p>
        )}
        <button type="submit" className="btn btn-primary w-full" disabled={send.isPending}>
          {send.isPending ? "Sending..." : "Send link"}
        </button>
      </form>
    </AuthCard>
  );
}
