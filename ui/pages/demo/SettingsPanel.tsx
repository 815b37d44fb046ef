import { CreditCard, RotateCcw, Save, Users } from "lucide-react";
import { useId, useState } from "react";
import { formatCount } from "../../lib/format";
import { toast } from "../../lib/toast";
import { Panel } from "../../components/Panel";
import type { DemoData, DemoSettings } from "./sample-data";

/** The demo's Settings tab: SPEC §2 settings fields (static, no calls) and the Business Plan sample. */
export function SettingsPanel({ data }: { data: DemoData }) {
  const [settings, setSettings] = useState<DemoSettings>(data.settings);
  const uid = useId();
  const id = (name: string) => `${uid}-${name}`;
  const set = <K extends keyof DemoSettings>(key: K, value: DemoSettings[K]) => setSettings((s) => ({ ...s, [key]: value }));

  const text = (key: "organizationName" | "contactEmail" | "ruaAddress" | "rufAddress" | "cacheTtl", label: string, extra: Record<string, string> = {}) => (
    <div className="grid gap-1.5">
      <label htmlFor={id(key)} className="text-sm font-medium">
        {label}
      </label>
      <input id={id(key)} className="input w-full" value={settings[key]} onChange={(e) => set(key, e.target.value)} {...extra} />
    </div>
  );
  const toggle = (key: "emailNotifications" | "autoProcessReports" | "dnsCaching" | "threatMonitoring" | "complianceAlerts", label: string, hint: string) => (
    <div className="flex items-start justify-between gap-4 py-2">
      <div>
        <label htmlFor={id(key)} className="font-medium">
          {label}
        </label>
        <p className="text-sm opacity-60">{hint}</p>
      </div>
      <input id={id(key)} type="checkbox" className="toggle toggle-primary mt-1" checked={settings[key]} onChange={(e) => set(key, e.target.checked)} />
    </div>
  );

  const { plan, members } = data;
  return (
    <form
      className="grid grid-cols-1 gap-5 xl:grid-cols-[1.5fr_1fr]"
      onSubmit={(e) => {
        e.preventDefault();
        toast({ title: "Demo mode", description: "Settings are not saved in the demo. Start a free trial to configure your own domains." });
      }}
    >
      <div className="grid min-w-0 grid-cols-1 gap-5">
        <Panel title="Organization">
          <div className="grid gap-4 sm:grid-cols-2">
            {text("organizationName", "Organization Name")}
            {text("contactEmail", "Contact Email", { type: "email" })}
          </div>
          {toggle("emailNotifications", "Email Notifications", "Send alerts about new issues and threats by email.")}
        </Panel>
        <Panel title="DMARC Reporting">
          <div className="grid gap-4 sm:grid-cols-2">
            {text("ruaAddress", "DMARC Aggregate Reports (rua)")}
            {text("rufAddress", "DMARC Forensic Reports (ruf)")}
          </div>
          {toggle("autoProcessReports", "Auto-process Reports", "Parse incoming DMARC reports as soon as they arrive.")}
        </Panel>
        <Panel title="DNS & Monitoring">
          {toggle("dnsCaching", "DNS Caching", "Cache DNS answers to speed up repeated checks.")}
          <div className="max-w-xs">{text("cacheTtl", "Cache TTL (seconds)", { type: "number", placeholder: "3600", min: "60" })}</div>
          {toggle("threatMonitoring", "Real-time Threat Monitoring", "Watch for spoofing attempts as reports come in.")}
          {toggle("complianceAlerts", "Compliance Alerts", "Warn when a domain falls out of policy.")}
        </Panel>
        <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
          <button type="button" className="btn btn-ghost" onClick={() => setSettings(data.settings)}>
            <RotateCcw className="h-4 w-4" aria-hidden /> Reset to Defaults
          </button>
          <button type="submit" className="btn btn-primary">
            <Save className="h-4 w-4" aria-hidden /> Save Settings
          </button>
        </div>
      </div>
      <div className="grid content-start gap-5">
        <Panel title="Subscription" action={<CreditCard className="h-4 w-4 opacity-60" aria-hidden />}>
          <div className="rounded-field bg-primary/10 p-4">
            <p className="font-semibold text-primary">{plan.name}</p>
            <p className="text-2xl font-bold">{plan.priceLabel}</p>
          </div>
          <ul className="grid gap-1 text-sm">
            <li>{plan.limits.domains} domains</li>
            <li>{plan.limits.users} users</li>
            <li>{formatCount(plan.limits.reportsPerMonth)} reports a month</li>
          </ul>
        </Panel>
        <Panel title="Team Members" action={<Users className="h-4 w-4 opacity-60" aria-hidden />}>
          <ul className="grid gap-3">
            {members.map((m) => (
              <li key={m.email} className="flex items-center justify-between gap-2">
                <div className="min-w-0">
                  <p className="truncate font-medium">{m.name}</p>
                  <p className="truncate text-xs opacity-60">{m.email}</p>
                </div>
                <span className={`badge badge-sm ${m.role === "Admin" ? "badge-primary" : "badge-ghost"}`}>{m.role}</span>
              </li>
            ))}
          </ul>
        </Panel>
      </div>
    </form>
  );
}
