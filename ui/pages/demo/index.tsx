import { ArrowLeft, FileText, Globe, LayoutDashboard, ListChecks, Search, Settings, ShieldAlert } from "lucide-react";
import { useEffect, useMemo, useRef, useState, type ComponentType, type KeyboardEvent } from "react";
import { Link, useLocation } from "react-router";
import { DnsLookupTool } from "../../components/DnsLookupTool";
import { BrandLink } from "../../components/SiteHeader";
import { usesSidebar } from "../../lib/layout";
import { ThreatList } from "../../components/ThreatList";
import { DomainStatusTable } from "../../components/DomainStatusTable";
import { Panel } from "../../components/Panel";
import { DASHBOARD_LIST_LIMIT } from "../../lib/constants";
import { ReportTable, StatCards, TaskList } from "./panels";
import { demoData, type DemoData } from "./sample-data";
import { SettingsPanel } from "./SettingsPanel";

/** SPEC §9: switching demo tabs fades for 200 ms. */
export const DEMO_FADE_MS = 200;

export type DemoTab = "dashboard" | "domains" | "reports" | "tasks" | "threats" | "dns" | "settings";

export const DEMO_TABS: { key: DemoTab; label: string; title: string; icon: ComponentType<{ className?: string }> }[] = [
  { key: "dashboard", label: "Dashboard", title: "Security Dashboard", icon: LayoutDashboard },
  { key: "domains", label: "Domains", title: "Domain Management", icon: Globe },
  { key: "reports", label: "Reports", title: "DMARC Reports", icon: FileText },
  { key: "tasks", label: "Tasks", title: "Tasks & Issues", icon: ListChecks },
  { key: "threats", label: "Threats", title: "Threat Map", icon: ShieldAlert },
  { key: "dns", label: "DNS Lookup", title: "DNS Lookup", icon: Search },
  { key: "settings", label: "Settings", title: "Settings", icon: Settings },
];

const SUBTITLES: Record<DemoTab, string> = {
  dashboard: "Email authentication at a glance for Summit Legal Group (sample data).",
  domains: "Every domain with its DMARC policy, SPF and DKIM status.",
  reports: "Aggregate reports received from mailbox providers.",
  tasks: "What to fix next, most urgent first.",
  threats: "Sources sending mail in your name without authorization.",
  dns: "Check any domain's DMARC, SPF and DKIM records.",
  settings: "Organization, reporting and monitoring preferences.",
};

/** The public demo (/demo, and /app): static sample data behind the app's tabs. */
export default function DemoPage() {
  // At /app the app's own sidebar already frames the screen: drop the brand and lay the tabs out in a row.
  const embedded = usesSidebar(useLocation().pathname);
  const now = useMemo(() => new Date(), []);
  const data = useMemo(() => demoData(now), [now]);
  const [selected, setSelected] = useState<DemoTab>("dashboard");
  const [shown, setShown] = useState<DemoTab>("dashboard");
  const [fading, setFading] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const tabRefs = useRef<Partial<Record<DemoTab, HTMLButtonElement | null>>>({});

  useEffect(() => () => clearTimeout(timer.current), []);

  const select = (tab: DemoTab) => {
    if (tab === selected) return;
    setSelected(tab);
    setFading(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      setShown(tab);
      setFading(false);
    }, DEMO_FADE_MS);
  };

  const onKeyDown = (e: KeyboardEvent) => {
    const keys = DEMO_TABS.map((t) => t.key);
    const i = keys.indexOf(selected);
    const step = e.key === "ArrowDown" || e.key === "ArrowRight" ? 1 : e.key === "ArrowUp" || e.key === "ArrowLeft" ? -1 : 0;
    if (!step) return;
    e.preventDefault();
    const next = keys[(i + step + keys.length) % keys.length]!;
    select(next);
    tabRefs.current[next]?.focus();
  };

  const current = DEMO_TABS.find((t) => t.key === shown)!;
  // at /app the app's own <main> holds the demo: one main landmark per page
  const Main = embedded ? "div" : "main";
  const Aside = embedded ? "div" : "aside";

  return (
    <div className={`flex flex-col bg-base-200 ${embedded ? "overflow-hidden rounded-box border border-base-300" : "min-h-screen"}`}>
      <header className={`z-30 border-b border-base-300 bg-base-100 ${embedded ? "" : "sticky top-0"}`}>
        {/* SPEC §2: both links keep their full texts on phones; the row wraps instead. */}
        <div className="flex min-h-16 flex-wrap items-center justify-between gap-2 px-4 py-2 sm:flex-nowrap sm:px-6 sm:py-0">
          <div className="flex min-w-0 items-center gap-3">
            {embedded ? <span className="font-semibold">Live Demo</span> : <BrandLink />}
            <span className={`badge badge-warning badge-sm ${embedded ? "" : "hidden sm:inline-flex"}`}>Demo</span>
          </div>
          <nav className="flex flex-wrap items-center gap-1 sm:gap-2" aria-label="Demo">
            <Link to="/" className="btn btn-ghost btn-sm whitespace-nowrap px-2 sm:px-3">
              <ArrowLeft className="h-4 w-4" aria-hidden />
              Back to Main Site
            </Link>
            <Link to="/trial" className="btn btn-primary btn-sm whitespace-nowrap px-2 sm:px-3">
              Start 7 Day Free Trial
            </Link>
          </nav>
        </div>
      </header>

      <div className={`flex flex-1 flex-col ${embedded ? "" : "lg:flex-row"}`}>
        <Aside className={`border-b border-base-300 bg-base-100 ${embedded ? "" : "lg:w-60 lg:shrink-0 lg:border-b-0 lg:border-r"}`}>
          <div
            role="tablist"
            aria-label="Demo sections"
            aria-orientation={embedded ? "horizontal" : "vertical"}
            onKeyDown={onKeyDown}
            className={`flex gap-1 overflow-x-auto p-2 ${embedded ? "" : "lg:sticky lg:top-16 lg:flex-col lg:p-3"}`}
          >
            {DEMO_TABS.map(({ key, label, icon: Icon }) => {
              const active = key === selected;
              return (
                <button
                  key={key}
                  ref={(el) => void (tabRefs.current[key] = el)}
                  type="button"
                  role="tab"
                  id={`demo-tab-${key}`}
                  aria-selected={active}
                  aria-controls="demo-panel"
                  tabIndex={active ? 0 : -1}
                  onClick={() => select(key)}
                  className={`btn btn-sm shrink-0 justify-start gap-2 ${embedded ? "" : "lg:btn-md"} ${active ? "btn-primary" : "btn-ghost font-normal"}`}
                >
                  <Icon className="h-4 w-4" aria-hidden />
                  {label}
                </button>
              );
            })}
          </div>
        </Aside>

        <Main className="min-w-0 flex-1 p-4 sm:p-6 lg:p-8">
          <div className="alert alert-info alert-soft mb-5 text-sm" role="note">
            <span>
              You're exploring a live demo with sample data. <Link to="/trial" className="link font-medium">Start a free trial</Link> to monitor your own domains.
            </span>
          </div>
          <div
            id="demo-panel"
            role="tabpanel"
            aria-labelledby={`demo-tab-${shown}`}
            data-fading={fading || undefined}
            className={`transition-opacity ease-in-out motion-reduce:transition-none ${fading ? "opacity-0" : "opacity-100"}`}
            style={{ transitionDuration: `${DEMO_FADE_MS}ms` }}
          >
            <div className="mb-6">
              <h1 className="text-2xl font-bold sm:text-3xl">{current.title}</h1>
              <p className="mt-1 opacity-70">{SUBTITLES[shown]}</p>
            </div>
            <DemoPanel tab={shown} data={data} now={now} />
          </div>
        </Main>
      </div>
    </div>
  );
}

function DemoPanel({ tab, data, now }: { tab: DemoTab; data: DemoData; now: Date }) {
  switch (tab) {
    case "dashboard":
      return (
        <div className="grid grid-cols-1 gap-5">
          <StatCards stats={data.stats} />
          <Panel title="Domain Status">
            <DomainStatusTable domains={data.domains} now={now} />
          </Panel>
          <div className="grid grid-cols-1 gap-5 xl:grid-cols-2">
            <Panel title="Recent Tasks">
              <TaskList tasks={data.tasks} now={now} limit={DASHBOARD_LIST_LIMIT} />
            </Panel>
            <ThreatList threats={data.threats} now={now} />
          </div>
          <Panel title="Recent Reports">
            <ReportTable reports={data.reports} now={now} limit={DASHBOARD_LIST_LIMIT} />
          </Panel>
        </div>
      );
    case "domains":
      return (
        <Panel title="All Domains" action={<span className="badge badge-ghost">{data.domains.length} domains</span>}>
          <DomainStatusTable domains={data.domains} now={now} />
        </Panel>
      );
    case "reports":
      return (
        <Panel title="Recent DMARC Reports">
          <ReportTable reports={data.reports} now={now} />
          <p className="text-xs opacity-60">Pass rate: green at 95% or above, orange at 80% or above, red below 80%.</p>
        </Panel>
      );
    case "tasks":
      return (
        <Panel title="Open Tasks" action={<span className="badge badge-ghost">{data.tasks.length} open</span>}>
          <TaskList tasks={data.tasks} now={now} />
        </Panel>
      );
    case "threats":
      return <ThreatList threats={data.threats} title="IP Threats" now={now} />;
    case "dns":
      return (
        <Panel title="Quick DNS Lookup">
          <DnsLookupTool />
        </Panel>
      );
    case "settings":
      return <SettingsPanel data={data} />;
  }
}
