import { ArrowRight, Lock, PlayCircle, Shield } from "lucide-react";
import { lazy, Suspense, useState } from "react";
import { Link } from "react-router";
import type { RequestType } from "../../../src/features/contact/contract";
import { SiteHeader } from "../../components/SiteHeader";
import { ThemeSwitch } from "../../components/ThemeSwitch";
import { DashboardPreview, FeatureGrid, HeroStats, IndustryGuides, Pricing, TrustStats } from "./sections";

// The dialogs (their forms, validation and Radix dialog) load when first opened: the landing page stays light.
const AdminLoginDialog = lazy(() => import("../../components/AdminLoginDialog").then((m) => ({ default: m.AdminLoginDialog })));
const ContactDialog = lazy(() => import("../../components/ContactDialog").then((m) => ({ default: m.ContactDialog })));

/** The landing page of SPEC §2. */
export default function LandingPage() {
  const [loginOpen, setLoginOpen] = useState(false);
  const [contact, setContact] = useState<RequestType | null>(null);
  // once opened, a dialog stays mounted so it closes with its own animation
  const [loginUsed, setLoginUsed] = useState(false);
  if (loginOpen && !loginUsed) setLoginUsed(true);

  return (
    <div className="min-h-screen bg-base-200">
      <SiteHeader>
        <a href="#features" className="btn btn-ghost btn-sm hidden md:inline-flex">
          Features
        </a>
        <a href="#pricing" className="btn btn-ghost btn-sm hidden md:inline-flex">
          Pricing
        </a>
        <Link to="/demo" className="btn btn-ghost btn-sm hidden md:inline-flex">
          Demo
        </Link>
        {/* whose door is whose: customers log in here, the Master Administrator signs in beside it */}
        <Link to="/login" className="btn btn-outline btn-sm whitespace-nowrap" data-customer-login>
          <span className="sm:hidden">Log in</span>
          <span className="hidden sm:inline">Customer log in</span>
        </Link>
        <button type="button" className="btn btn-ghost btn-sm gap-1 whitespace-nowrap opacity-80" onClick={() => setLoginOpen(true)} title="Master Administrator sign-in" aria-describedby="admin-sign-in-hint">
          <Lock className="h-3.5 w-3.5" aria-hidden /> Sign In
        </button>
        <span id="admin-sign-in-hint" className="sr-only">
          for the Master Administrator; customers use Log in
        </span>
        <Link to="/trial" className="btn btn-primary btn-sm whitespace-nowrap">
          Start Free Trial
        </Link>
      </SiteHeader>

      <main>
        <section className="overflow-hidden bg-gradient-to-b from-base-100 to-base-200">
          <div className="mx-auto grid max-w-7xl grid-cols-1 items-center gap-12 px-4 py-14 sm:px-6 sm:py-20 lg:grid-cols-2">
            <div>
              <p className="badge badge-primary badge-soft gap-1">
                <Shield className="h-3.5 w-3.5" aria-hidden /> DMARC · SPF · DKIM monitoring
              </p>
              <h1 className="mt-4 text-4xl font-extrabold leading-tight tracking-tight sm:text-5xl">
                Stop email spoofing <span className="text-primary">before it costs you clients</span>
              </h1>
              <p className="mt-5 text-lg opacity-75">
                Criminals send email in your name to steal payments and patient or client data. dmarcwarden shows who sends mail as your domain, blocks the
                impostors and tells you in plain words what to fix next.
              </p>
              <div className="mt-8 flex flex-col gap-3 sm:flex-row">
                <Link to="/trial" className="btn btn-primary btn-lg">
                  Start 7-Day Free Trial <ArrowRight className="h-5 w-5" aria-hidden />
                </Link>
                <Link to="/demo" className="btn btn-outline btn-lg">
                  <PlayCircle className="h-5 w-5" aria-hidden /> Live Demo
                </Link>
              </div>
              <p className="mt-3 text-sm opacity-60">No charge during the trial · Cancel anytime</p>
              <HeroStats />
            </div>
            <DashboardPreview />
          </div>
        </section>

        <IndustryGuides />
        <FeatureGrid />
        <Pricing />
        <TrustStats />

        <section className="py-16 sm:py-20" aria-labelledby="cta-title">
          <div className="mx-auto max-w-4xl px-4 sm:px-6">
            <div className="rounded-box bg-primary px-6 py-12 text-center text-primary-content shadow-xl sm:px-12">
              <h2 id="cta-title" className="text-3xl font-bold sm:text-4xl">
                Protect your domain in 5 minutes
              </h2>
              <p className="mx-auto mt-3 max-w-xl opacity-90">
                Start your 7-day free trial today. Set up in minutes, see your first report within a day, and cancel anytime.
              </p>
              <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row">
                <Link to="/trial" className="btn btn-lg border-0 bg-base-100 text-primary hover:bg-base-200">
                  Start Free Trial
                </Link>
                <button type="button" className="btn btn-lg btn-outline border-primary-content text-primary-content hover:bg-primary-content/10" onClick={() => setContact("sales")}>
                  Talk to Sales
                </button>
              </div>
            </div>
          </div>
        </section>
      </main>

      <footer className="border-t border-base-300 bg-base-100">
        <div className="mx-auto grid max-w-7xl gap-8 px-4 py-12 sm:grid-cols-2 sm:px-6 lg:grid-cols-4">
          <div className="lg:col-span-2">
            <p className="flex items-center gap-2 text-lg font-bold">
              <Shield className="h-6 w-6 text-primary" aria-hidden /> dmarcwarden
            </p>
            <p className="mt-2 max-w-sm text-sm opacity-70">DMARC, SPF and DKIM monitoring for small businesses, IT teams and managed service providers.</p>
          </div>
          <nav aria-label="Help">
            <h2 className="mb-3 text-sm font-semibold uppercase tracking-wide opacity-60">Help</h2>
            <ul className="grid gap-2 text-sm">
              <li>
                <button type="button" className="link link-hover" onClick={() => setContact("support")}>
                  Support
                </button>
              </li>
              <li>
                <Link to="/contact" className="link link-hover">
                  Contact Us
                </Link>
              </li>
              <li>
                <Link to="/demo" className="link link-hover">
                  Live Demo
                </Link>
              </li>
            </ul>
          </nav>
          <div>
            <h2 className="mb-3 text-sm font-semibold uppercase tracking-wide opacity-60">Legal</h2>
            <ul className="grid gap-2 text-sm opacity-70">
              <li>Privacy Policy</li>
              <li>Terms of Service</li>
              <li>Security</li>
            </ul>
          </div>
        </div>
        <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-3 border-t border-base-300 px-4 py-5 sm:px-6">
          <p className="text-xs opacity-70">© {new Date().getFullYear()} dmarcwarden. All rights reserved.</p>
          <ThemeSwitch />
        </div>
      </footer>

      <Suspense fallback={null}>
        {loginUsed && <AdminLoginDialog open={loginOpen} onOpenChange={setLoginOpen} />}
        {contact !== null && <ContactDialog key={contact} open onOpenChange={(open) => !open && setContact(null)} requestType={contact} />}
      </Suspense>
    </div>
  );
}
