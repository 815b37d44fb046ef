import { BarChart3, FileText, Globe, LayoutDashboard, ListChecks, LogIn, LogOut, Search, Settings, ShieldAlert, X } from "lucide-react";
import type { ComponentType } from "react";
import { Link, useLocation } from "react-router";
import { isActive, NAV_ITEMS } from "../lib/layout";
import { BrandMark, useBranding } from "./BrandMark";
import { ThemeSwitch } from "./ThemeSwitch";

const ICONS: Record<string, ComponentType<{ className?: string }>> = {
  Dashboard: LayoutDashboard,
  Domains: Globe,
  "DMARC Reports": FileText,
  "Tasks & Issues": ListChecks,
  "Threat Map": ShieldAlert,
  "DNS Lookup": Search,
  Settings: Settings,
};

export interface SidebarUser {
  name: string;
  role: string;
  onLogout?: () => void;
}

/**
 * The app sidebar of SPEC §2. Its footer shows the signed-in user with their role and a
 * logout icon; signed out (the public /app demo) it shows SPEC's fixed label and a sign-in link.
 */
export function Sidebar({ user, header, onNavigate }: { user?: SidebarUser; header?: React.ReactNode; onNavigate?: () => void }) {
  const { pathname } = useLocation();
  const label = user ?? { name: "Security Team", role: "Security Admin" };
  // white-label: the organisation's (or its MSP's) name, logo and colour; SPEC's mark otherwise
  const brand = useBranding(!!user);
  return (
    <aside className="flex h-full w-64 flex-col border-r border-base-300 bg-base-100" aria-label="Sidebar">
      <div className="flex items-center gap-2 px-5 py-5">
        <BrandMark brand={brand} />
        {onNavigate && (
          <button type="button" className="btn btn-ghost btn-sm btn-square ml-auto lg:hidden" onClick={onNavigate} data-drawer-close>
            <X className="h-4 w-4" aria-hidden />
            <span className="sr-only">Close navigation</span>
          </button>
        )}
      </div>
      {header}
      <nav className="flex-1 px-3 py-2" aria-label="Main">
        <ul className="menu w-full gap-1 p-0">
          {NAV_ITEMS.map((item) => {
            const Icon = ICONS[item.label] ?? BarChart3;
            const active = isActive(item, pathname);
            return (
              <li key={item.href}>
                <Link to={item.href} onClick={onNavigate} className={active ? "menu-active font-medium" : ""} aria-current={active ? "page" : undefined}>
                  <Icon className="h-4 w-4" aria-hidden />
                  {item.label}
                </Link>
              </li>
            );
          })}
        </ul>
      </nav>
      <ThemeSwitch className="border-t border-base-300 px-4 py-3" />
      <div className="flex items-center gap-3 border-t border-base-300 px-4 py-4" data-testid="sidebar-user">
        <div className="avatar avatar-placeholder">
          <div className="w-9 rounded-full bg-primary text-primary-content">
            <span className="text-sm">{label.name.slice(0, 1).toUpperCase()}</span>
          </div>
        </div>
        <div className="min-w-0 flex-1">
          <p className="truncate text-sm font-medium">{label.name}</p>
          <p className="truncate text-xs opacity-60">{label.role}</p>
        </div>
        {user ? (
          <button type="button" className="btn btn-ghost btn-sm btn-square" aria-label="Log out" title="Log out" onClick={user.onLogout}>
            <LogOut className="h-4 w-4" />
          </button>
        ) : (
          <Link to="/login" className="btn btn-ghost btn-sm btn-square" aria-label="Sign in" title="Sign in" onClick={onNavigate}>
            <LogIn className="h-4 w-4" />
          </Link>
        )}
      </div>
    </aside>
  );
}
