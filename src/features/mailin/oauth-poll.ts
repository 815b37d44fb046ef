/**
 * One poll of an API mailbox (Graph or Gmail), the same way for both: each message (oldest
 * first) is read, handed to `handle` — or judged Invalid unread when over `maxBytes` — and filed
 * by `file`; "retry" leaves it unread where it is.
 */
import { MAX_MESSAGES_PER_POLL, type MessageVerdict, type PollOutcome } from "./imap-client";

export interface MailPollOptions {
  maxBytes: number;
  onOversize?: (id: string, size: number) => void;
}
export type MessageHandler = (message: { id: string; bytes: Uint8Array }) => Promise<MessageVerdict>;

export async function pollMessages(
  ids: string[],
  read: (id: string) => Promise<Uint8Array | null>,
  file: (id: string, verdict: "processed" | "invalid") => Promise<void>,
  handle: MessageHandler,
  options: MailPollOptions,
): Promise<PollOutcome> {
  const outcome: PollOutcome = { processed: 0, invalid: 0, retried: 0 };
  for (const id of ids.slice(0, MAX_MESSAGES_PER_POLL)) {
    const bytes = await read(id);
    if (!bytes) continue; // removed meanwhile
    let verdict: MessageVerdict;
    if (bytes.length > options.maxBytes) {
      options.onOversize?.(id, bytes.length);
      verdict = "invalid";
    } else {
      verdict = await handle({ id, bytes });
    }
    if (verdict === "retry") {
      outcome.retried++;
      continue;
    }
    await file(id, verdict);
    outcome[verdict]++;
  }
  return outcome;
}
