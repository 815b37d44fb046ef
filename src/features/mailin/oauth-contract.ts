import { z } from "zod";

/**
 * OAuth2 report mailboxes (Microsoft 365, Google Workspace), shared by the routes under
 * /api/settings/oauth-mailboxes and the settings screen. Tokens never leave the server.
 */
export const OAUTH_PROVIDERS = ["microsoft", "google"] as const;
export type OAuthProviderId = (typeof OAUTH_PROVIDERS)[number];

export const OAUTH_CALLBACK_PATH = "/api/settings/oauth-mailboxes/callback";

/** `?notice=` on the sign-in page for a browser that came back from the provider signed out */
export const OAUTH_SIGNED_OUT_NOTICE = "oauth_mailbox";
export const OAUTH_SIGNED_OUT_MESSAGE = "Your session ended while you were connecting a mailbox, so nothing was connected. Sign in to continue; you will be taken back to Settings to connect it again.";

/**
 * Where the provider's return sends a browser that is no longer signed in: the sign-in page,
 * then Settings' report-mail section, where the connection can be started again (the provider's
 * answer itself is dropped: a mailbox is connected only within a verified session).
 */
export const OAUTH_SIGNED_OUT_LOCATION = `/login?notice=${OAUTH_SIGNED_OUT_NOTICE}&next=${encodeURIComponent("/app/settings?oauth_mailbox=signed_out#report-mail")}`;

export const connectOAuthMailboxSchema = z.object({
  provider: z.enum(OAUTH_PROVIDERS, { error: "Choose Microsoft 365 or Google Workspace" }),
  folder: z
    .string({ error: "Enter the folder (or Gmail label) reports arrive in, e.g. INBOX" })
    .trim()
    .min(1, "Enter the folder (or Gmail label) reports arrive in, e.g. INBOX")
    .max(200, "Folder must be at most 200 characters")
    .refine((v) => v !== "Processed" && v !== "Invalid", "Processed and Invalid are where read messages are moved; choose the folder reports arrive in")
    .default("INBOX"),
});
export type ConnectOAuthMailboxInput = z.input<typeof connectOAuthMailboxSchema>;

export interface OAuthMailboxView {
  id: string;
  provider: OAuthProviderId;
  providerLabel: string;
  email: string;
  folder: string;
  /** "reconnect": the provider no longer accepts the stored authorization */
  status: "active" | "reconnect";
  lastPolledAt: string | null;
  lastError: string | null;
  lastPollMessages: number | null;
  createdAt: string;
}

/** GET /api/settings/oauth-mailboxes */
export interface OAuthMailboxList {
  /** the providers this server has a client for (configured by the operator) */
  providers: { provider: OAuthProviderId; label: string; configured: boolean }[];
  mailboxes: OAuthMailboxView[];
}

/** POST /api/settings/oauth-mailboxes/connect → the provider's consent page to go to */
export interface OAuthConnectStart {
  redirectUrl: string;
}

/** POST /api/settings/oauth-mailboxes/:id/poll */
export type OAuthMailboxPollResult = ({ ok: true; outcome: { processed: number; invalid: number; retried: number } } | { ok: false; error: string }) & { mailbox: OAuthMailboxView | null };

/** `?oauth_mailbox=` on the settings page after the provider sent the browser back */
export const OAUTH_CONNECT_RESULTS = {
  connected: "The mailbox is connected. dmarcwarden checks it for reports every few minutes.",
  denied: "The mailbox was not connected: the consent was declined at the provider.",
  expired: "The connection attempt expired or was started in another browser. Start again from Settings.",
  failed: "The provider could not be reached to finish connecting the mailbox. Try again in a few minutes.",
  unconfigured: "This server is not set up for that provider. Ask the administrator to configure its client id and secret.",
  signed_out: "Your session ended while you were at the provider, so the mailbox was not connected. Connect it again below.",
} as const;
export type OAuthConnectResult = keyof typeof OAUTH_CONNECT_RESULTS;

/** What a mailbox whose authorization was withdrawn says, in Settings and in the alert. */
export function reconnectNeeded(providerLabel: string, email: string): string {
  return `${providerLabel} no longer accepts dmarcwarden's access to ${email} (the consent was revoked, or the account's password or policy changed). Reconnect the mailbox in Settings.`;
}
