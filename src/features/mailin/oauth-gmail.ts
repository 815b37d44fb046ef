/**
 * A Google Workspace mailbox through the Gmail API: the signed-in address, and one poll that
 * hands each unread message with the label (`format=raw`) to a callback, then takes the label
 * and UNREAD off and puts on the `Processed` or `Invalid` label (created when missing).
 */
import { INVALID_FOLDER, MAX_MESSAGES_PER_POLL, PROCESSED_FOLDER, type PollOutcome } from "./imap-client";
import { pollMessages, type MailPollOptions, type MessageHandler } from "./oauth-poll";
import { okJson, OAuthProblem, type ApiCall, type OAuthProviderSettings } from "./oauth-providers";

export function gmailMailbox(p: OAuthProviderSettings, api: ApiCall) {
  async function labels(): Promise<{ id: string; name: string }[]> {
    return (await okJson<{ labels?: { id: string; name: string }[] }>(p, "list labels", await api("/users/me/labels"))).labels ?? [];
  }
  async function labelId(all: { id: string; name: string }[], name: string, create: boolean): Promise<string | null> {
    if (name.toUpperCase() === "INBOX") return "INBOX";
    const match = all.find((l) => l.name === name) ?? all.find((l) => l.name.toLowerCase() === name.toLowerCase());
    if (match) return match.id;
    if (!create) return null;
    const made = await okJson<{ id: string }>(p, `create label ${name}`, await api("/users/me/labels", { method: "POST", json: { name, labelListVisibility: "labelShow", messageListVisibility: "show" } }));
    return made.id;
  }

  return {
    async address(): Promise<string> {
      const profile = await okJson<{ emailAddress?: string }>(p, "read profile", await api("/users/me/profile"));
      if (!profile.emailAddress) throw new OAuthProblem(`${p.label} did not say which mailbox was signed in to`, "unavailable");
      return profile.emailAddress.toLowerCase();
    },

    async poll(folder: string, handle: MessageHandler, options: MailPollOptions): Promise<PollOutcome> {
      const all = await labels();
      const source = await labelId(all, folder, false);
      if (!source) throw new OAuthProblem(`The label "${folder}" does not exist in this mailbox.`, "folder");
      const processed = (await labelId(all, PROCESSED_FOLDER, true))!;
      const invalid = (await labelId(all, INVALID_FOLDER, true))!;
      const list = await okJson<{ messages?: { id: string }[] }>(p, "list messages", await api(`/users/me/messages?labelIds=${encodeURIComponent(source)}&q=${encodeURIComponent("is:unread")}&maxResults=${MAX_MESSAGES_PER_POLL}`));
      // Gmail lists newest first
      const ids = (list.messages ?? []).map((m) => m.id).reverse();
      return pollMessages(
        ids,
        async (id) => {
          const res = await api(`/users/me/messages/${encodeURIComponent(id)}?format=raw`);
          if (res.status === 404) return null;
          const message = await okJson<{ raw?: string }>(p, "read message", res);
          return new Uint8Array(Buffer.from(message.raw ?? "", "base64url"));
        },
        async (id, verdict) => {
          await okJson(p, "label message", await api(`/users/me/messages/${encodeURIComponent(id)}/modify`, { method: "POST", json: { addLabelIds: [verdict === "processed" ? processed : invalid], removeLabelIds: [source, "UNREAD"] } }));
        },
        handle,
        options,
      );
    },
  };
}
