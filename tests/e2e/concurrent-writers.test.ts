/**
 * Two processes writing one SQLite file: the executable's `ingest` CLI ingests report files
 * while the running server takes uploads of the same and other files in parallel. No file is
 * refused for contention, and every distinct report is stored exactly once.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "fflate";
import { aggregateXml, type GeneratedAggregate } from "../../src/lib/reports/generate";
import { EXECUTABLE, startServer, type RunningServer } from "../support/server";

const REPORTS = 240;
/** reports 0..159 go through the CLI, 80..239 through uploads: 80..159 through both */
const CLI_RANGE = [0, 160] as const;
const UPLOAD_RANGE = [80, 240] as const;
const UPLOAD_BATCH = 10;
const PARALLEL_UPLOADS = 4;
/** PTR look-ups (written by both processes too) go to a port where nothing answers, never out */
const DNS_FLAGS = ["--dns-server", "127.0.0.1:9", "--dns-timeout", "100"];

let server: RunningServer;
let cookie = "";
let slug = "";

function report(i: number): GeneratedAggregate {
  return {
    orgName: i % 2 ? "google.com" : "outlook.com",
    reportId: `contended-${i}`,
    begin: new Date(Date.UTC(2024, 0, 1 + (i % 28))),
    end: new Date(Date.UTC(2024, 0, 1 + (i % 28), 23, 59, 59)),
    domain: "example.com",
    records: Array.from({ length: 40 }, (_, r) => ({
      sourceIp: `192.0.2.${(i + r) % 250}`,
      count: 1 + r,
      dkim: r % 3 ? "pass" : "fail",
      spf: r % 2 ? "pass" : "fail",
      dkimAuth: [{ domain: "example.com", selector: "s1", result: r % 3 ? "pass" : "fail" }],
      spfAuth: [{ domain: "example.com", result: r % 2 ? "pass" : "fail" }],
    })),
  };
}

const fileName = (i: number) => `google.com!example.com!${i}.xml.gz`;
const fileBytes = (i: number) => gzipSync(new TextEncoder().encode(aggregateXml(report(i))));

beforeAll(async () => {
  server = await startServer({ args: DNS_FLAGS });
  const signup = await fetch(server.url + "/api/auth/signup", {
    method: "POST",
    headers: { origin: server.url, "content-type": "application/json" },
    body: JSON.stringify({ name: "Ada Admin", email: "ada@example.com", password: "a-long-password-1", organization: "Example Ltd" }),
  });
  expect(signup.status).toBeLessThan(300);
  cookie = signup.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const domain = await fetch(server.url + "/api/domains", { method: "POST", headers: { origin: server.url, cookie, "content-type": "application/json" }, body: JSON.stringify({ name: "example.com" }) });
  expect(domain.status).toBeLessThan(300);
  const db = new Database(server.dbPath, { readonly: true });
  slug = db.query<{ slug: string }, []>("SELECT slug FROM organizations").get()!.slug;
  db.close();
}, 180_000);
afterAll(async () => {
  await server?.stop();
});

test("the CLI and the server ingesting at the same time refuse nothing and store every report once", async () => {
  const cliDir = join(server.dir, "cli-reports");
  mkdirSync(cliDir);
  for (let i = CLI_RANGE[0]; i < CLI_RANGE[1]; i++) writeFileSync(join(cliDir, fileName(i)), fileBytes(i));

  const cli = Bun.spawn([EXECUTABLE, "ingest", "--org", slug, "--db", server.dbPath, ...DNS_FLAGS, cliDir], {
    cwd: server.dir,
    env: { PATH: process.env.PATH ?? "", HOME: server.dir },
    stdout: "pipe",
    stderr: "pipe",
  });

  const batches: number[][] = [];
  for (let i = UPLOAD_RANGE[0]; i < UPLOAD_RANGE[1]; i += UPLOAD_BATCH) batches.push(Array.from({ length: Math.min(UPLOAD_BATCH, UPLOAD_RANGE[1] - i) }, (_, k) => i + k));
  const uploadResults: { status: number; body: any }[] = [];
  const uploader = async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) {
      const form = new FormData();
      for (const i of batch) form.append("files", new File([fileBytes(i)], fileName(i)));
      const res = await fetch(server.url + "/api/reports/upload", { method: "POST", headers: { origin: server.url, cookie }, body: form });
      uploadResults.push({ status: res.status, body: await res.json() });
    }
  };
  await Promise.all(Array.from({ length: PARALLEL_UPLOADS }, uploader));
  const [cliExit, cliOut, cliErr] = await Promise.all([cli.exited, new Response(cli.stdout).text(), new Response(cli.stderr).text()]);

  // the CLI: every file read, none refused
  expect(cliErr).not.toContain("database is locked");
  expect(cliOut).toContain(`${CLI_RANGE[1] - CLI_RANGE[0]} file(s) read`);
  expect(cliOut).toContain("0 refused");
  expect(cliExit).toBe(0);

  // the uploads: every file ingested or a duplicate of what the CLI stored
  expect(uploadResults.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
  const files = uploadResults.flatMap((r) => r.body.results as { fileName: string; status: string; error?: string }[]);
  expect(files).toHaveLength(UPLOAD_RANGE[1] - UPLOAD_RANGE[0]);
  expect(files.filter((f) => f.status === "rejected").map((f) => `${f.fileName}: ${f.error}`)).toEqual([]);
  expect(server.output()).not.toContain("database is locked");

  // the database: each distinct report exactly once, with all its records
  const db = new Database(server.dbPath, { readonly: true });
  try {
    const rows = db.query<{ report_id: string; n: number; records: number }, []>(
      "SELECT r.report_id, count(*) AS n, (SELECT count(*) FROM aggregate_records x WHERE x.report_seq = max(r.seq)) AS records FROM aggregate_reports r GROUP BY r.report_id",
    ).all();
    expect(rows).toHaveLength(REPORTS);
    expect(rows.filter((r) => r.n !== 1)).toEqual([]);
    expect(rows.filter((r) => r.records !== 40)).toEqual([]);
  } finally {
    db.close();
  }
}, 300_000);
