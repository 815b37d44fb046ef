/**
 * The dashboard's and lists' hot read paths in one place: what `npm run bench:dashboard` times
 * and what the query-plan test (tests/server/query-plans.test.ts) runs under EXPLAIN. Paths
 * marked `rollupsOnly` answer from the daily roll-ups (docs/rollups.md) and never read a records
 * table (aggregate_records, failure_reports); the others may read them
 * only through an index, never by a full scan.
 */
export interface HotPath {
  /** the request path, with the domain and sender filled in */
  path: string;
  /** the path as reported, with :id and :key for the filled-in parts */
  label: string;
  rollupsOnly: boolean;
}

export function hotPaths(ids: { domainId: string; senderKey: string | null }): HotPath[] {
  const p = (path: string, rollupsOnly: boolean, label = path): HotPath => ({ path, label, rollupsOnly });
  const domain = `/api/domains/${ids.domainId}`;
  return [
    p("/api/dashboard/stats", true),
    p("/api/tasks", true),
    p("/api/ip-threats", true),
    p("/api/threats/countries?range=24h", true),
    p("/api/threats/countries?range=30d", true),
    p("/api/senders", true),
    p("/api/senders?days=7", true),
    ...(ids.senderKey ? [p(`/api/senders/${encodeURIComponent(ids.senderKey)}?days=30`, false, "/api/senders/:key?days=30")] : []),
    p("/api/trends?days=30", true),
    p("/api/trends?days=90", true),
    p("/api/trends/sources?days=30", true),
    p("/api/domains", true),
    p(domain, true, "/api/domains/:id"),
    p(`${domain}/history`, true, "/api/domains/:id/history"),
    p(`${domain}/sources`, true, "/api/domains/:id/sources"),
    p(`${domain}/enforcement`, true, "/api/domains/:id/enforcement"),
    p("/api/dmarc-reports", false),
    p("/api/failure-reports", false),
    p("/api/events", true),
    p("/api/onboarding", true),
  ];
}
