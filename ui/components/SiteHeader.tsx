import { Shield } from "lucide-react";
import type { ReactNode } from "react";
import { Link } from "react-router";

/** The brand mark linking home, used by every public page's header. */
export function BrandLink({ className = "" }: { className?: string }) {
  return (
    <Link to="/" className={`flex min-w-0 items-center gap-2 text-lg font-bold tracking-tight ${className}`} aria-label="dmarcwarden home">
      <Shield className="h-7 w-7 shrink-0 text-primary" aria-hidden />
      <span>dmarcwarden</span>
    </Link>
  );
}

/**
 * The sticky header of the public pages: brand on the left, the page's actions on the right.
 * Where the actions do not fit beside the brand (phones) they wrap to a second row, so every
 * action keeps its full label (SPEC names them: Sign In, Start Free Trial).
 */
export function SiteHeader({ children }: { children?: ReactNode }) {
  return (
    <header className="sticky top-0 z-30 border-b border-base-300 bg-base-100/90 backdrop-blur">
      <div className="mx-auto flex min-h-16 max-w-7xl flex-wrap items-center justify-between gap-x-2 gap-y-1 px-3 py-2 sm:px-6">
        <BrandLink />
        <nav className="ml-auto flex shrink-0 items-center gap-1 sm:gap-2" aria-label="Site">
          {children}
        </nav>
      </div>
    </header>
  );
}
