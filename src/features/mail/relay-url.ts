/**
 * Checks of the outgoing-mail flags with no imports (src/config.ts uses them in FLAGS).
 * Messages never echo the value: a relay URL may hold a password.
 */
export const DEFAULT_PORTS = { "smtp:": 587, "smtps:": 465 } as const;

/** Why a relay URL is refused (never echoing it: it may hold a password), or undefined when it is fine. */
export function relayUrlProblem(value: string): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return "is not a URL; use smtp://user:pass@smtp.example.com:587 or smtps://user:pass@smtp.example.com:465";
  }
  if (url.protocol !== "smtp:" && url.protocol !== "smtps:") return "must start with smtp:// (STARTTLS) or smtps:// (TLS)";
  if (!url.hostname) return "has no host name";
  if (url.pathname && url.pathname !== "/") return "must not have a path (only smtp://[user:pass@]host[:port])";
  if (url.password && !url.username) return "has a password but no user name";
  return undefined;
}

/** "alerts@example.com" or "dmarcwarden <alerts@example.com>" */
export function mailFromProblem(value: string): string | undefined {
  if (!value) return undefined;
  const address = value.match(/<([^<>]+)>\s*$/)?.[1] ?? value;
  return /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(address.trim()) ? undefined : 'must be an address such as alerts@example.com or "dmarcwarden <alerts@example.com>"';
}
