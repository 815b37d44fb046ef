/**
 * Hostile report files against the built executable: a 4 KB gzip of a 4 MB "<!" run, a
 * 1.2 MB gzip of a ~180 MB one (inside the decompression limits), a report with a 20 MB
 * <org_name>, and the same "<!" trick mailed to the organisation's report address without any
 * account — all at once, while /healthz is polled. Every one is refused with its reason, every
 * poll is answered, and the server's peak memory stays within a bound.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Gzip, gzipSync, strToU8 } from "fflate";
import { readFileSync } from "node:fs";
import { aggregateXml } from "../../src/lib/reports/generate";
import { sampleAggregate } from "../support/report-fixtures";
import { freePort, startServer, type RunningServer } from "../support/server";
import { sendMail } from "../support/smtp";

let server: RunningServer;
let smtpPort: number;
let cookie = "";

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(server.url + path, { method, headers: { cookie, origin: server.url, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: (await res.json().catch(() => null)) as any, headers: res.headers };
}

async function upload(name: string, bytes: Uint8Array) {
  const form = new FormData();
  form.append("files", new File([bytes as Uint8Array<ArrayBuffer>], name));
  const res = await fetch(server.url + "/api/reports/upload", { method: "POST", headers: { cookie, origin: server.url }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

/** the server's peak resident memory so far, in bytes (Linux: VmHWM) */
function peakRss(pid: number): number {
  const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1];
  if (!kb) throw new Error("VmHWM not found");
  return Number(kb) * 1024;
}

const MALFORMED_START = '<?xml version="1.0" encoding="UTF-8"?>\n<feedback><!';

/** gzip of MALFORMED_START followed by `mb` MB of text that compresses about 150× (under the 200× ratio bound). */
function malformedGzip(mb: number): Uint8Array {
  const parts: Uint8Array[] = [];
  const gz = new Gzip({ level: 6 }, (chunk) => parts.push(chunk));
  gz.push(strToU8(MALFORMED_START));
  let seed = 1;
  const letter = () => String.fromCharCode(97 + ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % 26));
  let segment = "";
  while (segment.length < 1024 * 1024) segment += "x".repeat(600) + letter();
  const bytes = strToU8(segment);
  for (let i = 0; i < mb; i++) gz.push(bytes);
  gz.push(new Uint8Array(0), true);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
}

beforeAll(async () => {
  smtpPort = await freePort();
  server = await startServer({ args: ["--smtp-port", String(smtpPort), "--smtp-host", "127.0.0.1", "--smtp-domain", "reports.dmarcwarden.test"] });
  const signup = await api("POST", "/api/auth/signup", { name: "Ada Admin", email: "ada@example.com", password: "a-long-password-1", organization: "Example Ltd" });
  expect(signup.status).toBeLessThan(300);
  cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  expect((await api("POST", "/api/domains", { name: "example.com" })).status).toBeLessThan(300);
}, 300_000);
afterAll(async () => {
  await server?.stop();
});

test("hostile reports by upload and by mail are refused at once; /healthz answers throughout; memory stays bounded", async () => {
  const fourMb = gzipSync(strToU8(MALFORMED_START + "x".repeat(4 * 1024 * 1024)));
  const huge = malformedGzip(180);
  expect(fourMb.length).toBeLessThan(8 * 1024);
  expect(huge.length).toBeGreaterThan(900 * 1024);
  expect(huge.length).toBeLessThan(180 * 1024 * 1024 / 100);
  const longOrg = gzipSync(strToU8(aggregateXml(sampleAggregate("example.com", { orgName: "o".repeat(20 * 1024 * 1024) }))));
  const address = (await api("GET", "/api/settings/report-address")).body.address as string;
  const body = MALFORMED_START + "x".repeat(216 * 1024);
  const mail = [`From: reports@reporter.example`, `To: ${address}`, "Subject: Report domain: example.com", "Content-Type: text/xml; charset=utf-8", "", ...(body.match(/.{1,76}/gs) ?? [])].join("\r\n");

  // warm up (a real report through the same path), then take the baseline
  const fine = await upload("fine.xml.gz", gzipSync(strToU8(aggregateXml(sampleAggregate("example.com", { reportId: "fine" })))));
  expect(fine.body.results[0].status).toBe("ingested");
  const pid = server.proc.pid;
  const baseline = peakRss(pid);

  let running = true;
  const health: number[] = [];
  const polling = (async () => {
    for (let i = 0; i < 100_000 && (running || health.length < 2); i++) {
      const res = await fetch(server.url + "/healthz").catch(() => null);
      health.push(res?.status ?? 0);
      await res?.arrayBuffer();
    }
  })();

  const uploads = Promise.all([
    ...[1, 2, 3].map((n) => upload(`small-${n}.xml.gz`, fourMb)),
    ...[1, 2, 3, 4].map((n) => upload(`huge-${n}.xml.gz`, huge)),
    upload("long-org.xml.gz", longOrg),
  ]);
  const mails = Promise.all([1, 2].map(() => sendMail(smtpPort, { from: "reports@reporter.example", to: [address] }, mail)));
  const [uploaded, mailed] = await Promise.all([uploads, mails]);
  running = false;
  await polling;

  for (const res of uploaded.slice(0, 7)) {
    expect(res.status).toBe(200);
    expect(res.body.results[0]).toMatchObject({ status: "rejected", error: "The XML is malformed (incorrect syntax); it was refused. Ask the reporter for a well-formed report." });
  }
  expect(uploaded[7]!.status).toBe(413);
  expect(uploaded[7]!.body.error.message).toBe("The XML has a text, attribute value or comment in <org_name> longer than 65,536 characters, more than any report field needs; it was refused.");
  for (const sent of mailed) {
    expect(sent.accepted).toBe(false);
    expect(sent.responseCode).toBe(554);
    expect(sent.response).toContain("Report refused: The XML is malformed (incorrect syntax)");
  }

  expect(health.length).toBeGreaterThanOrEqual(2);
  expect(health.every((status) => status === 200)).toBe(true);
  // a refused report costs a few times its own size, not gigabytes: 4 × 1.2 MB + the rest
  expect(peakRss(pid) - baseline).toBeLessThan(100 * 1024 * 1024);
  expect((await api("GET", "/api/dmarc-reports")).body.map((r: { reportId: string }) => r.reportId)).toEqual(["fine"]);
}, 300_000);
