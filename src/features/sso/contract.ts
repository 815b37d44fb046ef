/** Single sign-on (OpenID Connect): the settings form's schema, the sign-in entry and what the API answers. */
import { z } from "zod";
import { isValidDomainName } from "../../lib/domain-name";
import type { DnsProofRecord } from "../dns/contract";

/** Roles single sign-on may give a person on their first sign-in (never owner). */
export const SSO_ROLES = ["admin", "member", "viewer"] as const;
export type SsoRole = (typeof SSO_ROLES)[number];
export const MAX_ALLOWED_DOMAINS = 50;

const ISSUER_MESSAGE = "Enter the issuer URL your identity provider shows, e.g. https://login.microsoftonline.com/<tenant id>/v2.0";
const DOMAINS_MESSAGE = "List at least one email domain, e.g. example.com: only addresses there can sign in";

/** "example.com, Example.org\nexample.net" or ["example.com"] → unique lower-case names. */
const allowedDomains = z
  .union([z.string(), z.array(z.string())], { error: DOMAINS_MESSAGE })
  .transform((value) => [...new Set((Array.isArray(value) ? value : value.split(/[\s,;]+/)).map((d) => d.trim().toLowerCase().replace(/^@/, "")).filter(Boolean))])
  .refine((list) => list.length > 0, DOMAINS_MESSAGE)
  .refine((list) => list.length <= MAX_ALLOWED_DOMAINS, `At most ${MAX_ALLOWED_DOMAINS} email domains`)
  .refine((list) => list.every(isValidDomainName), "Each email domain must be a domain name such as example.com");

/** PUT /api/sso: the client secret may be left out to keep the stored one (required the first time). */
export const saveSsoSchema = z.object({
  issuer: z
    .string({ error: ISSUER_MESSAGE })
    .trim()
    .min(1, ISSUER_MESSAGE)
    .max(500, "The issuer URL is too long")
    .refine((v) => /^https?:\/\/[^/\s]+/i.test(v) && URL.canParse(v), ISSUER_MESSAGE)
    .transform((v) => v.replace(/\/+$/, "")),
  clientId: z.string({ error: "Enter the client id (application id) your identity provider gave" }).trim().min(1, "Enter the client id (application id) your identity provider gave").max(300, "The client id is too long"),
  clientSecret: z.string().max(2000, "The client secret is too long").optional().transform((v) => (v?.trim() ? v.trim() : undefined)),
  allowedDomains,
  newUserRole: z.enum(SSO_ROLES, { error: "The role for new users must be admin, member or viewer" }).default("viewer"),
  enabled: z.boolean({ error: "Enabled must be true or false" }).default(true),
});
export type SaveSsoInput = z.input<typeof saveSsoSchema>;

/** The form's own shape (the domains typed as one line). */
export type SsoFormValues = { issuer: string; clientId: string; clientSecret: string; allowedDomains: string; newUserRole: SsoRole; enabled: boolean };

/** POST /api/auth/sso/start: who is signing in: an email address, or the organisation's short name (slug). */
export const startSsoSchema = z.object({
  identifier: z
    .string({ error: "Enter your work email address or your organization's short name" })
    .trim()
    .min(1, "Enter your work email address or your organization's short name")
    .max(254, "That is too long for an email address or an organization name")
    .transform((v) => v.toLowerCase()),
  next: z.string().max(500).optional(),
});
export type StartSsoInput = z.input<typeof startSsoSchema>;

/**
 * An allowed email domain is used only once the organisation proved it controls it (a TXT record
 * in the domain's DNS): until then it is pending, and its addresses cannot sign in.
 */
export type SsoDomainStatus = "pending" | "proved";

export interface SsoDomainView {
  domain: string;
  status: SsoDomainStatus;
  /** the TXT record to publish (and keep) for this domain */
  record: DnsProofRecord;
}

/** GET /api/sso: the organisation's connection without its secret (null: none configured). */
export interface SsoConnectionView {
  issuer: string;
  clientId: string;
  /** a secret is stored (it is never answered) */
  hasClientSecret: boolean;
  allowedDomains: string[];
  /** each allowed domain with its proof: pending ones are used for nothing */
  domains: SsoDomainView[];
  newUserRole: SsoRole;
  enabled: boolean;
  updatedAt: string;
}

export interface SsoSettingsResponse {
  connection: SsoConnectionView | null;
  /** what to register at the identity provider as the redirect (callback) URI */
  redirectUri: string;
  /** the organisation's short name, which people may type on the sign-in page */
  organizationSlug: string;
}

/** POST /api/sso/domains/check: each pending domain's DNS asked now. */
export interface SsoDomainCheckResponse {
  connection: SsoConnectionView;
  /** one per domain that was pending before the check: what was found */
  results: { domain: string; status: SsoDomainStatus; message: string }[];
}

/** POST /api/auth/sso/start answers where to send the browser. */
export interface SsoStartResponse {
  redirectUrl: string;
}

/** Why a single sign-on did not finish: `/login?sso_error=<code>` and the words the sign-in page shows. */
export const SSO_ERRORS = {
  expired: "Your single sign-on took too long or was started in another browser. Start it again.",
  failed: "Single sign-on did not complete: the identity provider's answer could not be verified. Start it again, or ask your administrator to check the settings.",
  denied: "The identity provider did not sign you in. Start again, or ask your administrator.",
  email_not_verified: "Your identity provider did not confirm your email address, so it cannot be matched to an account here. Ask your administrator.",
  domain_not_allowed: "Your email domain is not allowed to sign in to this organization with single sign-on. Ask your administrator to add it.",
  domain_not_proved:
    "Your email domain is not yet proved to belong to this organization, so single sign-on cannot sign you in. Ask your administrator to publish the domain's DNS record shown in Settings → Single sign-on and check it.",
  disabled: "Single sign-on is turned off for this organization. Sign in with your password, or ask your administrator.",
  member_limit: "The organization has reached its plan's number of members. Ask its owner to upgrade or remove a member.",
  account_elsewhere: "An account with your email address also belongs to other organizations here, so single sign-on cannot open it. Sign in with your password (Forgot password? sets one).",
} as const;
export type SsoErrorCode = keyof typeof SSO_ERRORS;
