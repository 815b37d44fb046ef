import {
  Activity,
  ArrowRight,
  BarChart3,
  Briefcase,
  Building2,
  Check,
  Clock,
  FileText,
  Globe,
  HeartPulse,
  Home,
  MapPin,
  Search,
  ShieldCheck,
  Star,
  Users,
  Wrench,
} from "lucide-react";
import { Link } from "react-router";
import { PLAN_LIST } from "../../../src/lib/plans";
import { Tooltip } from "../../components/TooltipProvider";
import { formatCount } from "../../lib/format";

/** SPEC §2: 7 Day free trial, 20% of the cost vs competitors, 5 minutes setup. */
export const HERO_STATS = [
  { value: "7 Day", label: "free trial" },
  { value: "20%", label: "of the cost vs competitors" },
  { value: "5 minutes", label: "setup" },
];

export function HeroStats() {
  return (
    <dl className="mt-10 grid grid-cols-3 gap-3 sm:gap-4">
      {HERO_STATS.map((s) => (
        <div key={s.label} className="rounded-box border border-base-300 bg-base-100 p-3 text-center shadow-sm sm:p-4">
          <dt className="sr-only">{s.label}</dt>
          <dd className="text-xl font-bold text-primary sm:text-2xl">{s.value}</dd>
          <dd className="mt-1 text-xs leading-tight opacity-70 sm:text-sm">{s.label}</dd>
        </div>
      ))}
    </dl>
  );
}

const PREVIEW_THREATS = [
  { place: "São Paulo, BR", attempts: 312, risk: "High Risk", className: "badge-warning" },
  { place: "Frankfurt, DE", attempts: 87, risk: "Medium", className: "badge-info" },
  { place: "Singapore, SG", attempts: 1024, risk: "Critical", className: "badge-error" },
];

/** The demo-style dashboard preview and threat-location card beside the hero. */
export function DashboardPreview() {
  return (
    <div className="relative grid gap-4" aria-label="Dashboard preview">
      <div className="card border border-base-300 bg-base-100 shadow-xl">
        <div className="card-body gap-4 p-5">
          <div className="flex items-center justify-between">
            <h2 className="flex items-center gap-2 font-semibold">
              <Activity className="h-4 w-4 text-primary" aria-hidden /> Security Dashboard
            </h2>
            <span className="badge badge-success badge-soft badge-sm gap-1">
              <span className="inline-block h-1.5 w-1.5 rounded-full bg-success" aria-hidden /> Live
            </span>
          </div>
          <div className="grid grid-cols-3 gap-2 sm:gap-3">
            <PreviewStat value="2/5" label="Domains Protected" tone="text-success" />
            <PreviewStat value="4" label="Active Threats" tone="text-error" />
            <PreviewStat value={formatCount(1247)} label="Reports Processed" tone="text-primary" />
          </div>
          <div>
            <div className="mb-1 flex justify-between text-xs opacity-70">
              <span>DMARC protection</span>
              <span>40%</span>
            </div>
            <progress className="progress progress-primary w-full" value={40} max={100} aria-label="DMARC protection 40%" />
          </div>
        </div>
      </div>
      <div className="card border border-base-300 bg-base-100 shadow-xl sm:ml-10">
        <div className="card-body gap-3 p-5">
          <h2 className="flex items-center gap-2 font-semibold">
            <MapPin className="h-4 w-4 text-error" aria-hidden /> Threat Locations
          </h2>
          <ul className="grid gap-2">
            {PREVIEW_THREATS.map((t) => (
              <li key={t.place} className="flex items-center justify-between gap-2 rounded-field bg-base-200 px-3 py-2 text-sm">
                <span className="min-w-0 truncate">
                  <Globe className="mr-1.5 inline h-3.5 w-3.5 opacity-60" aria-hidden />
                  {t.place}
                  <span className="ml-2 text-xs opacity-60">{formatCount(t.attempts)} attempts</span>
                </span>
                <span className={`badge badge-sm whitespace-nowrap ${t.className}`}>{t.risk}</span>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </div>
  );
}

function PreviewStat({ value, label, tone }: { value: string; label: string; tone: string }) {
  return (
    <div className="rounded-field bg-base-200 p-2 text-center sm:p-3">
      <p className={`text-lg font-bold sm:text-2xl ${tone}`}>{value}</p>
      <p className="text-[11px] leading-tight opacity-70 sm:text-xs">{label}</p>
    </div>
  );
}

const GUIDES = [
  {
    href: "/onboarding/professional",
    icon: Briefcase,
    title: "Professional Firms",
    text: "Law, accounting and consulting firms: stop invoice fraud and protect client confidentiality.",
    cta: "Professional setup guide",
  },
  {
    href: "/onboarding/healthcare",
    icon: HeartPulse,
    title: "Healthcare Practices",
    text: "Medical and dental practices: protect patient communications and support HIPAA compliance.",
    cta: "Healthcare setup guide",
  },
  {
    href: "/onboarding/realestate",
    icon: Home,
    title: "Real Estate Agencies",
    text: "Agencies and brokerages: stop wire fraud and fake closing instructions sent in your name.",
    cta: "Real estate setup guide",
  },
];

export function IndustryGuides() {
  return (
    <section id="guides" className="bg-base-100 py-16 sm:py-20" aria-labelledby="guides-title">
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <SectionTitle id="guides-title" eyebrow="Guided setup" title="Setup guides for your industry" text="Step-by-step instructions in plain words. No IT department required." />
        <div className="mt-10 grid gap-5 md:grid-cols-3">
          {GUIDES.map(({ href, icon: Icon, title, text, cta }) => (
            <Link key={href} to={href} className="card group border border-base-300 bg-base-100 transition hover:-translate-y-0.5 hover:border-primary hover:shadow-lg">
              <div className="card-body">
                <span className="flex h-12 w-12 items-center justify-center rounded-box bg-primary/10 text-primary">
                  <Icon className="h-6 w-6" aria-hidden />
                </span>
                <h3 className="card-title mt-2">{title}</h3>
                <p className="opacity-70">{text}</p>
                <span className="mt-2 flex items-center gap-1 font-medium text-primary">
                  {cta} <ArrowRight className="h-4 w-4 transition group-hover:translate-x-0.5" aria-hidden />
                </span>
              </div>
            </Link>
          ))}
        </div>
      </div>
    </section>
  );
}

const FEATURES = [
  { icon: Activity, title: "Real-time Dashboard", text: "See every domain's protection status, open issues and report volume at a glance." },
  { icon: FileText, title: "DMARC Reports", text: "Aggregate reports from Google, Microsoft and others, parsed into pass rates and senders." },
  { icon: Globe, title: "Global Threat Map", text: "Find where spoofing attempts come from, ranked by volume and risk level." },
  { icon: Building2, title: "Multi-domain & Multi-organization", text: "Manage many domains and client organizations with role-based access for your team." },
  { icon: Wrench, title: "Guided DNS Setup", text: "Copy-ready SPF, DKIM and DMARC records with instructions for your DNS provider." },
  { icon: Search, title: "Quick DNS Lookup", text: "Check any domain's DMARC, SPF and DKIM records in seconds." },
];

export function FeatureGrid() {
  return (
    <section id="features" className="py-16 sm:py-20" aria-labelledby="features-title">
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <SectionTitle id="features-title" eyebrow="Features" title="Everything you need to stop email spoofing" text="Monitoring, reporting and guided fixes in one place." />
        <div className="mt-10 grid gap-5 sm:grid-cols-2 lg:grid-cols-3">
          {FEATURES.map(({ icon: Icon, title, text }) => (
            <div key={title} className="card border border-base-300 bg-base-100">
              <div className="card-body gap-2">
                <Icon className="h-7 w-7 text-primary" aria-hidden />
                <h3 className="text-lg font-semibold">{title}</h3>
                <p className="text-sm opacity-70">{text}</p>
              </div>
            </div>
          ))}
        </div>
      </div>
    </section>
  );
}

export function Pricing() {
  return (
    <section id="pricing" className="bg-base-100 py-16 sm:py-20" aria-labelledby="pricing-title">
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <SectionTitle
          id="pricing-title"
          eyebrow="Pricing"
          title="Simple pricing at 20% of the cost"
          text="Every plan starts with a 7-day free trial. Your card is not charged today, nothing is charged during the trial, and you can cancel anytime."
        />
        <div className="mt-12 grid items-start gap-6 lg:grid-cols-3">
          {PLAN_LIST.map((plan) => (
            <article
              key={plan.key}
              className={`card relative border bg-base-100 ${plan.mostPopular ? "border-primary shadow-xl ring-2 ring-primary lg:-mt-4" : "border-base-300"}`}
              aria-label={`${plan.name} plan`}
            >
              {plan.mostPopular && (
                <span className="badge badge-primary absolute -top-3 left-1/2 -translate-x-1/2 gap-1 shadow">
                  <Star className="h-3 w-3" aria-hidden /> Most Popular
                </span>
              )}
              <div className="card-body gap-4">
                <div>
                  <h3 className="text-xl font-bold">{plan.name}</h3>
                  <p className="text-sm opacity-70">{plan.tagline}</p>
                </div>
                <p>
                  <span className="text-4xl font-bold">${plan.monthlyPrice}</span>
                  <span className="opacity-70">/month</span>
                </p>
                <ul className="grid gap-2 text-sm">
                  {plan.features.map((f) => (
                    <li key={f} className="flex gap-2">
                      <Check className="mt-0.5 h-4 w-4 shrink-0 text-success" aria-hidden />
                      {f}
                    </li>
                  ))}
                </ul>
                <Link to={`/trial?plan=${plan.key}`} className={`btn mt-2 ${plan.mostPopular ? "btn-primary" : "btn-outline btn-primary"}`}>
                  Start Free Trial
                </Link>
              </div>
            </article>
          ))}
        </div>
      </div>
    </section>
  );
}

/** SPEC §1 marketing claims. */
const TRUST = [
  { icon: Users, value: "30+ years", label: "of combined email security experience" },
  { icon: ShieldCheck, value: "SOC 2 Type II", label: "ready", tip: "Controls designed to meet SOC 2 Type II requirements" },
  { icon: BarChart3, value: "99.9% uptime", label: "SLA for enterprise plans", tip: "Service level agreement on the Scale / Enterprise plan" },
  { icon: Clock, value: "5 minutes", label: "from sign-up to first check" },
];

export function TrustStats() {
  return (
    <section className="bg-neutral py-14 text-neutral-content" aria-labelledby="trust-title">
      <div className="mx-auto max-w-7xl px-4 sm:px-6">
        <h2 id="trust-title" className="text-center text-2xl font-bold sm:text-3xl">
          Trusted protection for businesses that can't afford a spoofed email
        </h2>
        <dl className="mt-10 grid grid-cols-2 gap-6 lg:grid-cols-4">
          {TRUST.map(({ icon: Icon, value, label, tip }) => {
            const body = (
              <div key={value} className="flex flex-col items-center gap-2 text-center" tabIndex={tip ? 0 : undefined}>
                <dt className="flex flex-col items-center gap-2 text-2xl font-bold sm:text-3xl">
                  <Icon className="h-7 w-7 opacity-80" aria-hidden />
                  {value}
                </dt>
                <dd className="text-sm opacity-75">{label}</dd>
              </div>
            );
            return tip ? (
              <Tooltip key={value} content={tip}>
                {body}
              </Tooltip>
            ) : (
              body
            );
          })}
        </dl>
      </div>
    </section>
  );
}

export function SectionTitle({ id, eyebrow, title, text }: { id: string; eyebrow: string; title: string; text?: string }) {
  return (
    <div className="mx-auto max-w-2xl text-center">
      <p className="text-sm font-semibold uppercase tracking-wide text-primary">{eyebrow}</p>
      <h2 id={id} className="mt-2 text-3xl font-bold tracking-tight sm:text-4xl">
        {title}
      </h2>
      {text && <p className="mt-3 text-lg opacity-70">{text}</p>}
    </div>
  );
}
