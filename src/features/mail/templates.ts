/**
 * The product's mail: plain text first, with a small HTML twin (inline styles, no images,
 * no tracking pixels, no link rewriting). Every value is escaped in the HTML part.
 */
import type { AlertDescription } from "../../lib/alerts/describe";
import { type DigestModel, digestHeadline, digestPeriod, digestTables, digestTitle } from "../../lib/alerts/digest";
import { type PortfolioDigestModel, portfolioDigestHeadline, portfolioDigestPeriod, portfolioDigestTable, portfolioDigestTitle } from "../../lib/alerts/portfolio-digest";
import type { MailMessage } from "./mailer";

/** White-label branding of mail to an MSP's clients (src/features/branding): name, button colour, support address. */
export interface MailBrand {
  productName: string;
  primaryColor: string | null;
  supportEmail: string | null;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

interface Content {
  subject: string;
  /** paragraphs before the button */
  intro: string[];
  /** the button; none in mail to people who cannot sign in (a client's outside contacts) */
  action?: { label: string; url: string };
  /** paragraphs after the button */
  outro: string[];
  /** tables between the intro and the button */
  tables?: MailTable[];
  /** the outro already says where to write (no "Questions? Write to …" line) */
  noSupportLine?: boolean;
}

interface MailTable {
  heading?: string;
  columns?: string[];
  rows: string[][];
  /** said instead of an empty table */
  empty?: string;
  note?: string;
}

function tableText(t: MailTable): string {
  const lines = t.heading ? [t.heading.toUpperCase()] : [];
  if (!t.rows.length) return [...lines, t.empty ?? ""].join("\n");
  const all = t.columns ? [t.columns, ...t.rows] : t.rows;
  // the last column is not padded, so long values (a DNS record) do not push lines wider
  const widths = all[0]!.map((_, i) => Math.min(48, Math.max(...all.map((row) => (row[i] ?? "").length))));
  for (const row of all) lines.push(row.map((cell, i) => (i < row.length - 1 ? cell.padEnd(widths[i]!) : cell)).join("  ").trimEnd());
  if (t.note) lines.push(t.note);
  return lines.join("\n");
}

function tableHtml(t: MailTable): string {
  const heading = t.heading ? `<p style="margin:20px 0 8px;font-weight:700">${escape(t.heading)}</p>` : "";
  if (!t.rows.length) return `${heading}<p style="margin:0 0 16px;color:#6b7280">${escape(t.empty ?? "")}</p>`;
  const cell = (s: string, tag: "td" | "th") => `<${tag} style="text-align:left;vertical-align:top;padding:6px 8px 6px 0;border-bottom:1px solid #e5e7eb;word-break:break-word${tag === "th" ? ";color:#6b7280;font-weight:600" : ""}">${escape(s)}</${tag}>`;
  const head = t.columns ? `<tr>${t.columns.map((c) => cell(c, "th")).join("")}</tr>` : "";
  const body = t.rows.map((row) => `<tr>${row.map((c) => cell(c, "td")).join("")}</tr>`).join("");
  const note = t.note ? `<p style="margin:6px 0 0;font-size:13px;color:#6b7280">${escape(t.note)}</p>` : "";
  return `${heading}<table style="width:100%;border-collapse:collapse;font-size:13px;margin:0 0 16px">${head}${body}</table>${note}`;
}

function render(to: string, c: Content, brand?: MailBrand | null): MailMessage {
  const tables = c.tables ?? [];
  const name = brand?.productName || "dmarcwarden";
  const color = brand?.primaryColor && /^#[0-9a-f]{6}$/i.test(brand.primaryColor) ? brand.primaryColor : "#1d4ed8";
  const support = brand?.supportEmail && !c.noSupportLine ? `Questions? Write to ${brand.supportEmail}.` : null;
  const text = [...c.intro, ...tables.map(tableText), ...(c.action ? [`${c.action.label}:\n${c.action.url}`] : []), ...c.outro, ...(support ? [support] : []), `— ${name}`].join("\n\n") + "\n";
  const p = (s: string) => `<p style="margin:0 0 16px;line-height:1.5">${escape(s)}</p>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(c.subject)}</title></head>
<body style="margin:0;padding:24px 12px;background:#f3f4f6;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2937;font-size:15px">
<div style="max-width:520px;margin:0 auto;background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:28px">
<p style="margin:0 0 20px;font-size:18px;font-weight:700;color:${color}">${escape(name)}</p>
${c.intro.map(p).join("\n")}
${tables.map(tableHtml).join("\n")}
${
  c.action
    ? `<p style="margin:24px 0"><a href="${escape(c.action.url)}" style="display:inline-block;background:${color};color:#ffffff;text-decoration:none;font-weight:600;padding:10px 18px;border-radius:6px">${escape(c.action.label)}</a></p>
<p style="margin:0 0 16px;line-height:1.5;font-size:13px;color:#6b7280">If the button does not work, copy this address into your browser:<br><span style="word-break:break-all">${escape(c.action.url)}</span></p>`
    : ""
}
${c.outro.map(p).join("\n")}
${support ? p(support) : ""}
</div>
<p style="max-width:520px;margin:12px auto 0;font-size:12px;color:#6b7280;text-align:center">Sent by ${escape(name)}, DMARC / SPF / DKIM monitoring.</p>
</body></html>
`;
  // white-label: the sender's display name is the MSP's product name too
  return { to, subject: c.subject, text, html, ...(brand?.productName ? { fromName: brand.productName } : {}) };
}

const when = (d: Date) => d.toUTCString().replace(/:\d\d GMT$/, " UTC");

export function invitationMail(input: { to: string; inviterName: string; organization: string; role: string; link: string; expiresAt: Date }): MailMessage {
  return render(input.to, {
    subject: `${input.inviterName} invited you to ${input.organization} on dmarcwarden`,
    intro: [`${input.inviterName} invited you to join ${input.organization} on dmarcwarden as ${input.role}.`, "Sign in or create an account with this email address, then accept the invitation."],
    action: { label: "Accept the invitation", url: input.link },
    outro: [`The link works once and until ${when(input.expiresAt)}. If you did not expect this invitation, ignore this message.`],
  });
}

export function passwordLinkMail(input: { to: string; name: string; link: string; expiresAt: Date; reason: "reset" | "trial" }): MailMessage {
  const trial = input.reason === "trial";
  return render(input.to, {
    subject: trial ? "Set a password for your dmarcwarden account" : "Set a new password for dmarcwarden",
    intro: trial
      ? [`Hello ${input.name},`, "Your dmarcwarden trial is ready. Set a password so you can sign in again later from any browser."]
      : [`Hello ${input.name},`, "Someone (we hope you) asked to set a new password for your dmarcwarden account."],
    action: { label: trial ? "Set your password" : "Set a new password", url: input.link },
    outro: [
      `The link works once and until ${when(input.expiresAt)}. Setting a password signs out your other sessions.`,
      trial ? "If you did not start a trial, ignore this message." : "If you did not ask for this, ignore this message: your password stays as it is.",
    ],
  });
}

export function signInFailuresMail(input: { to: string; name: string; failures: number; link: string }): MailMessage {
  return render(input.to, {
    subject: "Failed sign-in attempts on your dmarcwarden account",
    intro: [
      `Hello ${input.name},`,
      `Someone has tried to sign in to your dmarcwarden account with a wrong password ${input.failures} times in the last few minutes. Further attempts from other places are now slowed down; you can still sign in as usual from where you normally do.`,
      "If this was you, there is nothing to do. If not, choose a new password that you use nowhere else.",
    ],
    action: { label: "Set a new password", url: input.link },
    outro: ["We send this message at most once an hour."],
  });
}

export function verifyEmailMail(input: { to: string; name: string; link: string; expiresAt: Date }): MailMessage {
  return render(input.to, {
    subject: "Confirm your email address for dmarcwarden",
    intro: [`Hello ${input.name},`, "Confirm that this is your email address to finish creating your dmarcwarden account. Until then we send nothing else to it."],
    action: { label: "Confirm your email address", url: input.link },
    outro: [`The link works once and until ${when(input.expiresAt)}. If you did not sign up, ignore this message: no account is used without this confirmation.`],
  });
}

export function accountExistsMail(input: { to: string; name: string; loginUrl: string; via: "signup" | "trial" }): MailMessage {
  return render(input.to, {
    subject: "You already have a dmarcwarden account",
    intro: [
      `Hello ${input.name},`,
      `Someone (we hope you) just tried to ${input.via === "trial" ? "start a trial" : "sign up"} on dmarcwarden with this email address, which already has an account. No new account was made.`,
      "Sign in with your password, or use \u201cForgot password?\u201d on the sign-in page to set a new one.",
    ],
    action: { label: "Sign in", url: input.loginUrl },
    outro: ["If it was not you, ignore this message: nothing has changed on your account."],
  });
}

/** What was removed when the address was first confirmed (access handed out before anyone had proved it). */
export function unprovedAccessRemovedMail(input: {
  to: string;
  name: string;
  tokens: { organization: string; name: string; role: string }[];
  invitations: { organization: string; email: string; role: string }[];
  members: { organization: string; email: string; role: string }[];
  sessions: number;
  link: string;
}): MailMessage {
  const tables: MailTable[] = [];
  if (input.tokens.length) tables.push({ heading: "API tokens deleted", columns: ["Organization", "Token", "Role"], rows: input.tokens.map((t) => [t.organization, t.name, t.role]) });
  if (input.invitations.length) tables.push({ heading: "Invitations withdrawn", columns: ["Organization", "Invited", "Role"], rows: input.invitations.map((i) => [i.organization, i.email, i.role]) });
  if (input.members.length) tables.push({ heading: "Members removed", columns: ["Organization", "Member", "Role"], rows: input.members.map((m) => [m.organization, m.email, m.role]) });
  return render(input.to, {
    subject: "We removed access made before you confirmed your dmarcwarden address",
    intro: [
      `Hello ${input.name},`,
      "You have just confirmed this email address for your dmarcwarden account. Until then anyone could have typed it, so what the account handed out before the confirmation has been removed:",
      ...(input.sessions ? [`${input.sessions} other ${input.sessions === 1 ? "session was" : "sessions were"} signed out.`] : []),
    ],
    tables,
    action: { label: "Review your account", url: input.link },
    outro: ["If you made any of these yourself, create them again now: they work as before. The organization's audit log lists the same."],
  });
}

/** An alert (see src/lib/alerts/describe.ts) to one address of an email channel. */
export function alertMail(input: { to: string; organization: string; alert: AlertDescription; brand?: MailBrand | null }): MailMessage {
  const { alert, brand } = input;
  // white-label: the product's name in the alert's own words becomes the MSP's
  const named = (s: string) => (brand?.productName ? s.replaceAll("dmarcwarden", brand.productName) : s);
  return render(input.to, {
    subject: `[${input.organization}] ${named(alert.title)}`,
    intro: [named(alert.summary)],
    tables: alert.facts.length ? [{ rows: alert.facts.map((f) => [f.label, f.value]) }] : [],
    action: { label: named(alert.linkLabel), url: alert.link },
    outro: [`You receive this because this address is on an email alert channel of ${input.organization}. An administrator can choose which alerts it receives in Settings.`],
  }, input.brand);
}

/**
 * The weekly digest, with its PDF attached when given. `contact`: the mail goes to an outside
 * contact of a client organization (client reports of an MSP), who cannot sign in — no link to
 * the app; replies go to `replyTo` (the MSP's support address), named in the mail.
 */
export function digestMail(input: { to: string; digest: DigestModel; pdf?: Uint8Array; brand?: MailBrand | null; contact?: { sender: string; replyTo: string | null } }): MailMessage {
  const { digest, contact } = input;
  const message = render(input.to, {
    subject: `[${digest.organization.name}] Weekly DMARC digest, ${digestPeriod(digest)}`,
    intro: [digestTitle(digest), ...digestHeadline(digest)],
    tables: digestTables(digest),
    ...(contact ? {} : { action: { label: "Open the dashboard", url: digest.link } }),
    outro: [
      ...(input.pdf ? ["The same digest is attached as a PDF."] : []),
      ...(contact
        ? [
            `You receive this weekly report because ${contact.sender} sends it to the contacts of ${digest.organization.name}.`,
            contact.replyTo ? `Questions, or to stop receiving it? Reply to ${contact.replyTo}.` : `Questions, or to stop receiving it? Reply to ${contact.sender}.`,
          ]
        : ["An administrator can change the day and hour of this digest, or turn it off, in Settings."]),
    ],
    noSupportLine: !!contact,
  }, input.brand);
  const mail: MailMessage = contact?.replyTo ? { ...message, replyTo: contact.replyTo } : message;
  if (!input.pdf) return mail;
  const date = digest.period.start.toISOString().slice(0, 10);
  return { ...mail, attachments: [{ filename: `dmarc-digest-${date}.pdf`, content: input.pdf, contentType: "application/pdf" }] };
}

/** The digest as plain text, the same tables as the mail's text part (the `digest` command prints it). */
export function digestText(digest: DigestModel): string {
  return [digestTitle(digest), ...digestHeadline(digest), ...digestTables(digest).map(tableText), `Dashboard: ${digest.link}`].join("\n\n") + "\n";
}

/** An MSP's weekly portfolio digest: every client in one table, attention first (src/lib/alerts/portfolio-digest.ts). */
export function portfolioDigestMail(input: { to: string; digest: PortfolioDigestModel; brand?: MailBrand | null }): MailMessage {
  const { digest } = input;
  return render(input.to, {
    subject: `[${digest.organization.name}] Weekly portfolio digest, ${portfolioDigestPeriod(digest)}`,
    intro: [portfolioDigestTitle(digest), ...portfolioDigestHeadline(digest)],
    tables: [portfolioDigestTable(digest)],
    action: { label: "Open the portfolio", url: digest.link },
    outro: ["You receive this as an owner or administrator of an organization with client organizations. It goes out with your organization's weekly digest; an administrator can change its day and hour, or turn it off, in Settings."],
  }, input.brand);
}
