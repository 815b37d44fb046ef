/**
 * The tasks add up the unrecognised senders of a domain (IPs without reverse DNS and without a
 * mark of their own) from the daily sender roll-ups; an IP the user marked as theirs stays a
 * sender of its own and gets its set-up task.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { strToU8 } from "fflate";
import { domainRecordHistory, domains } from "../../src/db/schema";
import { ingestFile } from "../../src/features/reports/ingest";
import { reverseDnsSettled } from "../../src/features/reports/reverse-dns";
import { aggregateXml, type GeneratedRecord } from "../../src/lib/reports/generate";
import { makeTestApp, type TestApp } from "../support/app";
import { signedInMember, type SignedIn } from "../support/fixtures";

const DAY = 86_400_000;
const NOW = new Date(Math.floor(Date.now() / 1000) * 1000);
const ago = (ms: number) => new Date(NOW.getTime() - ms);
const reverse = async (ip: string) => (ip === "167.89.1.1" ? ["o1.ptr1234.sendgrid.net"] : []);

let t: TestApp;
let owner: SignedIn;
beforeEach(async () => {
  t = await makeTestApp({ deps: { now: () => NOW, resolver: { reverse } as never } });
  owner = await signedInMember(t.deps.store, "owner", "Acme Dental");
  const db = t.deps.store.db;
  const [row] = await db
    .insert(domains)
    .values({ orgId: owner.orgId, name: "shop.example", dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial", createdAt: ago(60 * DAY), lastCheckedAt: ago(DAY) })
    .returning({ id: domains.id });
  await db.insert(domainRecordHistory).values({
    orgId: owner.orgId, domainId: row!.id, checkedAt: ago(10 * DAY), dmarcRecord: "v=DMARC1; p=none; rua=mailto:dmarc@shop.example", spfRecord: "v=spf1 -all", dkimRecord: null,
    dmarcPolicy: "none", spfStatus: "valid", dkimStatus: "valid", overallStatus: "partial",
  });
});
afterEach(() => t.close());

const fail = (ip: string, count: number): GeneratedRecord => ({ sourceIp: ip, count, dkim: "fail", spf: "fail", disposition: "none" });

async function ingest(reportId: string, records: GeneratedRecord[], daysAgo: number) {
  const begin = ago(daysAgo * DAY);
  const xml = aggregateXml({ orgName: "google.com", reportId, begin, end: new Date(begin.getTime() + DAY - 1000), domain: "shop.example", p: "none", records });
  expect((await ingestFile(t.deps, { orgId: owner.orgId, fileName: `${reportId}.xml`, bytes: strToU8(xml), source: "upload" })).status).toBe("ingested");
  await reverseDnsSettled();
}

const tasks = async () => (await t.json("GET", "/api/tasks", { cookie: owner.cookie })).body as { title: string; description: string }[];

test("unrecognised IPs are added up per domain over the days; an IP marked as yours is its own sender", async () => {
  // three unnamed IPs (one of them on two days) and a named service, all failing and delivered
  await ingest("a", [fail("198.51.100.7", 30), fail("198.51.100.8", 12), fail("167.89.1.1", 40)], 3);
  await ingest("b", [fail("198.51.100.7", 5), fail("203.0.113.9", 3)], 2);
  let none = (await tasks()).find((x) => x.title === "Move shop.example from p=none to quarantine")!;
  expect(none.description).toContain("50 messages from 3 unrecognised sources failed DMARC and reached inboxes");
  expect((await tasks()).map((x) => x.title)).toContain("Authenticate Twilio SendGrid for shop.example");

  const marked = await t.json("PUT", `/api/senders/${encodeURIComponent("ip:198.51.100.7")}/mark`, { cookie: owner.cookie, body: { verdict: "approved" } });
  expect(marked.status).toBe(200);
  const after = await tasks();
  none = after.find((x) => x.title === "Move shop.example from p=none to quarantine")!;
  expect(none.description).toContain("15 messages from 2 unrecognised sources failed DMARC and reached inboxes");
  const own = after.find((x) => x.title === "Authenticate 198.51.100.7 for shop.example")!;
  expect(own.description).toContain("35 messages");
});
