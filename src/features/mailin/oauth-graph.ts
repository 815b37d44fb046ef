/**
 * A Microsoft 365 mailbox through Microsoft Graph: the signed-in address, and one poll that
 * hands each unread message of the folder (its MIME source, `/messages/{id}/$value`) to a
 * callback, marks it read and moves it to `Processed` or `Invalid` (created when missing).
 */
import { INVALID_FOLDER, MAX_MESSAGES_PER_POLL, PROCESSED_FOLDER, type PollOutcome } from "./imap-client";
import { pollMessages, type MailPollOptions, type MessageHandler } from "./oauth-poll";
import { okJson, OAuthProblem, type ApiCall, type OAuthProviderSettings } from "./oauth-providers";

const odataString = (value: string) => `'${value.replace(/'/g, "''")}'`;

export function graphMailbox(p: OAuthProviderSettings, api: ApiCall) {
  async function folderId(name: string, create: boolean): Promise<string | null> {
    // the inbox by its well-known name, whatever the mailbox's language calls it
    if (name.toLowerCase() === "inbox") return "inbox";
    const found = await okJson<{ value: { id: string; displayName: string }[] }>(p, "list folders", await api(`/me/mailFolders?$filter=${encodeURIComponent(`displayName eq ${odataString(name)}`)}&$select=id,displayName`));
    const match = found.value.find((f) => f.displayName === name) ?? found.value[0];
    if (match) return match.id;
    if (!create) return null;
    const made = await okJson<{ id: string }>(p, `create folder ${name}`, await api("/me/mailFolders", { method: "POST", json: { displayName: name } }));
    return made.id;
  }

  return {
    async address(): Promise<string> {
      const me = await okJson<{ mail?: string | null; userPrincipalName?: string | null }>(p, "read profile", await api("/me?$select=mail,userPrincipalName"));
      const address = me.mail || me.userPrincipalName;
      if (!address) throw new OAuthProblem(`${p.label} did not say which mailbox was signed in to`, "unavailable");
      return address.toLowerCase();
    },

    async poll(folder: string, handle: MessageHandler, options: MailPollOptions): Promise<PollOutcome> {
      const source = await folderId(folder, false);
      if (!source) throw new OAuthProblem(`The folder "${folder}" does not exist in this mailbox.`, "folder");
      const processed = (await folderId(PROCESSED_FOLDER, true))!;
      const invalid = (await folderId(INVALID_FOLDER, true))!;
      // oldest first (Graph sorts on a property only when the filter starts with it)
      const list = await okJson<{ value: { id: string }[] }>(
        p,
        "list messages",
        await api(`/me/mailFolders/${encodeURIComponent(source)}/messages?$filter=${encodeURIComponent("receivedDateTime ge 1900-01-01T00:00:00Z and isRead eq false")}&$orderby=${encodeURIComponent("receivedDateTime asc")}&$select=id,receivedDateTime&$top=${MAX_MESSAGES_PER_POLL}`),
      );
      return pollMessages(
        list.value.map((m) => m.id),
        async (id) => {
          const res = await api(`/me/messages/${encodeURIComponent(id)}/$value`);
          if (res.status === 404) return null;
          if (!res.ok) await okJson(p, "read message", res);
          return new Uint8Array(await res.arrayBuffer());
        },
        async (id, verdict) => {
          await okJson(p, "mark message read", await api(`/me/messages/${encodeURIComponent(id)}`, { method: "PATCH", json: { isRead: true } }));
          await okJson(p, "move message", await api(`/me/messages/${encodeURIComponent(id)}/move`, { method: "POST", json: { destinationId: verdict === "processed" ? processed : invalid } }));
        },
        handle,
        options,
      );
    },
  };
}
