import { Menu, Shield } from "lucide-react";
import { useState, type ReactNode } from "react";
import { Sidebar, type SidebarUser } from "./Sidebar";

/** The signed-in shell: sidebar on large screens, a drawer on phones. */
export function AppLayout({ children, user, sidebarHeader }: { children: ReactNode; user?: SidebarUser; sidebarHeader?: ReactNode }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="drawer lg:drawer-open min-h-screen bg-base-200">
      <input id="app-drawer" type="checkbox" className="drawer-toggle" checked={open} onChange={(e) => setOpen(e.target.checked)} aria-label="Open navigation" />
      <div className="drawer-content flex min-h-screen flex-col">
        <header className="navbar border-b border-base-300 bg-base-100 lg:hidden">
          <label htmlFor="app-drawer" className="btn btn-ghost btn-square" aria-label="Open navigation">
            <Menu className="h-5 w-5" />
          </label>
          <Shield className="ml-1 h-6 w-6 text-primary" aria-hidden />
          <span className="ml-2 font-bold">dmarcwarden</span>
        </header>
        <main className="flex-1 p-4 sm:p-6 lg:p-8">{children}</main>
      </div>
      <div className="drawer-side z-40">
        <label htmlFor="app-drawer" aria-label="Close navigation" className="drawer-overlay" />
        <Sidebar user={user} header={sidebarHeader} onNavigate={() => setOpen(false)} />
      </div>
    </div>
  );
}
