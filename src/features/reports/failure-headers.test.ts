/** Failure reports store and show the original message's header values decoded (RFC 2047 encoded words), not raw. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";
import { fixture } from "../../../tests/support/report-fixtures";
import { parseFailureReport } from "../../lib/reports/failure";
import { reverseDnsSettled } from "./reverse-dns";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

const SUBJECT = "Überweisung dringend – 100 €";
const encodedSubject = `=?UTF-8?B?${Buffer.from(SUBJECT).toString("base64")}?=`;

test("an encoded Subject and From are stored and shown decoded", async () => {
  const owner = await signedInMember(t.deps.store, "owner");
  await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId: owner.orgId, name: "example.com" }));
  const arf = new TextDecoder()
    .decode(fixture("arf-auth-failure.eml"))
    .replace("Subject: Urgent wire transfer", `Subject: ${encodedSubject}`)
    .replace("From: Boss <boss@example.com>", "From: =?UTF-8?Q?J=C3=BCrgen_Boss?= <boss@example.com>");
  const form = new FormData();
  form.append("files", new File([new TextEncoder().encode(arf)], "arf.eml"));
  const upload = await t.json("POST", "/api/reports/upload", { body: form, cookie: owner.cookie });
  expect(upload.body.results[0].status).toBe("ingested");

  const [listed] = (await t.json("GET", "/api/failure-reports", { cookie: owner.cookie })).body;
  expect(listed.originalSubject).toBe(SUBJECT);
  expect(listed.originalFrom).toBe("Jürgen Boss <boss@example.com>");
  const detail = (await t.json("GET", `/api/failure-reports/${listed.id}`, { cookie: owner.cookie })).body;
  expect(detail.originalSubject).toBe(SUBJECT);
  // the raw header block stays as it came, for those who need the exact bytes
  expect(detail.originalHeaders).toContain(encodedSubject);
});

test("the plain-text notice's original headers are decoded too; a value without encoded words is kept", () => {
  const report = parseFailureReport({
    from: "postmaster@reporter.example",
    subject: "DMARC failure for example.com",
    messageId: "<n-1@reporter.example>",
    date: null,
    text: "Reported Domain: example.com\nSource IP: 192.0.2.7\n",
    feedbackReport: null,
    original: `From: =?ISO-8859-1?Q?Andr=E9?= <a@example.com>\nSubject: =?UTF-8?Q?caf=C3=A9?= and plain\n\nbody`,
    digest: "d1",
  });
  expect(report.originalFrom).toBe("André <a@example.com>");
  expect(report.originalSubject).toBe("café and plain");
});
