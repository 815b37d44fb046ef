/**
 * The Zod contracts of the routes, by "METHOD /path" as the routes declare them: what each
 * route's handler validates its body or query with (`parseInput`), and its answer where a schema
 * of it exists. The OpenAPI document is generated from these and the route walk.
 */
import { z, type ZodType } from "zod";
import { adminLoginSchema, adminLogoutSchema } from "../admin/contract";
import { createChannelSchema, readEventsSchema, updateChannelSchema } from "../alerts/contract";
import { alertThresholdsSchema } from "../../lib/alerts/report-thresholds";
import { alertLimitSchema } from "../../lib/alerts/volume";
import { auditPageSchema, auditQuerySchema } from "../audit/contract";
import { loginSchema, passwordLinkSchema, passwordTokenSchema, resetPasswordSchema, signupSchema, twoFactorCodeSchema } from "../auth/contract";
import { setPasswordSchema, trialSetupSchema } from "../billing/contract";
import { contactMessageSchema } from "../contact/contract";
import { threatCountriesQuerySchema } from "../dashboard/contract";
import { dnsLookupRequest } from "../dns/contract";
import { domainHistoryQuerySchema } from "../domains/page-routes";
import { addDomainSchema } from "../domains/contract";
import { mailboxInputSchema } from "../mailin/contract";
import { changeRoleSchema, createClientSchema, invitationTokenSchema, inviteSchema } from "../orgs/contract";
import { clientReportSchema, importSchema } from "../portfolio/contract";
import { brandingSchema } from "../branding/contract";
import { listFailureTlsQuerySchema, listReportsQuerySchema, markSenderSchema, senderDetailQuerySchema, sendersQuerySchema } from "../reports/contract";
import { settingsSchema } from "../settings/contract";
import { createTokenSchema } from "../tokens/contract";
import { saveSsoSchema, startSsoSchema } from "../sso/contract";
import { topSourcesQuerySchema, trendsQuerySchema } from "../trends/contract";

export interface RouteContract {
  summary?: string;
  body?: ZodType;
  query?: ZodType;
  response?: ZodType;
  /** the answer's media type when it is not JSON */
  produces?: string;
  /** answers other than success whose body is not the common error shape, by status */
  otherResponses?: Record<string, { description: string; schema: ZodType }>;
}

const tokenBody = z.object({ token: passwordTokenSchema });

export const CONTRACTS: Record<string, RouteContract> = {
  "POST /api/admin/login": {
    summary: "Sign in to the operator console",
    body: adminLoginSchema,
    otherResponses: { "401": { description: "The username or password is wrong", schema: z.object({ success: z.literal(false), message: z.string() }) } },
  },
  "POST /api/admin/logout": { summary: "Sign out of the operator console", body: adminLogoutSchema },
  "POST /api/alerts/channels": { summary: "Add an alert channel", body: createChannelSchema },
  "PATCH /api/alerts/channels/:id": { summary: "Change an alert channel", body: updateChannelSchema },
  "PUT /api/alerts/thresholds": { summary: "Change the report alert thresholds", body: alertThresholdsSchema },
  "GET /api/alerts/limit": { summary: "Alerts sent per channel in any 10 minutes before the rest become one summary" },
  "PUT /api/alerts/limit": { summary: "Change how many alerts each channel gets in 10 minutes (1 to 100)", body: alertLimitSchema },
  "POST /api/events/read": { summary: "Mark events read", body: readEventsSchema },
  "GET /api/audit": { summary: "The organization's audit log, newest first", query: auditQuerySchema, response: auditPageSchema },
  "POST /api/auth/signup": { summary: "Create an account", body: signupSchema },
  "POST /api/auth/login": { summary: "Sign in with email and password", body: loginSchema },
  "POST /api/auth/login/2fa": { summary: "Finish signing in with a two-factor code", body: twoFactorCodeSchema },
  "POST /api/auth/2fa/enable": { summary: "Turn on two-factor sign-in", body: twoFactorCodeSchema },
  "POST /api/auth/2fa/disable": { summary: "Turn off two-factor sign-in", body: twoFactorCodeSchema },
  "POST /api/auth/password-link": { summary: "Mail a set-password link", body: passwordLinkSchema },
  "POST /api/auth/password-link/lookup": { summary: "Describe a set-password link", body: tokenBody },
  "POST /api/auth/reset-password": { summary: "Set a new password with a link", body: resetPasswordSchema },
  "POST /api/auth/verify-email": { summary: "Confirm an email address", body: tokenBody },
  "POST /api/auth/set-password": { summary: "Set the first password", body: setPasswordSchema },
  "POST /api/create-trial-setup": { summary: "Start a trial", body: trialSetupSchema },
  "POST /api/contact": { summary: "Send the contact form", body: contactMessageSchema },
  "GET /api/threats/countries": { summary: "Countries sending failing mail", query: threatCountriesQuerySchema },
  "POST /api/dns-lookup": { summary: "Look up a domain's DMARC, SPF and DKIM records", body: dnsLookupRequest },
  "GET /api/domains/:id/history": { summary: "A domain's DNS change history", query: domainHistoryQuerySchema },
  "POST /api/domains": { summary: "Add a domain", body: addDomainSchema },
  "GET /api/portfolio": { summary: "Every client of the managing organization with its figures (MSP portfolio)" },
  "POST /api/portfolio/import": { summary: "Create clients and add their domains from a CSV (dry run by default)", body: importSchema },
  "GET /api/portfolio/clients/:id/report": { summary: "A client's weekly report contacts, switch and last send (managing organization's owners and admins)" },
  "PUT /api/portfolio/clients/:id/report": { summary: "Set a client's weekly report contacts (at most 10) and switch", body: clientReportSchema },
  "GET /api/branding": { summary: "The branding in force for the organization (its own, its MSP's or the default); signed out, the name, logo and colour for the MSP custom hostname the request came to" },
  "PUT /api/branding": { summary: "Set the white-label product name, primary colour, support email and custom hostname", body: brandingSchema },
  "PUT /api/branding/logo": { summary: "Upload the white-label logo (multipart field \"logo\", PNG or JPEG, at most 256 KB)" },
  "DELETE /api/branding/logo": { summary: "Remove the white-label logo" },
  "POST /api/branding/hostname/verify": { summary: "Check now whether the custom hostname's DNS points at this server (a CNAME to --public-url's host, or its addresses); only a verified hostname is used" },
  "GET /api/branding/public": { summary: "The sign-in page's branding for an MSP's link (?brand=<slug>) or, without it, for the MSP custom hostname the request came to: name, logo and colour" },
  "GET /api/branding/:slug/logo": { summary: "An MSP's logo", produces: "image/png" },
  "PUT /api/settings/mailbox": { summary: "Set the IMAP report mailbox", body: mailboxInputSchema },
  "POST /api/settings/mailbox/test": { summary: "Test the IMAP report mailbox", body: mailboxInputSchema.partial() },
  "PATCH /api/members/:id": { summary: "Change a member's role", body: changeRoleSchema },
  "POST /api/orgs/clients": { summary: "Create a client organization", body: createClientSchema },
  "POST /api/invitations/lookup": { summary: "Describe an invitation", body: invitationTokenSchema },
  "POST /api/invitations/accept": { summary: "Accept an invitation", body: invitationTokenSchema },
  "POST /api/members/invitations": { summary: "Invite someone", body: inviteSchema },
  "GET /api/dmarc-reports": { summary: "Aggregate reports", query: listReportsQuerySchema },
  "GET /api/failure-reports": { summary: "Failure reports", query: listFailureTlsQuerySchema },
  "GET /api/tls-reports": { summary: "TLS reports", query: listFailureTlsQuerySchema },
  "GET /api/senders": { summary: "Sending sources with their verdicts", query: sendersQuerySchema },
  "GET /api/senders/:key": { summary: "One sender", query: senderDetailQuerySchema },
  "PUT /api/senders/:key/mark": { summary: "Mark a sender approved or not ours", body: markSenderSchema },
  "PUT /api/settings": { summary: "Change the organization's settings", body: settingsSchema },
  "POST /api/tokens": { summary: "Create an API token (shown once)", body: createTokenSchema },
  "GET /api/sso": { summary: "The organization's single sign-on (OpenID Connect) settings, without the client secret" },
  "PUT /api/sso": { summary: "Set up or change single sign-on (the client secret may be left out to keep the stored one)", body: saveSsoSchema },
  "DELETE /api/sso": { summary: "Remove single sign-on" },
  "POST /api/sso/domains/check": { summary: "Check the pending allowed email domains' DNS proof records now: the ones found may sign in with single sign-on" },
  "POST /api/auth/sso/start": { summary: "Begin signing in with single sign-on: answers the identity provider's URL to send the browser to", body: startSsoSchema },
  "GET /api/auth/sso/callback": { summary: "Where the identity provider sends the browser back (authorization code, state); redirects into the app", produces: "text/html" },
  "GET /api/trends": { summary: "Daily messages and pass rate", query: trendsQuerySchema },
  "GET /api/trends/sources": { summary: "Top sources of a period", query: topSourcesQuerySchema },
  "GET /api/records.csv": { summary: "Aggregate records as CSV", query: z.object({ days: trendsQuerySchema.shape.days, domain: trendsQuerySchema.shape.domain }), produces: "text/csv" },
  "GET /metrics": { summary: "Prometheus metrics of this node", produces: "text/plain; version=0.0.4" },
  "GET /healthz": { summary: "Liveness and database check" },
  "GET /api/openapi.json": { summary: "This document" },
  "GET /api/docs": { summary: "Browsable API documentation", produces: "text/html" },
};
