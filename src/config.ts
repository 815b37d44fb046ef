/**
 * Flags + environment → one typed, validated Config.
 *
 * Every flag has an environment twin. A flag given on the command line wins over the
 * environment, which wins over the default. A bad value throws ConfigError, which the CLI
 * prints as one line before exiting with code 2.
 */
import { mailFromProblem, relayUrlProblem } from "./features/mail/relay-url";
import { trustedProxiesProblem } from "./http/client";

export class ConfigError extends Error {}

type FlagKind = "string" | "int" | "bool" | "list";

export interface FlagSpec {
  /** long flag name without the dashes, e.g. "port" */
  name: string;
  /** environment twin, e.g. "PORT" */
  env: string;
  kind: FlagKind;
  help: string;
  /** which commands read this flag (for --help); "*" for all */
  commands: string[];
  default?: string | number | boolean | string[];
  /** placeholder shown in --help */
  value?: string;
  /** optional extra check; return an error message to refuse the value */
  check?: (value: any) => string | undefined;
}

const port = (v: number) => (v < 0 || v > 65535 ? "must be a port number from 0 to 65535" : undefined);

/** A PostgreSQL URL, or why not. Never repeats the value: it may hold a password. */
export function databaseUrlProblem(v: string): string | undefined {
  if (!v) return undefined;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    return "is not a URL; expected postgres://user:pass@host:port/db";
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") return "must start with postgres:// or postgresql://";
  if (!url.hostname) return "needs a host: postgres://user:pass@host:port/db";
  if (url.pathname.replace(/^\//, "") === "") return "needs a database name: postgres://user:pass@host:port/db";
  return undefined;
}

/** The commands that open the database: the store flags are theirs (check and migrate-store are not). */
const STORE_COMMANDS = ["serve", "migrate", "ingest", "seed-demo", "digest"];

/** The commands that take positional arguments (a domain, files); the others refuse them. */
const POSITIONAL_COMMANDS = new Set(["check", "ingest"]);

/** HOST, HOST:PORT or [IPv6]:PORT with a port from 1 to 65535, or why not. */
export function dnsServerProblem(v: string[]): string | undefined {
  for (const s of v) {
    let port: string | undefined;
    const bracketed = /^\[([0-9a-f:.]+)\](?::(\d+))?$/i.exec(s);
    if (bracketed) port = bracketed[2];
    else if (/^[0-9a-f:.]+$/i.test(s) && (s.match(/:/g)?.length ?? 0) >= 2) port = undefined; // a bare IPv6 address
    else {
      const m = /^([a-z0-9]([a-z0-9.-]*[a-z0-9])?)(?::(\d+))?$/i.exec(s);
      if (!m) return `"${s}" is not HOST, HOST:PORT or [IPv6]:PORT`;
      port = m[3];
    }
    if (port !== undefined && !(Number(port) >= 1 && Number(port) <= 65535)) return `"${s}": the port must be from 1 to 65535`;
  }
  return undefined;
}

/** A --seed-admin value USER:PASS whose password follows every user's rule, or why not. */
function seedAdminProblem(v: string): string | undefined {
  if (!v) return undefined;
  if (!/^[^:]+:.+$/.test(v)) return "must be USER:PASS";
  return adminPasswordProblem(v.slice(v.indexOf(":") + 1));
}

function adminPasswordProblem(password: string): string | undefined {
  // the password rule (Zod and its dictionaries) loads only when a seed admin is given
  const { passwordSchema } = require("./features/auth/contract") as typeof import("./features/auth/contract");
  const rule = passwordSchema.safeParse(password);
  return rule.success ? undefined : `the password is refused: ${rule.error.issues[0]?.message ?? "invalid"}`;
}

/** The one table of flags. Features add their own rows here, so --help stays complete; Config gets a typed member for each. */
export const FLAGS = [
  { name: "port", env: "PORT", kind: "int", default: 8080, value: "N", commands: ["serve"], help: "HTTP port to listen on", check: port },
  { name: "host", env: "HOST", kind: "string", default: "0.0.0.0", value: "ADDR", commands: ["serve"], help: "address to bind the HTTP server to" },
  { name: "db", env: "DATABASE_PATH", kind: "string", default: "./data/dmarcwarden.db", value: "PATH", commands: STORE_COMMANDS, help: "SQLite database file (created on first start); the store unless --database-url is given" },
  { name: "database-url", env: "DATABASE_URL", kind: "string", default: "", value: "URL", commands: STORE_COMMANDS, help: "use PostgreSQL instead of the SQLite file: postgres://user:pass@host:port/db", check: databaseUrlProblem },
  { name: "database-pool", env: "DATABASE_POOL", kind: "int", default: 10, value: "N", commands: STORE_COMMANDS, help: "PostgreSQL connections this node keeps open at most", check: (v: number) => (v < 1 || v > 1000 ? "must be between 1 and 1000" : undefined) },
  { name: "from", env: "MIGRATE_FROM", kind: "string", default: "", value: "PATH", commands: ["migrate-store"], help: "the SQLite database file to copy from" },
  { name: "to", env: "MIGRATE_TO", kind: "string", default: "", value: "URL", commands: ["migrate-store"], help: "the empty PostgreSQL database to copy into: postgres://user:pass@host:port/db" },
  { name: "public-url", env: "PUBLIC_URL", kind: "string", default: "", value: "URL", commands: ["serve", "digest"], help: "the address users reach the server at, e.g. https://dmarc.example.com (links in mail, Secure cookies)", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "trust-proxy", env: "TRUST_PROXY", kind: "bool", default: false, commands: ["serve"], help: "one reverse proxy of your own sits in front: the client address is the right-most X-Forwarded-For entry" },
  { name: "trusted-proxies", env: "TRUSTED_PROXIES", kind: "list", default: [], value: "CIDR", commands: ["serve"], help: "addresses or CIDR ranges of your reverse proxies (repeatable or comma separated): X-Forwarded-For counts only from them, read from the right skipping them", check: trustedProxiesProblem },
  { name: "seed-admin", env: "SEED_ADMIN", kind: "string", default: "", value: "USER:PASS", commands: ["serve"], help: "create or update the Master Administrator (also ADMIN_USERNAME / ADMIN_PASSWORD); the password needs at least 10 characters", check: seedAdminProblem },
  // Prometheus metrics (issue 16)
  { name: "metrics", env: "METRICS", kind: "bool", default: false, commands: ["serve"], help: "serve Prometheus metrics at GET /metrics to anyone who can reach the server (or use --metrics-token)" },
  { name: "metrics-token", env: "METRICS_TOKEN", kind: "string", default: "", value: "TOKEN", commands: ["serve"], help: "serve GET /metrics to scrapers that send Authorization: Bearer TOKEN (turns metrics on)", check: (v: string) => (v && v.length < 16 ? "must be at least 16 characters" : undefined) },
  { name: "log-level", env: "LOG_LEVEL", kind: "string", default: "info", value: "LEVEL", commands: STORE_COMMANDS, help: "debug, info, warn or error", check: (v: string) => (["debug", "info", "warn", "error"].includes(v) ? undefined : "must be debug, info, warn or error") },
  // DNS checks (issue 5)
  { name: "dns-server", env: "DNS_SERVERS", kind: "list", default: [], value: "HOST[:PORT]", commands: ["serve", "check", "ingest"], help: "DNS server for the checks (ingest: for the senders' host names); repeat the flag (or comma-separate the variable) for several; default: the system's (/etc/resolv.conf)", check: dnsServerProblem },
  { name: "dns-timeout", env: "DNS_TIMEOUT", kind: "int", default: 2500, value: "MS", commands: ["serve", "check", "ingest"], help: "per-query DNS timeout in milliseconds (one retry follows a timeout)", check: (v: number) => (v < 100 || v > 30000 ? "must be between 100 and 30000 ms" : undefined) },
  { name: "dns-check-interval", env: "DNS_CHECK_INTERVAL", kind: "int", default: 360, value: "MINUTES", commands: ["serve"], help: "how often every domain's DNS records are re-checked (0: never)", check: (v: number) => (v < 0 || v > 10080 ? "must be between 0 and 10080 minutes" : undefined) },
  { name: "smtp-probe-port", env: "SMTP_PROBE_PORT", kind: "int", default: 25, value: "N", commands: ["serve", "check"], help: "port the MX hosts' STARTTLS check connects to (EHLO, STARTTLS, certificate; 0: no SMTP probe)", check: port },
  { name: "https-probe-port", env: "HTTPS_PROBE_PORT", kind: "int", default: 443, value: "N", commands: ["serve", "check"], help: "port of the MTA-STS policy and BIMI logo fetches when the address names none (tests)", check: (v: number) => (v < 1 || v > 65535 ? "must be a port number from 1 to 65535" : undefined) },
  { name: "extra-ca-file", env: "EXTRA_CA_FILE", kind: "string", default: "", value: "FILE", commands: ["serve", "check"], help: "PEM file of CA certificates the MTA-STS, BIMI and STARTTLS checks trust besides the system's (a private CA, tests)" },
  { name: "allow-private-probe-hosts", env: "ALLOW_PRIVATE_PROBE_HOSTS", kind: "bool", default: false, commands: ["serve", "check"], help: "let the MTA-STS, BIMI and STARTTLS checks connect to loopback, private or link-local addresses (tests); off, hosts named in a domain's DNS are only reached at public addresses" },
  { name: "json", env: "CHECK_JSON", kind: "bool", default: false, commands: ["check"], help: "print the analysis as JSON instead of text" },
  { name: "selector", env: "DKIM_SELECTORS", kind: "list", default: [], value: "NAME", commands: ["check"], help: "DKIM selector to try besides the common ones (repeatable)" },
  // report mail in (src/features/mailin): SMTP receiver, IMAP polling, the key that encrypts stored mailbox passwords
  { name: "smtp-port", env: "SMTP_PORT", kind: "int", default: 0, value: "N", commands: ["serve", "digest"], help: "start the SMTP receiver for report mail on this port (0: off)", check: port },
  { name: "smtp-host", env: "SMTP_HOST", kind: "string", default: "0.0.0.0", value: "ADDR", commands: ["serve"], help: "address the SMTP receiver binds to" },
  { name: "smtp-domain", env: "SMTP_DOMAIN", kind: "string", default: "", value: "DOMAIN", commands: ["serve", "digest"], help: "mail domain of the report addresses <org-token>@DOMAIN (needed with --smtp-port; its MX must point here)", check: (v: string) => (v && !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$|^localhost$/i.test(v) ? "must be a domain name such as reports.example.com" : undefined) },
  { name: "smtp-max-bytes", env: "SMTP_MAX_BYTES", kind: "int", default: 25 * 1024 * 1024, value: "N", commands: ["serve"], help: "largest report message the SMTP receiver accepts, in bytes", check: (v: number) => (v < 1024 || v > 1024 * 1024 * 1024 ? "must be between 1024 and 1073741824" : undefined) },
  { name: "smtp-max-connections", env: "SMTP_MAX_CONNECTIONS", kind: "int", default: 100, value: "N", commands: ["serve"], help: "SMTP connections open at once, all clients together (per node)", check: (v: number) => (v < 1 || v > 100000 ? "must be between 1 and 100000" : undefined) },
  { name: "smtp-max-connections-per-address", env: "SMTP_MAX_CONNECTIONS_PER_ADDRESS", kind: "int", default: 10, value: "N", commands: ["serve"], help: "SMTP connections open at once from one client address (an IPv6 /64; per node); more get 421", check: (v: number) => (v < 1 || v > 100000 ? "must be between 1 and 100000" : undefined) },
  { name: "smtp-idle-timeout", env: "SMTP_IDLE_TIMEOUT", kind: "int", default: 30, value: "SECONDS", commands: ["serve"], help: "an SMTP client that has not sent MAIL FROM this many seconds after connecting is closed with 421", check: (v: number) => (v < 1 || v > 600 ? "must be between 1 and 600 seconds" : undefined) },
  { name: "smtp-messages-per-address", env: "SMTP_MESSAGES_PER_ADDRESS", kind: "int", default: 200, value: "N", commands: ["serve"], help: "report messages accepted per client address per 10 minutes; more get 451 (try later)", check: (v: number) => (v < 1 || v > 1000000 ? "must be between 1 and 1000000" : undefined) },
  { name: "smtp-messages-per-token", env: "SMTP_MESSAGES_PER_TOKEN", kind: "int", default: 100, value: "N", commands: ["serve"], help: "report messages accepted per organization report address per 10 minutes; more get 450 (try later)", check: (v: number) => (v < 1 || v > 1000000 ? "must be between 1 and 1000000" : undefined) },
  { name: "smtp-tls-cert", env: "SMTP_TLS_CERT", kind: "string", default: "", value: "FILE", commands: ["serve"], help: "PEM certificate (chain) for STARTTLS on the SMTP receiver; with --smtp-tls-key" },
  { name: "smtp-tls-key", env: "SMTP_TLS_KEY", kind: "string", default: "", value: "FILE", commands: ["serve"], help: "PEM private key for STARTTLS on the SMTP receiver; without cert and key STARTTLS is not offered" },
  { name: "allow-private-mailbox-hosts", env: "ALLOW_PRIVATE_MAILBOX_HOSTS", kind: "bool", default: false, commands: ["serve"], help: "let report mailboxes (IMAP) be on loopback, private or link-local addresses; off, only public addresses are connected to" },
  // alerts (src/features/alerts): delivery of events to the organisations' channels
  { name: "alert-delivery-interval", env: "ALERT_DELIVERY_INTERVAL", kind: "int", default: 15, value: "SECONDS", commands: ["serve"], help: "how often queued alerts (email, Slack, Teams, webhooks) are sent (0: never, e.g. a node that only serves requests)", check: (v: number) => (v < 0 || v > 3600 ? "must be between 0 and 3600 seconds" : undefined) },
  { name: "allow-private-webhook-hosts", env: "ALLOW_PRIVATE_WEBHOOK_HOSTS", kind: "bool", default: false, commands: ["serve"], help: "let alert channels (Slack, Teams, webhooks) post to loopback, private or link-local addresses, and over plain http; off, only https to public addresses" },
  // sso (src/features/sso): the organisations' OpenID Connect identity providers
  { name: "allow-insecure-oidc", env: "ALLOW_INSECURE_OIDC", kind: "bool", default: false, commands: ["serve"], help: "let single sign-on issuers be plain http and on loopback, private or link-local addresses (tests, a lab); off, only https issuers at public addresses" },
  { name: "imap-poll-interval", env: "IMAP_POLL_INTERVAL", kind: "int", default: 5, value: "MINUTES", commands: ["serve"], help: "how often the organizations' report mailboxes are polled (0: never)", check: (v: number) => (v < 0 || v > 1440 ? "must be between 0 and 1440 minutes" : undefined) },
  { name: "secret-key", env: "SECRET_KEY", kind: "string", default: "", value: "KEY", commands: ["serve"], help: "32-byte key (64 hex or 44 base64 characters) that encrypts stored mailbox passwords; default: generated into <db>.key", check: (v: string) => (v && !/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/.test(v.trim()) ? "must be 32 bytes written as 64 hex or 44 base64 characters (try: openssl rand -base64 32)" : undefined) },
  // OAuth2 report mailboxes (src/features/mailin/oauth-*.ts): Microsoft 365 through Microsoft Graph, Google Workspace through the Gmail API
  { name: "microsoft-client-id", env: "MICROSOFT_CLIENT_ID", kind: "string", default: "", value: "ID", commands: ["serve"], help: "application (client) id of the Entra ID app registration; turns on Microsoft 365 report mailboxes" },
  { name: "microsoft-client-secret", env: "MICROSOFT_CLIENT_SECRET", kind: "string", default: "", value: "SECRET", commands: ["serve"], help: "client secret of that app registration" },
  { name: "microsoft-tenant", env: "MICROSOFT_TENANT", kind: "string", default: "organizations", value: "TENANT", commands: ["serve"], help: "Entra ID tenant the sign-in goes to: organizations (any work account), or one tenant id or domain" },
  { name: "microsoft-authorize-url", env: "MICROSOFT_AUTHORIZE_URL", kind: "string", default: "", value: "URL", commands: ["serve"], help: "authorization endpoint (default: https://login.microsoftonline.com/<tenant>/oauth2/v2.0/authorize)", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "microsoft-token-url", env: "MICROSOFT_TOKEN_URL", kind: "string", default: "", value: "URL", commands: ["serve"], help: "token endpoint (default: https://login.microsoftonline.com/<tenant>/oauth2/v2.0/token)", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "microsoft-graph-url", env: "MICROSOFT_GRAPH_URL", kind: "string", default: "https://graph.microsoft.com/v1.0", value: "URL", commands: ["serve"], help: "Microsoft Graph API base", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "google-client-id", env: "GOOGLE_CLIENT_ID", kind: "string", default: "", value: "ID", commands: ["serve"], help: "OAuth client id (web application) from the Google Cloud console; turns on Google Workspace report mailboxes" },
  { name: "google-client-secret", env: "GOOGLE_CLIENT_SECRET", kind: "string", default: "", value: "SECRET", commands: ["serve"], help: "client secret of that OAuth client" },
  { name: "google-authorize-url", env: "GOOGLE_AUTHORIZE_URL", kind: "string", default: "https://accounts.google.com/o/oauth2/v2/auth", value: "URL", commands: ["serve"], help: "Google authorization endpoint", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "google-token-url", env: "GOOGLE_TOKEN_URL", kind: "string", default: "https://oauth2.googleapis.com/token", value: "URL", commands: ["serve"], help: "Google token endpoint", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "gmail-api-url", env: "GMAIL_API_URL", kind: "string", default: "https://gmail.googleapis.com/gmail/v1", value: "URL", commands: ["serve"], help: "Gmail API base", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  // billing (src/features/billing): without a Stripe secret key billing is off (self-hosted mode)
  { name: "stripe-secret-key", env: "STRIPE_SECRET_KEY", kind: "string", default: "", value: "KEY", commands: ["serve"], help: "Stripe secret key (sk_...); turns billing on" },
  { name: "stripe-publishable-key", env: "STRIPE_PUBLISHABLE_KEY", kind: "string", default: "", value: "KEY", commands: ["serve"], help: "Stripe publishable key (pk_...), served to the web app at run time" },
  { name: "stripe-webhook-secret", env: "STRIPE_WEBHOOK_SECRET", kind: "string", default: "", value: "SECRET", commands: ["serve"], help: "signing secret (whsec_...) of the webhook endpoint /api/stripe/webhook" },
  { name: "stripe-price-essentials", env: "STRIPE_PRICE_ESSENTIALS", kind: "string", default: "", value: "PRICE", commands: ["serve"], help: "Stripe price id of the Essentials plan" },
  { name: "stripe-price-growth", env: "STRIPE_PRICE_GROWTH", kind: "string", default: "", value: "PRICE", commands: ["serve"], help: "Stripe price id of the Growth plan" },
  { name: "stripe-price-scale", env: "STRIPE_PRICE_SCALE", kind: "string", default: "", value: "PRICE", commands: ["serve"], help: "Stripe price id of the Scale plan" },
  { name: "stripe-api-base", env: "STRIPE_API_BASE", kind: "string", default: "", value: "URL", commands: ["serve"], help: "talk to this Stripe-compatible API instead of api.stripe.com (tests)", check: (v: string) => (v && !/^https?:\/\/[^/]+/.test(v) ? "must start with http:// or https://" : undefined) },
  { name: "plan-limits", env: "PLAN_LIMITS", kind: "bool", default: true, commands: ["serve"], help: "enforce plan limits and read-only state (--no-plan-limits: none, e.g. an MSP's own install)" },
  // outgoing mail (src/features/mail): invitations and set-password links
  { name: "mail-relay", env: "MAIL_RELAY_URL", kind: "string", default: "", value: "URL", commands: ["serve", "digest"], help: "SMTP relay for outgoing mail: smtp://user:pass@smtp.example.com:587 (STARTTLS when offered) or smtps://user:pass@host:465; needs --mail-from and --public-url (default: no mail, links are shown to copy)", check: (v: string) => relayUrlProblem(v.trim()) },
  { name: "mail-from", env: "MAIL_FROM", kind: "string", default: "", value: "ADDR", commands: ["serve", "digest"], help: 'sender of outgoing mail, e.g. alerts@example.com or "dmarcwarden <alerts@example.com>"', check: (v: string) => mailFromProblem(v.trim()) },
  // the weekly digest on demand (src/features/digests)
  { name: "send", env: "DIGEST_SEND", kind: "bool", default: false, commands: ["digest"], help: "mail the digest now to the organization's verified owners and admins (needs --mail-relay, --mail-from, --public-url)" },
  { name: "out", env: "DIGEST_OUT", kind: "string", default: "", value: "FILE.pdf", commands: ["digest"], help: "write the digest as a PDF to this file instead of printing it" },
  { name: "week-of", env: "DIGEST_WEEK_OF", kind: "string", default: "", value: "YYYY-MM-DD", commands: ["digest"], help: "build the digest as if sent on this UTC day: the 7 days before it (default: today)", check: (v: string) => (v && (!/^\d{4}-\d{2}-\d{2}$/.test(v) || Number.isNaN(Date.parse(`${v}T00:00:00Z`))) ? "must be a date written YYYY-MM-DD" : undefined) },
  // report ingestion (src/features/reports)
  { name: "org", env: "INGEST_ORG", kind: "string", default: "", value: "SLUG", commands: ["ingest", "digest"], help: "the organization (its slug): the reports are ingested for it (ingest), its digest is built (digest)" },
  { name: "max-report-mb", env: "MAX_REPORT_MB", kind: "int", default: 25, value: "MB", commands: ["serve", "ingest"], help: "largest report file accepted (upload, CLI, mail), in MB; decompressed content may be up to 200 MB", check: (v: number) => (v < 1 || v > 1024 ? "must be between 1 and 1024" : undefined) },
  { name: "max-records-per-report", env: "MAX_RECORDS_PER_REPORT", kind: "int", default: 100_000, value: "N", commands: ["serve", "ingest"], help: "most records (<record> rows) one aggregate report may hold; a larger report is refused whole (upload: 413, mail: 554)", check: (v: number) => (v < 1 || v > 10_000_000 ? "must be between 1 and 10000000" : undefined) },
  { name: "seed-demo", env: "SEED_DEMO", kind: "bool", default: false, commands: ["serve"], help: "create the demo organization (slug demo), its owner, domains and several weeks of reports; idempotent" },
  { name: "reset-password", env: "DEMO_RESET_PASSWORD", kind: "bool", default: false, commands: ["seed-demo"], help: "give the demo owner a new generated password and print it" },
  { name: "geoip-db", env: "GEOIP_DB", kind: "string", default: "", value: "PATH", commands: ["serve", "ingest", "seed-demo"], help: "MMDB file with cities (DB-IP IP to City Lite or MaxMind GeoLite2-City) used instead of the embedded country-only database" },
] as const satisfies readonly FlagSpec[];

/** "smtp-max-bytes" → "smtpMaxBytes" */
type CamelCase<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Head}${Capitalize<CamelCase<Tail>>}` : S;
interface KindValue {
  string: string;
  int: number;
  bool: boolean;
  list: string[];
}
type Flag = (typeof FLAGS)[number];
/** One typed member per flag: kebab-case name → camelCase key, kind → value type. */
export type FlagValues = { [F in Flag as CamelCase<F["name"]>]: KindValue[F["kind"]] };

export type Config = Omit<FlagValues, "seedAdmin" | "logLevel"> & {
  seedAdmin: { username: string; password: string } | null;
  logLevel: "debug" | "info" | "warn" | "error";
  /** positional arguments after the command */
  args: string[];
};

function camelCase(name: string): string {
  return name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function convert(spec: FlagSpec, input: string, from: string): unknown {
  switch (spec.kind) {
    case "int": {
      if (!/^-?\d+$/.test(input.trim())) throw new ConfigError(`${from}: "${input}" is not a whole number`);
      return Number.parseInt(input, 10);
    }
    case "bool": {
      const v = input.trim().toLowerCase();
      if (["1", "true", "yes", "on", ""].includes(v)) return true;
      if (["0", "false", "no", "off"].includes(v)) return false;
      throw new ConfigError(`${from}: "${input}" is not true or false`);
    }
    case "list":
      return input.split(",").map((s) => s.trim()).filter(Boolean);
    default:
      return input;
  }
}

/**
 * Parse argv (without the command) and the environment.
 * Unknown flags are refused so a typo never silently falls back to a default.
 */
export function parseConfig(argv: string[], env: Record<string, string | undefined> = process.env, command = "serve"): Config {
  const values: Record<string, unknown> = {};
  const fromCli = new Set<string>();
  const args: string[] = [];
  const byName = new Map<string, FlagSpec>(FLAGS.map((f) => [f.name, f]));

  const see = `see dmarcwarden ${command} --help`;
  const mine = (spec: FlagSpec) => spec.commands.includes("*") || spec.commands.includes(command);

  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!;
    if (token === "--") {
      args.push(...argv.slice(i + 1));
      break;
    }
    if (!token.startsWith("--")) {
      if (token.startsWith("-") && token.length > 1) throw new ConfigError(`unknown flag ${token} (${see}; flags are written --name)`);
      if (!POSITIONAL_COMMANDS.has(command)) throw new ConfigError(`${command} takes no argument "${token}" (${see})`);
      args.push(token);
      continue;
    }
    let name = token.slice(2);
    let inline: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      inline = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let negate = false;
    let spec = byName.get(name);
    if (!spec && name.startsWith("no-") && byName.get(name.slice(3))?.kind === "bool") {
      spec = byName.get(name.slice(3));
      negate = true;
    }
    if (!spec) throw new ConfigError(`unknown flag --${name} (${see})`);
    if (!mine(spec)) throw new ConfigError(`--${name} is not a flag of ${command} (${see})`);
    let value: unknown;
    if (spec.kind === "bool") {
      value = inline === undefined ? !negate : convert(spec, inline, `--${name}`);
    } else {
      const raw = inline ?? argv[++i];
      if (raw === undefined) throw new ConfigError(`--${name} needs a value (${spec.value ?? "VALUE"})`);
      value = convert(spec, raw, `--${name}`);
    }
    if (spec.kind === "list" && fromCli.has(spec.name)) {
      values[spec.name] = [...(values[spec.name] as string[]), ...(value as string[])];
    } else {
      values[spec.name] = value;
    }
    fromCli.add(spec.name);
  }

  for (const spec of FLAGS as readonly FlagSpec[]) {
    if (!fromCli.has(spec.name)) {
      // a command reads only its own variables: PORT means nothing to check
      const envValue = mine(spec) ? env[spec.env] : undefined;
      values[spec.name] = envValue !== undefined && envValue !== "" ? convert(spec, envValue, spec.env) : spec.default;
    }
    const problem = spec.check?.(values[spec.name]);
    if (problem) throw new ConfigError(`--${spec.name} (${spec.env}): ${problem}`);
  }

  let seedAdmin: Config["seedAdmin"] = null;
  const seed = values["seed-admin"] as string;
  if (seed) {
    const i = seed.indexOf(":");
    seedAdmin = { username: seed.slice(0, i), password: seed.slice(i + 1) };
  } else if (command === "serve" && (env.ADMIN_USERNAME || env.ADMIN_PASSWORD)) {
    if (!env.ADMIN_USERNAME || !env.ADMIN_PASSWORD) throw new ConfigError("ADMIN_USERNAME and ADMIN_PASSWORD must be set together");
    const problem = adminPasswordProblem(env.ADMIN_PASSWORD);
    if (problem) throw new ConfigError(`ADMIN_PASSWORD: ${problem}`);
    seedAdmin = { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD };
  }

  const flags = Object.fromEntries(FLAGS.map((f) => [camelCase(f.name), values[f.name]])) as FlagValues;
  return {
    ...flags,
    publicUrl: flags.publicUrl.replace(/\/+$/, ""),
    seedAdmin,
    logLevel: flags.logLevel as Config["logLevel"],
    args,
  };
}

/** A config for tests and library use: defaults plus overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return { ...parseConfig([], {}), db: ":memory:", ...overrides };
}

/** The flags of one command, one a line: the descriptions start in one column, each with its default and variable. */
export function flagHelp(command: string): string {
  const rows = (FLAGS as readonly FlagSpec[]).filter((f) => f.commands.includes("*") || f.commands.includes(command));
  const left = (f: FlagSpec) => `  --${f.name}${f.kind === "bool" ? "" : ` ${f.value ?? "VALUE"}`}`;
  const width = Math.max(0, ...rows.map((f) => left(f).length)) + 2;
  return rows
    .map((f) => {
      const shown = Array.isArray(f.default) ? f.default.join(",") : f.default;
      const def = shown !== undefined && shown !== "" && f.kind !== "bool" && !/default:/.test(f.help) ? ` (default ${shown})` : "";
      return `${left(f).padEnd(width)}${f.help}${def}  [env ${f.env}]`;
    })
    .join("\n");
}
