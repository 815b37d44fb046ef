import { useEffect } from "react";
import { matchPath, useLocation } from "react-router";

/** The product's name, last in every title. */
export const SITE_NAME = "dmarcwarden";
/** The landing page's title (also in index.html, for the first paint). */
export const HOME_TITLE = "dmarcwarden — DMARC, SPF & DKIM monitoring";

/** Each route's title (SPEC §2's screen names where it gives them). First match wins. */
export const ROUTE_TITLES: [pattern: string, title: string][] = [
  ["/demo", "Live Demo"],
  ["/trial", "Start Your Free Trial"],
  ["/contact", "Contact Us"],
  ["/onboarding/professional", "Setup Guide for Professional Firms"],
  ["/onboarding/healthcare", "Setup Guide for Healthcare Practices"],
  ["/onboarding/realestate", "Setup Guide for Real Estate Agencies"],
  ["/admin/dashboard", "Master Administrator Console"],
  ["/app", "Live Demo"],
  ["/app/dashboard", "Dashboard"],
  ["/app/domains", "Domain Management"],
  ["/app/domains/:id", "Domain"],
  ["/app/reports", "DMARC Reports"],
  ["/app/tasks", "Tasks & Issues"],
  ["/app/threats", "Threat Map"],
  ["/app/senders/:key", "Sender"],
  ["/app/dns", "DNS Lookup"],
  ["/app/portfolio", "Portfolio"],
  ["/app/settings", "Settings"],
  ["/app/two-factor", "Two-factor sign-in"],
  ["/login", "Sign in"],
  ["/signup", "Create your account"],
  ["/invite", "Accept invitation"],
  ["/set-password", "Set a password"],
  ["/verify-email", "Confirm your email address"],
];

export const NOT_FOUND_TITLE = "404 Page Not Found";

/** The title of a path: "<screen> · dmarcwarden", the landing page's own, or the 404 screen's. */
export function titleFor(pathname: string): string {
  if (pathname === "/") return HOME_TITLE;
  const found = ROUTE_TITLES.find(([pattern]) => matchPath(pattern, pathname));
  return `${found ? found[1] : NOT_FOUND_TITLE} · ${SITE_NAME}`;
}

// A page may name itself more precisely (a domain's name): that wins over its route's title while it is shown.
let routeTitle = HOME_TITLE;
let pageTitle: string | null = null;
const show = () => void (document.title = pageTitle ?? routeTitle);

/** Keeps document.title on the current route's title. Mount once inside the router. */
export function RouteTitle(): null {
  const { pathname } = useLocation();
  useEffect(() => {
    routeTitle = titleFor(pathname);
    show();
  }, [pathname]);
  return null;
}

/** A page's own title ("example.com · Domain"), while it is mounted; nothing while `title` is empty. */
export function useDocumentTitle(title: string | null | undefined): void {
  useEffect(() => {
    if (!title) return;
    pageTitle = `${title} · ${SITE_NAME}`;
    show();
    return () => {
      pageTitle = null;
      show();
    };
  }, [title]);
}
