import { CheckCheck, Inbox, LogOut, Mail, Search, Shield, ShoppingCart, LifeBuoy } from "lucide-react";
import { useEffect, useMemo, useRef, useState, type ComponentType } from "react";
import { useNavigate } from "react-router";
import type { ContactSubmission } from "../../../src/features/admin/contract";
import { forgetAdminSession, storedAdminSession } from "../../lib/adminSession";
import { ApiError, errorMessage } from "../../lib/api";
import { toast } from "../../lib/toast";
import { useAdminLogout, useContactSubmissions, useMarkRead } from "./api";
import { countSubmissions, filterSubmissions, FILTERS, formatSubmittedAt, requestTypeBadgeClass, type SubmissionFilter } from "./submissions";
import { ScrollArea } from "../../components/ScrollArea";

/** The Master Administrator Console (SPEC §2/§4/§5/§8): contact submissions. */
export default function AdminDashboardPage() {
  const navigate = useNavigate();
  const [sessionId] = useState(storedAdminSession);
  const [search, setSearch] = useState("");
  const [filter, setFilter] = useState<SubmissionFilter>("all");
  const submissions = useContactSubmissions(sessionId);
  const markRead = useMarkRead(sessionId);
  const logout = useAdminLogout();
  const denied = useRef(false);

  const deny = () => {
    if (denied.current) return;
    denied.current = true;
    forgetAdminSession();
    toast({ title: "Access Denied", description: "Admin login required", variant: "destructive" });
    navigate("/", { replace: true });
  };

  const unauthorized = submissions.error instanceof ApiError && submissions.error.status === 401;
  useEffect(() => {
    if (!sessionId || unauthorized) deny();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [sessionId, unauthorized]);

  const list = submissions.data ?? [];
  const counts = useMemo(() => countSubmissions(list), [list]);
  const visible = useMemo(() => filterSubmissions(list, search, filter), [list, search, filter]);

  if (!sessionId) return null;

  const onMarkRead = (id: string) =>
    markRead.mutate(id, {
      onSuccess: () => toast({ title: "Marked as Read", description: "The submission has been marked as read." }),
      onError: (error) => {
        if (error instanceof ApiError && error.status === 401) return deny();
        toast({ title: "Could not mark as read", description: errorMessage(error), variant: "destructive" });
      },
    });

  const onLogout = () =>
    logout.mutate(sessionId, {
      onSuccess: () => {
        forgetAdminSession();
        toast({ title: "Logged Out", description: "You have been logged out of the admin console." });
        navigate("/");
      },
      onError: () => toast({ title: "Logout Error", description: "Failed to logout properly", variant: "destructive" }),
    });

  return (
    <div className="min-h-screen bg-base-200">
      <header className="border-b border-base-300 bg-base-100">
        <div className="mx-auto flex max-w-7xl items-center justify-between gap-4 px-4 py-4 sm:px-6">
          <div className="flex min-w-0 items-center gap-3">
            <Shield className="h-8 w-8 shrink-0 text-primary" aria-hidden />
            <div className="min-w-0">
              {/* the full title at every width: it wraps on phones rather than being cut */}
              <h1 className="text-lg font-bold leading-tight sm:text-2xl">Master Administrator Console</h1>
              <p className="text-sm opacity-70">Contact submissions</p>
            </div>
          </div>
          <button type="button" className="btn btn-outline btn-sm shrink-0" onClick={onLogout} disabled={logout.isPending}>
            <LogOut className="h-4 w-4" aria-hidden />
            Logout
          </button>
        </div>
      </header>

      <main className="mx-auto flex max-w-7xl flex-col gap-6 px-4 py-6 sm:px-6">
        <section className="grid grid-cols-2 gap-3 lg:grid-cols-4" aria-label="Counters">
          <Counter label="Total Submissions" value={counts.total} icon={Inbox} tone="text-primary" />
          <Counter label="Unread" value={counts.unread} icon={Mail} tone="text-warning" />
          <Counter label="Sales Inquiries" value={counts.sales} icon={ShoppingCart} tone="text-success" />
          <Counter label="Support Requests" value={counts.support} icon={LifeBuoy} tone="text-info" />
        </section>

        <section className="card border border-base-300 bg-base-100 shadow-sm">
          <div className="card-body gap-4 p-4 sm:p-6">
            <div className="flex flex-col gap-3 md:flex-row md:items-center md:justify-between">
              <label className="input input-bordered flex w-full items-center gap-2 md:max-w-md">
                <Search className="h-4 w-4 opacity-60" aria-hidden />
                <input type="search" className="grow" placeholder="Search by name, email, company or subject..." aria-label="Search submissions" value={search} onChange={(e) => setSearch(e.target.value)} />
              </label>
              <div className="join" role="group" aria-label="Filter submissions">
                {FILTERS.map((f) => (
                  <button key={f.key} type="button" className={`btn btn-sm join-item ${filter === f.key ? "btn-primary" : "btn-outline"}`} aria-pressed={filter === f.key} onClick={() => setFilter(f.key)}>
                    {f.label}
                  </button>
                ))}
              </div>
            </div>
            <SubmissionsTable
              state={submissions.isLoading || submissions.isPending ? "loading" : submissions.isError ? "error" : "ready"}
              rows={visible}
              onMarkRead={onMarkRead}
              markingId={markRead.isPending ? markRead.variables : undefined}
            />
          </div>
        </section>
      </main>
    </div>
  );
}

function Counter({ label, value, icon: Icon, tone }: { label: string; value: number; icon: ComponentType<{ className?: string }>; tone: string }) {
  return (
    <div className="card border border-base-300 bg-base-100 shadow-sm">
      <div className="card-body flex-row items-center justify-between gap-2 p-4">
        <div>
          <p className="text-sm opacity-70">{label}</p>
          <p className="text-2xl font-bold" data-testid={`count-${label}`}>
            {value}
          </p>
        </div>
        <Icon className={`h-8 w-8 ${tone}`} aria-hidden />
      </div>
    </div>
  );
}

function SubmissionsTable({ state, rows, onMarkRead, markingId }: { state: "loading" | "error" | "ready"; rows: ContactSubmission[]; onMarkRead: (id: string) => void; markingId?: string }) {
  if (state === "loading") return <p className="py-10 text-center opacity-70" role="status">Loading contact submissions...</p>;
  if (state === "error") return <p className="py-10 text-center text-error" role="alert">Failed to load submissions</p>;
  if (!rows.length) return <p className="py-10 text-center opacity-70">No submissions found</p>;
  return (
    <ScrollArea label="Contact submissions table">
      <table className="table">
        <thead>
          <tr>
            <th>Status</th>
            <th>Contact</th>
            <th>Company</th>
            <th>Request</th>
            <th>Subject</th>
            <th>Submitted</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((s) => (
            <tr key={s.id} className={s.isRead ? "" : "bg-primary/5"} data-unread={s.isRead ? undefined : "true"}>
              <td>{s.isRead ? <span className="badge badge-ghost badge-sm">Read</span> : <span className="badge badge-primary badge-sm">New</span>}</td>
              <td className="min-w-48">
                <p className="font-medium">{s.name}</p>
                <p className="text-sm opacity-70">{s.email}</p>
                {s.phone && <p className="text-sm opacity-70">{s.phone}</p>}
              </td>
              <td className="min-w-40">
                <p>{s.company}</p>
                {s.domains && <p className="text-xs opacity-70">Domains: {s.domains}</p>}
              </td>
              <td>
                <span className={`badge badge-sm whitespace-nowrap capitalize ${requestTypeBadgeClass(s.requestType)}`}>{s.requestType}</span>
              </td>
              <td className="min-w-64 max-w-md">
                <p className="font-medium">{s.subject}</p>
                <p className="line-clamp-2 text-sm opacity-70">{s.message}</p>
              </td>
              <td className="whitespace-nowrap text-sm">{formatSubmittedAt(s.submittedAt)}</td>
              <td>
                {!s.isRead && (
                  <button type="button" className="btn btn-xs btn-outline whitespace-nowrap" onClick={() => onMarkRead(s.id)} disabled={markingId === s.id}>
                    <CheckCheck className="h-3 w-3" aria-hidden />
                    Mark Read
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollArea>
  );
}
