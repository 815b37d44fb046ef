import type { ReactNode } from "react";
import { Link, useSearchParams } from "react-router";
import { BrandMark, usePublicBranding } from "../../components/BrandMark";

/** The frame of the sign-in screens (outside the sidebar): logo, title, card, footer line. */
export function AuthCard({ title, subtitle, children, footer }: { title: string; subtitle?: ReactNode; children: ReactNode; footer?: ReactNode }) {
  // reached through an MSP's link (/login?brand=<slug>): its name, logo and colour
  const [params] = useSearchParams();
  const brand = usePublicBranding(params.get("brand"));
  return (
    <main className="flex min-h-screen flex-col items-center justify-center bg-base-200 px-4 py-10">
      <Link to="/" className="mb-6 flex items-center gap-2">
        <BrandMark brand={brand} size="auth" />
      </Link>
      <div className="card w-full max-w-md border border-base-300 bg-base-100 shadow-sm">
        <div className="card-body gap-4 p-6 sm:p-8">
          <div>
            <h1 className="text-2xl font-bold">{title}</h1>
            {subtitle && <p className="mt-1 text-sm opacity-70">{subtitle}</p>}
          </div>
          {children}
        </div>
      </div>
      {footer && <div className="mt-4 text-sm">{footer}</div>}
    </main>
  );
}

export function Field({ label, error, children, hint }: { label: string; error?: string; children: ReactNode; hint?: string }) {
  return (
    <label className="block w-full">
      <span className="mb-1 block text-sm font-medium">{label}</span>
      {children}
      {error ? <span className="mt-1 block text-sm text-error">{error}</span> : hint ? <span className="mt-1 block text-xs opacity-60">{hint}</span> : null}
    </label>
  );
}
