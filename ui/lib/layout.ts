/**
 * SPEC §2 layout rule: the app sidebar wraps every screen except /, /trial, /demo, /contact,
 * paths starting /onboarding/ and /admin/, and the sign-in screens.
 */
const BARE = new Set(["/", "/trial", "/demo", "/contact", "/login", "/signup", "/invite", "/set-password", "/verify-email"]);

export function usesSidebar(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  if (BARE.has(path)) return false;
  return !path.startsWith("/onboarding/") && !path.startsWith("/admin/");
}

export interface NavItem {
  label: string;
  href: string;
  /** other paths that highlight this entry */
  also?: string[];
}

export const NAV_ITEMS: NavItem[] = [
  { label: "Dashboard", href: "/app", also: ["/app/dashboard"] },
  { label: "Domains", href: "/app/domains" },
  { label: "DMARC Reports", href: "/app/reports" },
  { label: "Tasks & Issues", href: "/app/tasks" },
  { label: "Threat Map", href: "/app/threats" },
  { label: "DNS Lookup", href: "/app/dns" },
  { label: "Settings", href: "/app/settings" },
];

export function isActive(item: NavItem, pathname: string): boolean {
  return pathname === item.href || (item.also ?? []).includes(pathname);
}

/** The /app/* screens of SPEC §2 other than /app itself (the public demo): they need a signed-in user. */
const SIGNED_IN_SCREENS = new Set(["/app/dashboard", "/app/domains", "/app/reports", "/app/tasks", "/app/threats", "/app/dns", "/app/settings"]);

/** Screens below SPEC's, one per item: /app/senders/<sender key>, /app/domains/<domain id>. */
const SIGNED_IN_PREFIXES = ["/app/senders/", "/app/domains/"];

/** Any other /app/… path is SPEC's "any other path": the 404 screen, signed in or not. */
export function requiresSignIn(pathname: string): boolean {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  return SIGNED_IN_SCREENS.has(path) || SIGNED_IN_PREFIXES.some((prefix) => path.startsWith(prefix) && path.length > prefix.length);
}
