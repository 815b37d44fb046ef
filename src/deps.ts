import type Stripe from "stripe";
import type { Config } from "./config";
import type { DnsResolver } from "./features/dns/resolver";
import type { ProbeOptions } from "./features/dns/probes";
import type { Store } from "./db";
import type { RateLimiter } from "./http/rate-limit";
import type { SpaAssets } from "./http/spa";
import type { Logger } from "./log";
import type { Mailer } from "./features/mail/mailer";

/**
 * Everything a feature may depend on, built once by the CLI (or by a test) and handed to
 * createApp. Features add optional members here (resolver, mailer, stripe, …) so tests can
 * pass real local stand-ins.
 */
export interface AppDeps {
  config: Config;
  store: Store;
  log: Logger;
  limiter: RateLimiter;
  assets?: SpaAssets;
  /** the current time; tests pass a fixed clock */
  now: () => Date;
  /** the listening server, once started: gives the client's socket address */
  server?: { requestIP(request: Request): { address: string } | null } | null;
  /** the Stripe client when billing is on (STRIPE_SECRET_KEY set); tests point it at a local Stripe stand-in */
  stripe?: Stripe | null;
  /** key that encrypts stored secrets (IMAP passwords); when absent it is loaded from --secret-key or <db>.key on first use */
  secretKey?: Uint8Array;
  /** called after a domain is added (the DNS checks start from here) */
  onDomainAdded?: (domainId: string) => void;
  /** the DNS resolver (src/features/dns/resolver.ts, against --dns-server or the system's); tests point it at a local DNS server */
  resolver?: DnsResolver;
  /** the network probes of the DNS checks (MTA-STS policy, BIMI logo, STARTTLS on MX hosts); absent: DNS only */
  probes?: ProbeOptions;
  /** outgoing mail through --mail-relay (invitations, set-password links); absent when mail is off. Tests point it at a local SMTP capture server */
  mailer?: Mailer;
  /** called after alert deliveries were queued: the delivery scheduler sends them soon (set by serve) */
  alertsQueued?: () => void;
}
