/** Shapes of the white-label branding API (issue 17): what an MSP sets and what its clients see. */
import { z } from "zod";
import type { DnsProofRecord } from "../dns/contract";

/** The product's own name and colour, shown wherever no branding is in force. */
export const DEFAULT_PRODUCT_NAME = "dmarcwarden";
/** Largest logo accepted, in bytes. */
export const LOGO_MAX_BYTES = 256 * 1024;
export const LOGO_TYPES = ["image/png", "image/jpeg"] as const;
export type LogoType = (typeof LOGO_TYPES)[number];

const EMAIL = /^[^\s@,;]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)+$/i;
const HEX = /^#[0-9a-f]{6}$/i;

/** A host name people reach the deployment at: two or more DNS labels, a top-level label that is not a number (no IP addresses). */
const HOSTNAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** A host name as typed or as a Host header carries it: lower case, without a trailing dot or a port. */
export function normalizeHostname(value: string): string {
  return value.trim().toLowerCase().replace(/:\d+$/, "").replace(/\.$/, "");
}

/** Whether `value` (normalized) is a host name an MSP may use for the deployment. */
export const isCustomHostname = (value: string) => HOSTNAME.test(value);

/** PUT /api/branding: empty strings clear a field (back to the default); `customHostname` left out is left as it is. */
export const brandingSchema = z.object({
  productName: z.string({ error: "Product name must be text" }).trim().max(60, "Product name must be at most 60 characters").refine((v) => !/[<>\u0000-\u001f]/.test(v), "Product name must not contain < > or control characters"),
  primaryColor: z.string({ error: "Primary color must be text" }).trim().refine((v) => v === "" || HEX.test(v), "Enter the primary color as a hex color, e.g. #2563eb"),
  supportEmail: z.string({ error: "Support email must be text" }).trim().max(254, "Please enter a valid email address").refine((v) => v === "" || EMAIL.test(v), "Please enter a valid email address"),
  customHostname: z
    .string({ error: "Custom hostname must be text" })
    .transform(normalizeHostname)
    .refine((v) => v === "" || isCustomHostname(v), "Enter a host name such as dmarc.example.com (no https://, path or port)")
    .optional(),
});
export type BrandingInput = z.input<typeof brandingSchema>;

/** The branding in force: the organisation's own, its MSP's, or the product default. */
export interface Branding {
  productName: string;
  /** #rrggbb, or null for the product's own colours */
  primaryColor: string | null;
  supportEmail: string | null;
  /** where the logo is served (public), or null without one */
  logoUrl: string | null;
}

/** The sign-in page's answer for an MSP's link: name, logo and colour only. */
export type PublicBranding = Pick<Branding, "productName" | "primaryColor" | "logoUrl">;

/** A custom hostname is used only once verified: its DNS points at the deployment (--public-url's host) and holds the organisation's proof record. */
export const HOSTNAME_STATUSES = ["pending", "verified", "failed"] as const;
export type HostnameStatus = (typeof HOSTNAME_STATUSES)[number];

/** POST /api/branding/hostname/verify: the outcome of checking the hostname's DNS now. */
export interface HostnameVerification {
  customHostname: string;
  status: HostnameStatus;
  /** ISO time of the check, or null when never checked */
  checkedAt: string | null;
  /** what was found, and the record to publish */
  message: string;
}

export interface BrandingResponse extends Branding {
  /** the organisation's own host name for the deployment (sign-in page and mail links), or null */
  customHostname: string | null;
  /** its verification: only a verified hostname brands the sign-in page and mail links; null without a hostname */
  customHostnameStatus: HostnameStatus | null;
  /** ISO time of the last DNS check, or null */
  customHostnameCheckedAt: string | null;
  /** the DNS record to publish, e.g. "dmarc.msp.example CNAME app.dmarcwarden.example.", or null when it cannot be verified on this server */
  customHostnameRecord: string | null;
  /** the TXT record that proves the organisation controls the hostname (published beside the CNAME), or null without a hostname */
  customHostnameProof: DnsProofRecord | null;
  /** what the status means for the MSP (what to publish, or why it cannot be verified) */
  customHostnameMessage: string | null;
  /** whose branding is in force */
  source: "own" | "parent" | "default";
  /** the organisation's own branding as stored (null: none) */
  own: Branding | null;
  /** the caller may change it: an admin or owner of an organisation that is not a client, on the Scale plan or with billing off */
  canEdit: boolean;
  /** the plan allows white-label (Scale, or billing off) */
  planAllows: boolean;
  /** the organisation is a client: its MSP sets the branding */
  isClient: boolean;
}
