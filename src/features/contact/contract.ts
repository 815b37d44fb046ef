import { z } from "zod";

/**
 * The contact message of SPEC §3/§5, shared by the contact form (dialog and /contact page)
 * and POST /api/contact. Minimum-length messages are SPEC §5's exact words; every field also
 * has an upper bound so one request cannot store an unbounded amount of text.
 */
export const REQUEST_TYPES = ["support", "sales", "technical", "billing", "partnership", "other"] as const;
export type RequestType = (typeof REQUEST_TYPES)[number];
export const DEFAULT_REQUEST_TYPE: RequestType = "support";

export const REQUEST_TYPE_LABELS: Record<RequestType, string> = {
  support: "Technical Support",
  sales: "Sales Inquiry",
  technical: "Technical Question",
  billing: "Billing",
  partnership: "Partnership",
  other: "Other",
};

export const CONTACT_LIMITS = {
  name: 100,
  email: 254,
  company: 200,
  phone: 50,
  subject: 200,
  message: 5000,
  domains: 1000,
} as const;

export const CONTACT_MESSAGES = {
  name: "Name must be at least 2 characters",
  email: "Please enter a valid email address",
  company: "Company name is required",
  subject: "Subject must be at least 5 characters",
  message: "Message must be at least 20 characters",
  requestType: "Please choose a request type: support, sales, technical, billing, partnership or other",
} as const;

const tooLong = (label: string, max: number) => `${label} must be at most ${max.toLocaleString("en-US")} characters`;

/** An optional text field: blank means absent. */
const optionalText = (label: string, max: number) =>
  z
    .string({ error: `${label} must be text` })
    .trim()
    .max(max, tooLong(label, max))
    .optional()
    .nullable()
    .transform((v) => (v ? v : undefined));

export const contactMessageSchema = z.object({
  name: z.string({ error: CONTACT_MESSAGES.name }).trim().min(2, CONTACT_MESSAGES.name).max(CONTACT_LIMITS.name, tooLong("Name", CONTACT_LIMITS.name)),
  email: z
    .string({ error: CONTACT_MESSAGES.email })
    .trim()
    .max(CONTACT_LIMITS.email, tooLong("Email", CONTACT_LIMITS.email))
    .email(CONTACT_MESSAGES.email),
  company: z
    .string({ error: CONTACT_MESSAGES.company })
    .trim()
    .min(2, CONTACT_MESSAGES.company)
    .max(CONTACT_LIMITS.company, tooLong("Company name", CONTACT_LIMITS.company)),
  phone: optionalText("Phone", CONTACT_LIMITS.phone),
  requestType: z.enum(REQUEST_TYPES, { error: CONTACT_MESSAGES.requestType }).default(DEFAULT_REQUEST_TYPE),
  subject: z
    .string({ error: CONTACT_MESSAGES.subject })
    .trim()
    .min(5, CONTACT_MESSAGES.subject)
    .max(CONTACT_LIMITS.subject, tooLong("Subject", CONTACT_LIMITS.subject)),
  message: z
    .string({ error: CONTACT_MESSAGES.message })
    .trim()
    .min(20, CONTACT_MESSAGES.message)
    .max(CONTACT_LIMITS.message, tooLong("Message", CONTACT_LIMITS.message)),
  domains: optionalText("Domains", CONTACT_LIMITS.domains),
});

/** What the form edits (requestType may be left to its default). */
export type ContactMessageInput = z.input<typeof contactMessageSchema>;
/** What the server stores. */
export type ContactMessage = z.output<typeof contactMessageSchema>;

/** POST /api/contact answers 201 with this. */
export interface ContactCreated {
  success: true;
  id: string;
}

/** SPEC §7 (rate limit is ours): a burst of 5 messages per 10 minutes per client address. */
export const CONTACT_RATE_LIMIT = { limit: 5, windowSeconds: 600 } as const;
