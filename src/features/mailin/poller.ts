/**
 * The scheduler's mailbox job: polls every configured report mailbox once at start, then
 * every `intervalMinutes`. Rounds never overlap; stop() waits for a running round to end.
 */
import type { AppDeps } from "../../deps";
import { pollAllOAuthMailboxes } from "./oauth-service";
import { pollAllMailboxes, type IngestFn } from "./service";

export interface MailboxPoller {
  /** runs one round now (or waits for the running one) */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

export function startMailboxPoller(deps: AppDeps, ingest: IngestFn, intervalMinutes: number): MailboxPoller {
  let running: Promise<void> | null = null;
  let stopped = false;
  const round = () => {
    if (stopped) return Promise.resolve();
    // each mailbox once per interval across app nodes (the lease ends a little before the next round)
    const lease = Math.max(30, intervalMinutes * 60 - 30);
    running ??= pollAllMailboxes(deps, ingest, lease)
      .then(() => pollAllOAuthMailboxes(deps, ingest, lease))
      .catch((error) => deps.log.error("imap_round_failed", { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        running = null;
      });
    return running;
  };
  const first = setTimeout(round, 1_000);
  const timer = setInterval(round, intervalMinutes * 60_000);
  deps.log.info("imap_poller_started", { intervalMinutes });
  return {
    runNow: round,
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(timer);
      await running;
    },
  };
}
