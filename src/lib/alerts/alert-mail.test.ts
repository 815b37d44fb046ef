import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { extractText, getDocumentProxy } from "unpdf";
import { startMailCapture, type MailCapture } from "../../../tests/support/mail-capture";
import { createMailer, type Mailer } from "../../features/mail/mailer";
import { alertMail, digestMail } from "../../features/mail/templates";
import { conditionKey } from "./conditions";
import { describeAlert } from "./describe";
import { renderDigestPdf } from "./digest-pdf";
import { sampleDigest } from "./digest-fixture";

const PUBLIC = "https://dmarc.example.net";
let capture: MailCapture;
let mailer: Mailer;

beforeAll(async () => {
  capture = await startMailCapture();
  mailer = createMailer({ relay: { host: "127.0.0.1", port: capture.port, secure: false, auth: null }, from: "dmarcwarden <alerts@dw.example.test>", publicUrl: PUBLIC });
});
afterAll(async () => {
  mailer.close();
  await capture.stop();
});

const removed = describeAlert(
  { type: "dns.record_disappeared", domain: "example.com", data: { record: "dmarc", before: "v=DMARC1; p=reject", after: null }, dedupeKey: conditionKey("dns.record_disappeared", "example.com", "dmarc") },
  { organization: { name: "Acme <Dental>" }, publicUrl: PUBLIC },
);

describe("alert mail", () => {
  test("the organization in the subject, what happened, the record before, and a link to the domain — in both parts", async () => {
    await mailer.send(alertMail({ to: "owner@acme.test", organization: "Acme <Dental>", alert: removed }));
    const mail = await capture.waitFor((m) => m.to.includes("owner@acme.test"));
    expect(mail.subject).toBe("[Acme <Dental>] DMARC record removed from example.com");
    expect(mail.text).toContain("The DMARC record at _dmarc.example.com is gone.");
    expect(mail.text).toContain("Before  v=DMARC1; p=reject");
    expect(mail.text).toContain(`${PUBLIC}/app/domains?domain=example.com`);
    expect(mail.html).toContain(`href="${PUBLIC}/app/domains?domain=example.com"`);
    expect(mail.html).toContain("Acme &lt;Dental&gt;");
    expect(mail.html).not.toContain("Acme <Dental>");
    expect(mail.attachments).toEqual([]);
  });
});

describe("digest mail", () => {
  test("the figures in the body and the same digest as a PDF attachment that parses", async () => {
    const digest = sampleDigest();
    await mailer.send(digestMail({ to: "digest@acme.test", digest, pdf: await renderDigestPdf(digest) }));
    const mail = await capture.waitFor((m) => m.to.includes("digest@acme.test"));
    expect(mail.subject).toBe("[Acme Dental Clinic] Weekly DMARC digest, 4 May 2026 – 10 May 2026");
    for (const part of [mail.text, mail.html]) {
      expect(part).toContain("15,600");
      expect(part).toContain("93.4%");
      expect(part).toContain("203.0.113.9 (mail.spoofer.test)");
      expect(part).toContain("Publish a DMARC record with p=quarantine");
    }
    expect(mail.text).toContain("The same digest is attached as a PDF.");
    expect(mail.attachments.map((a) => [a.filename, a.mimeType])).toEqual([["dmarc-digest-2026-05-04.pdf", "application/pdf"]]);
    const pdf = await getDocumentProxy(mail.attachments[0]!.content);
    const { text } = await extractText(pdf, { mergePages: true });
    expect(text).toContain("Weekly DMARC digest for Acme Dental Clinic");
    expect(text).toContain("15,600");
  });
});
