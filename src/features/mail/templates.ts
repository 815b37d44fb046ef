/**
 * The product's mail: plain text first, with a small HTML twin (inline styles, no images,
 * no tracking pixels, no link rewriting). Every value is escaped in the HTML part.
 */
import type { MailMessage } from "./mailer";

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

interface Content {
  subject: string;
  /** paragraphs before the button */
  intro: string[];
  action: { label: string; url: string };
  /** paragraphs after the button */
  outro: string[];
}

function render(to: string, c: Content): MailMessage {
  const text = [...c.intro, `${c.action.label}:\n${c.action.url}`, ...c.outro, "— dmarcwarden"].join("\n\n") + "\n";
  const p = (s: string) => `<p style="margin:0 0 16px;line-height:1.5">${escape(s)}</p>`;
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escape(c.subject)}</title></head>
<body style="margin:0;padding:24px 12px;background:#f3f4f6;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2937;font-size:15px">
<div style="max-width:520px;margin:0 auto;background:#ffffff;border:1px solid #e5e7eb;border-radius:8px;padding:28px">
<p style="margin:0 0 20px;font-size:18px;font-weight:700;color:#1d4ed8">dmarcwarden</p>
${c.intro.map(p).join("\n")}
<p style="margin:24px 0"><a href="${escape(c.action.url)}" style="display:inline-block;background:#1d4ed8;color:#ffffff;text-decoration:none;font-weight:600;padding:10px 18px;border-radius:6px">${escape(c.action.label)}</a></p>
<p style="margin:0 0 16px;line-height:1.5;font-size:13px;color:#6b7280">If the button does not work, copy this address into your browser:<br><span style="word-break:break-all">${escape(c.action.url)}</span></p>
${c.outro.map(p).join("\n")}
</div>
<p style="max-width:520px;margin:12px auto 0;font-size:12px;color:#6b7280;text-align:center">Sent by dmarcwarden, DMARC / SPF / DKIM monitoring.</p>
</body></html>
`;
  return { to, subject: c.subject, text, html };
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
