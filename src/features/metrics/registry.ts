/**
 * The server's metrics, one set per process (a node): Prometheus scrapes every node's
 * `GET /metrics`. Features count through the exported metrics; the names and what they mean are
 * listed in docs/operations/metrics.md.
 */
import { Counter, Gauge, Histogram, Registry } from "../../lib/metrics";
import { periodic } from "../../lib/periodic";
import { dbWriteRetries } from "../../db/store";

export const registry = new Registry();

export const httpRequests = registry.register(new Counter("dmarcwarden_http_requests_total", "HTTP requests answered, by method, route pattern and status code.", ["method", "route", "status"]));
export const httpDuration = registry.register(
  new Histogram("dmarcwarden_http_request_duration_seconds", "Time to answer HTTP requests, by method and route pattern.", ["method", "route"], [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]),
);
export const reportsIngested = registry.register(new Counter("dmarcwarden_reports_ingested_total", "Reports stored, by kind (aggregate, failure, tls) and source (upload, cli, smtp, imap, microsoft, gmail, demo).", ["kind", "source"]));
export const recordsIngested = registry.register(new Counter("dmarcwarden_records_ingested_total", "Aggregate report records stored, by source.", ["source"]));
export const ingestFailures = registry.register(new Counter("dmarcwarden_ingest_failures_total", "Files refused by ingestion, by reason code and source.", ["reason", "source"]));
export const dnsChecks = registry.register(new Counter("dmarcwarden_dns_checks_total", "Domain DNS checks, by outcome (checked, incomplete, gone, error).", ["outcome"]));
export const dnsCheckDuration = registry.register(new Histogram("dmarcwarden_dns_check_duration_seconds", "Time a domain's DNS check took.", [], [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]));
export const mailboxPolls = registry.register(new Counter("dmarcwarden_mailbox_polls_total", "IMAP report mailbox polls, by outcome (ok, error).", ["outcome"]));
export const alertsSent = registry.register(new Counter("dmarcwarden_alerts_sent_total", "Alert deliveries attempted, by channel type and outcome (ok, error).", ["channel", "outcome"]));
export const schedulerLag = registry.register(
  new Gauge("dmarcwarden_scheduler_lag_seconds", "How late this node's timers fire (the delay every scheduled job — DNS checks, mailbox polls, alert delivery, purge — sees), over the last interval.", []),
);
export const keptAnswers = registry.register(
  new Counter("dmarcwarden_kept_answers_total", "Kept answers of the heavy roll-up reads, by outcome (hit: served kept; computed: computed for a request; shared: the answer another request or the refresh was computing; refreshed: computed again ahead of the next request).", ["outcome"]),
);
registry.register(dbWriteRetries);
export const retentionDeleted = registry.register(new Counter("dmarcwarden_retention_deleted_rows_total", "Rows deleted by the retention purge, by table.", ["table"]));

/** Measures how late a 1-second timer fires; stop it on shutdown. */
export function startSchedulerLagProbe(intervalMs = 1000): { stop(): void } {
  let expected = performance.now() + intervalMs;
  let worst = 0;
  let ticks = 0;
  const job = periodic({
    everyMs: intervalMs,
    run: () => {
      const now = performance.now();
      worst = Math.max(worst, Math.max(0, now - expected));
      expected = now + intervalMs;
      // the gauge shows the worst delay of the last 15 ticks
      if (++ticks >= 15) {
        schedulerLag.set(undefined, worst / 1000);
        worst = 0;
        ticks = 0;
      }
    },
  });
  return { stop: () => void job.stop() };
}
