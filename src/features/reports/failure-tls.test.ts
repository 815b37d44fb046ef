/** GET /api/failure-reports(/:id) and /api/tls-reports(/:id): lists, details, limits, tenant isolation. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember, type SignedIn } from "../../../tests/support/fixtures";
import { fixture, tlsReportJson } from "../../../tests/support/report-fixtures";
import { reverseDnsSettled } from "./reverse-dns";

let t: TestApp;
beforeEach(async () => {
  t = await makeTestApp();
});
afterEach(async () => {
  await reverseDnsSettled();
  t.close();
});

async function memberWithDomain(role: "owner" | "viewer" = "owner", domain = "example.com"): Promise<SignedIn> {
  const who = await signedInMember(t.deps.store, role);
  await t.deps.store.write((tx) => tx.insert(t.deps.store.t.domains).values({ orgId: who.orgId, name: domain }));
  return who;
}

async function upload(who: SignedIn, files: { name: string; bytes: Uint8Array }[]) {
  const form = new FormData();
  for (const f of files) form.append("files", new File([f.bytes as Uint8Array<ArrayBuffer>], f.name));
  const res = await t.json("POST", "/api/reports/upload", { body: form, cookie: who.cookie });
  expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(files.map(() => "ingested"));
  return res.body.results.map((r: { reports: { id: string }[] }) => r.reports[0]!.id) as string[];
}

/** A TLS report for `domain` covering the day `day` (YYYY-MM-DD). */
function tlsFor(domain: string, reportId: string, day: string, failures = 0): Uint8Array {
  const doc = JSON.parse(new TextDecoder().decode(tlsReportJson(domain, reportId)));
  doc["date-range"] = { "start-datetime": `${day}T00:00:00Z`, "end-datetime": `${day}T23:59:59Z` };
  doc.policies[0].summary["total-failure-session-count"] = failures;
  if (!failures) doc.policies[0]["failure-details"] = [];
  return new TextEncoder().encode(JSON.stringify(doc));
}

describe("failure reports", () => {
  test("the list has the summary fields, newest first; the detail has every stored field", async () => {
    const owner = await memberWithDomain("owner");
    const [arfId, plainId] = await upload(owner, [
      { name: "arf.eml", bytes: fixture("arf-auth-failure.eml") },
      { name: "plain.eml", bytes: fixture("plain-failure-notice.eml") },
    ]);
    const viewer = await signedInMember(t.deps.store, "viewer");
    const list = await t.json("GET", "/api/failure-reports", { cookie: owner.cookie });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(2);
    const arf = list.body.find((r: { id: string }) => r.id === arfId);
    expect(arf).toEqual({
      id: arfId,
      domain: "example.com",
      reporterOrg: "reporter.example",
      sourceIp: "192.0.2.1",
      country: null,
      arrivalDate: "2024-01-02T09:59:00.000Z",
      authFailure: "dmarc",
      originalFrom: expect.stringContaining("boss@example.com"),
      originalSubject: "Urgent wire transfer",
    });

    const detail = await t.json("GET", `/api/failure-reports/${arfId}`, { cookie: owner.cookie });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ ...arf, feedbackType: "auth-failure", plainText: false, source: "upload", fileName: "arf.eml", originalMessageId: expect.stringContaining("orig-1@example.com") });
    expect(detail.body.originalHeaders).toContain("Subject: Urgent wire transfer");
    expect(Object.keys(detail.body)).toEqual(
      expect.arrayContaining(["reportId", "ptr", "authenticationResults", "identityAlignment", "deliveryResult", "dkimDomain", "dkimSelector", "spfDns", "originalMailFrom", "originalRcptTo", "processedAt"]),
    );
    expect((await t.json("GET", `/api/failure-reports/${plainId}`, { cookie: owner.cookie })).body.plainText).toBe(true);
    // a viewer of another organisation sees none of it
    expect((await t.json("GET", "/api/failure-reports", { cookie: viewer.cookie })).body).toEqual([]);
  });

  test("newest first by arrival date", async () => {
    const owner = await memberWithDomain();
    const arf = new TextDecoder().decode(fixture("arf-auth-failure.eml"));
    const later = arf.replace("Arrival-Date: Tue, 2 Jan 2024 09:59:00 +0000", "Arrival-Date: Wed, 3 Jan 2024 09:59:00 +0000").replaceAll("arf-1@reporter.example", "arf-2@reporter.example");
    const [earlyId, laterId] = await upload(owner, [
      { name: "early.eml", bytes: fixture("arf-auth-failure.eml") },
      { name: "later.eml", bytes: new TextEncoder().encode(later) },
    ]);
    const list = await t.json("GET", "/api/failure-reports", { cookie: owner.cookie });
    expect(list.body.map((r: { id: string }) => r.id)).toEqual([laterId, earlyId]);
    expect((await t.json("GET", "/api/failure-reports?limit=1", { cookie: owner.cookie })).body.map((r: { id: string }) => r.id)).toEqual([laterId]);
  });

  test("another organization's report is not found; signed out is 401", async () => {
    const owner = await memberWithDomain();
    const stranger = await memberWithDomain();
    const [id] = await upload(owner, [{ name: "arf.eml", bytes: fixture("arf-auth-failure.eml") }]);
    const res = await t.json("GET", `/api/failure-reports/${id}`, { cookie: stranger.cookie });
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
    expect((await t.json("GET", "/api/failure-reports", { cookie: stranger.cookie })).body).toEqual([]);
    expect((await t.json("GET", "/api/failure-reports")).status).toBe(401);
    expect((await t.json("GET", `/api/failure-reports/${id}`)).status).toBe(401);
  });
});

describe("SMTP TLS reports", () => {
  test("the list has the summary fields, newest period first; the detail has the parsed policies", async () => {
    const owner = await memberWithDomain();
    const [olderId, newerId] = await upload(owner, [
      { name: "tls-1.json", bytes: tlsFor("example.com", "tls-old", "2024-03-01") },
      { name: "tls-2.json", bytes: tlsFor("example.com", "tls-new", "2024-03-08", 3) },
    ]);
    const list = await t.json("GET", "/api/tls-reports", { cookie: owner.cookie });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      { id: newerId, policyDomain: "example.com", reporterOrg: "Google Inc.", dateBegin: "2024-03-08T00:00:00.000Z", dateEnd: "2024-03-08T23:59:59.000Z", successfulSessions: 1200, failedSessions: 3 },
      { id: olderId, policyDomain: "example.com", reporterOrg: "Google Inc.", dateBegin: "2024-03-01T00:00:00.000Z", dateEnd: "2024-03-01T23:59:59.000Z", successfulSessions: 1200, failedSessions: 0 },
    ]);
    const detail = await t.json("GET", `/api/tls-reports/${newerId}`, { cookie: owner.cookie });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({ ...list.body[0], reportId: "tls-new", contactInfo: "smtp-tls-reporting@google.com", source: "upload", fileName: "tls-2.json" });
    expect(detail.body.policies).toHaveLength(1);
    expect(detail.body.policies[0]).toMatchObject({ policyType: "sts", policyDomain: "example.com", mxHost: ["mx1.example.com"], successfulSessions: 1200, failedSessions: 3 });
    expect(detail.body.policies[0].failureDetails[0]).toMatchObject({ resultType: "certificate-expired", sendingMtaIp: "209.85.220.41", receivingMxHostname: "mx1.example.com", failedSessionCount: 3, failureReasonCode: "X509_V_ERR_CERT_HAS_EXPIRED" });
  });

  test("another organization's report is not found; signed out is 401", async () => {
    const owner = await memberWithDomain();
    const stranger = await memberWithDomain();
    const [id] = await upload(owner, [{ name: "tls.json", bytes: tlsFor("example.com", "tls-x", "2024-03-01") }]);
    expect((await t.json("GET", `/api/tls-reports/${id}`, { cookie: stranger.cookie })).status).toBe(404);
    expect((await t.json("GET", "/api/tls-reports", { cookie: stranger.cookie })).body).toEqual([]);
    expect((await t.json("GET", "/api/tls-reports")).status).toBe(401);
  });

  test("?limit= is 1 to 1000, 200 when not given", async () => {
    const owner = await memberWithDomain();
    const { store } = t.deps;
    const [domain] = await store.db.select({ id: store.t.domains.id }).from(store.t.domains).where(eq(store.t.domains.orgId, owner.orgId));
    const day = (i: number, end = 0) => new Date((1_700_000_000 + i * 86_400 + end) * 1000);
    const rows = Array.from({ length: 205 }, (_, i) => ({
      orgId: owner.orgId,
      domainId: domain!.id,
      policyDomain: "example.com",
      reporterOrg: "r",
      reportId: `bulk-${i}`,
      dateBegin: day(i),
      dateEnd: day(i, 86_399),
      successfulSessions: 1,
      failedSessions: 0,
      policies: "[]",
      source: "cli",
      processedAt: new Date(0),
    }));
    await store.write(async (tx) => {
      for (let i = 0; i < rows.length; i += 100) await tx.insert(store.t.tlsReports).values(rows.slice(i, i + 100));
    });
    expect((await t.json("GET", "/api/tls-reports", { cookie: owner.cookie })).body).toHaveLength(200);
    expect((await t.json("GET", "/api/tls-reports?limit=205", { cookie: owner.cookie })).body).toHaveLength(205);
    expect((await t.json("GET", "/api/tls-reports?limit=3", { cookie: owner.cookie })).body).toHaveLength(3);
    for (const bad of ["0", "1001", "abc", "2.5"]) {
      for (const path of ["/api/tls-reports", "/api/failure-reports"]) {
        const res = await t.json("GET", `${path}?limit=${bad}`, { cookie: owner.cookie });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toContain("limit must be a whole number from 1 to 1000");
      }
    }
  });
});
