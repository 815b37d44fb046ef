/**
 * The scheduler's mailbox job: polls every configured report mailbox once at start, then
 * every `intervalMinutes`. Rounds never overlap; stop() waits for a running round to end.
 */
import type { AppDeps } from "../../deps";
import { periodic } from "../../lib/periodic";
import { pollAllOAuthMailboxes } from "./oauth-service";
import { pollAllMailboxes, type IngestFn } from "./service";

export interface MailboxPoller {
  /** runs one round now (or waits for the running one) */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function startMailboxPoller(deps: AppDeps, ingest: IngestFn, intervalMinutes: number): MailboxPoller {
  // each mailbox once per interval across app nodes (the lease ends a little before the next round)
  const lease = Math.max(30, intervalMinutes * 60 - 30);
  const job = periodic({
    everyMs: intervalMinutes * 60_000,
    firstAfterMs: 1_000,
    run: async () => {
      await pollAllMailboxes(deps, ingest, lease);
      await pollAllOAuthMailboxes(deps, ingest, lease);
    },
    onError: (error) => deps.log.error("imap_round_failed", { error: error instanceof Error ? error.message : String(error) }),
  });
  deps.log.info("imap_poller_started", { intervalMinutes });
  return job;
}
