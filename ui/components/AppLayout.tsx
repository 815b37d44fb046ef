import { Menu, Shield } from "lucide-react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { Navigate, useLocation, useNavigate } from "react-router";
import { isSignedIn, ROLE_LABELS, useMe, useSignOut } from "../lib/auth";
import { errorMessage } from "../lib/api";
import { requiresSignIn } from "../lib/layout";
import { toast } from "../lib/toast";
import { AccountBanners } from "./AccountBanners";
import { OrgSwitcher } from "./OrgSwitcher";
import { Sidebar, type SidebarUser } from "./Sidebar";

const TWO_FACTOR_ENROL_PATH = "/app/two-factor";

/**
 * The app shell: sidebar on large screens, a drawer on phones. It knows who is signed in
 * (GET /api/auth/me): the sidebar shows them, their role and the organization switcher, and
 * /app/* screens other than the /app demo send a signed-out visitor to /login?next=….
 * Signed-in screens show the account notices (trial days left, read-only, set a password) above their content.
 */
export function AppLayout({ children }: { children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const drawer = useRef<HTMLDivElement>(null);
  const menuButton = useRef<HTMLButtonElement>(null);
  // the phone drawer takes focus when it opens (its close button) and gives it back to the menu button when it closes
  const wasOpen = useRef(false);
  useEffect(() => {
    const target = open ? drawer.current?.querySelector<HTMLElement>("[data-drawer-close]") : wasOpen.current ? menuButton.current : null;
    wasOpen.current = open;
    if (!target) return;
    // the drawer becomes visible (focusable) over the next frames of its CSS transition
    let frame = 0;
    const focus = () => {
      target.focus();
      if (document.activeElement !== target && ++frame < 30) id = requestAnimationFrame(focus);
    };
    let id = requestAnimationFrame(focus);
    return () => cancelAnimationFrame(id);
  }, [open]);
  // from 1024 px the sidebar is always shown: a drawer left open on a narrower window closes
  useEffect(() => {
    const wide = window.matchMedia?.("(min-width: 1024px)");
    if (!wide) return;
    const close = () => wide.matches && setOpen(false);
    wide.addEventListener("change", close);
    return () => wide.removeEventListener("change", close);
  }, []);
  const { pathname, search } = useLocation();
  const navigate = useNavigate();
  const me = useMe();
  const signOut = useSignOut();
  const guarded = requiresSignIn(pathname);

  // Only a definite "signed out" (401 → null) redirects; a server error leaves the screen to show its own error.
  if (guarded && me.data === null) return <Navigate to={`/login?next=${encodeURIComponent(pathname + search)}`} replace />;
  if (guarded && me.isPending) {
    return (
      <div className="flex min-h-screen items-center justify-center bg-base-200" role="status" aria-label="Loading">
        <span className="loading loading-spinner loading-lg text-primary" />
      </div>
    );
  }

  const signedIn = isSignedIn(me.data) ? me.data : null;
  // an organization that requires two-factor sign-in: enroll before anything else (the server refuses its routes until then)
  if (guarded && signedIn?.twoFactor?.required && !signedIn.twoFactor.enabled && pathname !== TWO_FACTOR_ENROL_PATH) return <Navigate to={TWO_FACTOR_ENROL_PATH} replace />;
  const user: SidebarUser | undefined = signedIn
    ? {
        name: signedIn.user.name,
        role: signedIn.currentOrg ? ROLE_LABELS[signedIn.currentOrg.role] : "No organization",
        onLogout: () =>
          signOut.mutate(undefined, {
            onSuccess: () => navigate("/login"),
            onError: (e) => toast({ title: "Could not sign out", description: errorMessage(e), variant: "destructive" }),
          }),
      }
    : undefined;

  const sidebar = (
    <div ref={drawer} id="app-sidebar" className="drawer-side z-40" onKeyDown={(e) => open && onDrawerKey(e, drawer.current, () => setOpen(false))}>
      {/* a click outside closes the drawer; keyboard and screen-reader users have the sidebar's own close button */}
      <label htmlFor="app-drawer" className="drawer-overlay" aria-hidden />
      <Sidebar user={user} header={signedIn ? <OrgSwitcher me={signedIn} /> : undefined} onNavigate={() => setOpen(false)} />
    </div>
  );
  return (
    <>
      {/* the first stop of Tab: straight to the screen, past the sidebar */}
      <a href="#main" className="skip-link" onClick={skipToMain}>
        Skip to main content
      </a>
      <div className="drawer lg:drawer-open min-h-screen bg-base-200">
        {/* daisyUI's drawer state; people use the menu button, the close button, Escape or a click outside */}
        <input id="app-drawer" type="checkbox" className="drawer-toggle" checked={open} onChange={(e) => setOpen(e.target.checked)} tabIndex={-1} aria-hidden />
        {/* the sidebar comes before the screen in the page, so Tab reaches it first; the grid still draws it on the left */}
        {sidebar}
        {/* while the phone drawer is open the page behind it is out of reach (Tab stays in the drawer) */}
        <div className="drawer-content flex min-h-screen min-w-0 flex-col" inert={open || undefined}>
          <header className="navbar border-b border-base-300 bg-base-100 lg:hidden">
            <button ref={menuButton} type="button" className="btn btn-ghost btn-square" aria-expanded={open} aria-controls="app-sidebar" onClick={() => setOpen(true)}>
              <Menu className="h-5 w-5" aria-hidden />
              <span className="sr-only">Open navigation</span>
            </button>
            <Shield className="ml-1 h-6 w-6 text-primary" aria-hidden />
            <span className="ml-2 font-bold">dmarcwarden</span>
          </header>
          <main id="main" tabIndex={-1} className="min-w-0 flex-1 p-4 outline-none sm:p-6 lg:p-8">
            {signedIn && (
              <div className="mx-auto max-w-7xl">
                <AccountBanners />
              </div>
            )}
            {children}
          </main>
        </div>
      </div>
    </>
  );
}

/** The skip link moves focus as well as the view (a hash alone leaves focus where it was in some browsers). */
function skipToMain(e: React.MouseEvent<HTMLAnchorElement>) {
  const main = document.getElementById("main");
  if (!main) return;
  e.preventDefault();
  main.focus();
  main.scrollIntoView();
}

const FOCUSABLE = 'a[href], button:not([disabled]), select:not([disabled]), input:not([disabled]):not([tabindex="-1"]), [tabindex="0"]';

/** The open phone drawer behaves as a dialog: Escape closes it, Tab and Shift+Tab go round inside it. */
function onDrawerKey(e: React.KeyboardEvent, drawer: HTMLElement | null, close: () => void) {
  if (e.key === "Escape") return close();
  if (e.key !== "Tab" || !drawer) return;
  const items = [...drawer.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null);
  const first = items[0];
  const last = items[items.length - 1];
  if (!first || !last) return;
  if (!e.shiftKey && document.activeElement === last) {
    e.preventDefault();
    first.focus();
  } else if (e.shiftKey && document.activeElement === first) {
    e.preventDefault();
    last.focus();
  }
}
