import { lazy, Suspense, useEffect, useState, type ComponentType, type LazyExoticComponent } from "react";
import { Route, Routes, useLocation } from "react-router";
import { usesSidebar } from "./lib/layout";
import NotFoundPage from "./pages/not-found";

type Page = LazyExoticComponent<ComponentType> & { preload?: () => void };

/** Each screen is its own chunk, loaded when first visited (or preloaded alongside the sidebar layout). */
const page = (load: () => Promise<{ default: ComponentType }>): Page => Object.assign(lazy(load), { preload: () => void load() });

/** The sidebar layout (account banners, organisation switcher, notifications): only app screens load it. */
const AppLayout = lazy(() => import("./components/AppLayout").then((m) => ({ default: m.AppLayout })));

const Landing = page(() => import("./pages/landing"));
const Demo = page(() => import("./pages/demo"));
const Trial = page(() => import("./pages/trial"));
const Contact = page(() => import("./pages/contact"));
const OnboardingProfessional = page(() => import("./pages/onboarding/professional"));
const OnboardingHealthcare = page(() => import("./pages/onboarding/healthcare"));
const OnboardingRealestate = page(() => import("./pages/onboarding/realestate"));
const AdminDashboard = page(() => import("./pages/admin-dashboard"));
const Dashboard = page(() => import("./pages/dashboard"));
const Domains = page(() => import("./pages/domains"));
const DomainPage = page(() => import("./pages/domain"));
const Reports = page(() => import("./pages/reports"));
const Tasks = page(() => import("./pages/tasks"));
const Threats = page(() => import("./pages/threats"));
const Sender = page(() => import("./pages/senders"));
const Dns = page(() => import("./pages/dns"));
const Portfolio = page(() => import("./pages/portfolio"));
const Settings = page(() => import("./pages/settings"));
const TwoFactorEnrol = page(() => import("./pages/two-factor"));
const Login = page(() => import("./pages/login"));
const Signup = page(() => import("./pages/signup"));
const Invite = page(() => import("./pages/invite"));
const SetPassword = page(() => import("./pages/set-password"));
const VerifyEmail = page(() => import("./pages/verify-email"));

/** SPEC §2 route table. */
export const ROUTES: { path: string; element: ComponentType }[] = [
  { path: "/", element: Landing },
  { path: "/demo", element: Demo },
  { path: "/trial", element: Trial },
  { path: "/contact", element: Contact },
  { path: "/onboarding/professional", element: OnboardingProfessional },
  { path: "/onboarding/healthcare", element: OnboardingHealthcare },
  { path: "/onboarding/realestate", element: OnboardingRealestate },
  { path: "/admin/dashboard", element: AdminDashboard },
  { path: "/app", element: Demo },
  { path: "/app/dashboard", element: Dashboard },
  { path: "/app/domains", element: Domains },
  { path: "/app/domains/:id", element: DomainPage },
  { path: "/app/reports", element: Reports },
  { path: "/app/tasks", element: Tasks },
  { path: "/app/threats", element: Threats },
  { path: "/app/senders/:key", element: Sender },
  { path: "/app/dns", element: Dns },
  { path: "/app/portfolio", element: Portfolio },
  { path: "/app/settings", element: Settings },
  { path: "/app/two-factor", element: TwoFactorEnrol },
  { path: "/login", element: Login },
  { path: "/signup", element: Signup },
  { path: "/invite", element: Invite },
  { path: "/set-password", element: SetPassword },
  { path: "/verify-email", element: VerifyEmail },
];

/**
 * While a screen's chunk loads: the space it will take, and a spinner that fades in only
 * after 400 ms, so a fast load shows no flash and nothing shifts when the screen arrives.
 */
function Loading() {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), 400);
    return () => clearTimeout(timer);
  }, []);
  return (
    <div className="flex min-h-[60vh] items-center justify-center" role="status" aria-label="Loading">
      <span className={`loading loading-spinner loading-lg text-primary transition-opacity duration-200 ${slow ? "opacity-100" : "opacity-0"}`} />
    </div>
  );
}

function Screens() {
  return (
    <Suspense fallback={<Loading />}>
      <Routes>
        {ROUTES.map(({ path, element: Element }) => (
          <Route key={path} path={path} element={<Element />} />
        ))}
        <Route path="*" element={<NotFoundPage />} />
      </Routes>
    </Suspense>
  );
}

/** Whether a route pattern of ROUTES ("/app/domains/:id") matches a path. */
function routeMatches(pattern: string, pathname: string): boolean {
  const want = pattern.split("/");
  const got = (pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname).split("/");
  return want.length === got.length && want.every((part, i) => (part.startsWith(":") ? got[i] !== "" : part === got[i]));
}

export function AppRoutes() {
  const { pathname } = useLocation();
  if (!usesSidebar(pathname)) return <Screens />;
  // the screen's chunk is fetched together with the layout's, not after it (import() is fetched once)
  (ROUTES.find((r) => routeMatches(r.path, pathname))?.element as Page | undefined)?.preload?.();
  return (
    <Suspense fallback={<Loading />}>
      <AppLayout>
        <Screens />
      </AppLayout>
    </Suspense>
  );
}
