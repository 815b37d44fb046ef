import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { renderEmbeddedMigrations, renderEmbeddedPgMigrations } from "../scripts/embed-migrations";
import { makeTestApp, sqliteOnly, type TestApp } from "../tests/support/app";
import { openStore } from "./db";
import { adminUsers, contactSubmissions } from "./db/schema";
import { seedAdmin } from "./features/admin/seed";

let t: TestApp;
afterEach(() => t?.close());

describe("server foundation", () => {
  test("GET /healthz reports the database and version", async () => {
    t = await makeTestApp();
    const res = await t.json("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok", db: "ok", version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
  });

  test("unknown /api paths answer JSON 404 for every method, never the SPA", async () => {
    t = await makeTestApp();
    for (const method of ["GET", "POST", "PUT", "DELETE"]) {
      const res = await t.json(method, "/api/does-not-exist");
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.body).toEqual({ error: { code: "not_found", message: "No such endpoint." } });
    }
  });

  test("app routes that end like a file name get the app; a missing script does not", async () => {
    t = await makeTestApp();
    for (const path of ["/app/senders/ip%3A209.85.220.41", "/app/senders/domain%3Aoutlook.com", "/app/senders/ip%3A2001%3Adb8%3A%3A1"]) {
      const res = await t.request("GET", path);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
    }
    expect((await t.request("GET", "/assets/index-deadbeef12.js")).status).toBe(404);
    expect((await t.request("GET", "/favicon.png")).status).toBe(404);
  });

  test("a client route without a built UI still answers HTML, not JSON", async () => {
    t = await makeTestApp();
    const res = await t.request("GET", "/app/dns");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
  });

  test("state-changing requests from a foreign Origin are refused; same origin is not", async () => {
    t = await makeTestApp();
    const foreign = await t.json("POST", "/api/anything", { body: {}, headers: { origin: "https://evil.example" } });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("x-frame-options")).toBe("DENY");
    expect(foreign.body.error.code).toBe("cross_origin_refused");
    const same = await t.json("POST", "/api/anything", { body: {}, headers: { origin: "http://localhost" } });
    expect(same.status).toBe(404);
  });

  test("without an Origin, a foreign or unreadable Referer is refused the same way; the deployment's own, or neither header, is not", async () => {
    t = await makeTestApp();
    for (const referer of ["https://evil.example/app/domains", "http://localhost.evil.example/", "not a url", "file:///tmp/x.html"]) {
      const res = await t.json("POST", "/api/anything", { body: {}, headers: { referer } });
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: "cross_origin_refused", message: "This request came from another site and was refused. Open the app directly and try again." });
    }
    // the request's own address, and a host the deployment answers on (an organization's custom hostname)
    expect((await t.json("POST", "/api/anything", { body: {}, headers: { referer: "http://localhost/app/domains" } })).status).toBe(404);
    expect((await t.json("POST", "/api/anything", { body: {}, headers: { host: "dmarc.client.example", referer: "https://dmarc.client.example/app" } })).status).toBe(404);
    // neither header (curl, API tokens, webhooks): let through as before
    expect((await t.json("POST", "/api/anything", { body: {} })).status).toBe(404);
    // Origin decides when both are sent
    expect((await t.json("POST", "/api/anything", { body: {}, headers: { origin: "http://localhost", referer: "https://evil.example/" } })).status).toBe(404);
  });

  test("responses carry security headers", async () => {
    t = await makeTestApp();
    const res = await t.request("GET", "/healthz");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
  });

  test("one JSON log line per request with method, path, status and ms — no query string", async () => {
    t = await makeTestApp();
    await t.request("GET", "/healthz?token=secret-value");
    const line = t.logs.map((l) => JSON.parse(l)).find((l) => l.event === "request");
    expect(line).toMatchObject({ method: "GET", path: "/healthz", status: 200 });
    expect(typeof line.ms).toBe("number");
    expect(t.logs.join("\n")).not.toContain("secret-value");
  });
});

describe("database", () => {
  test("the embedded migrations match migrations/ (run `npm run db:generate` after a schema change)", () => {
    const root = join(import.meta.dir, "..");
    expect(readFileSync(join(root, "src/db/migrations.gen.ts"), "utf8")).toBe(renderEmbeddedMigrations(root));
    expect(readFileSync(join(root, "src/db/migrations-pg.gen.ts"), "utf8")).toBe(renderEmbeddedPgMigrations(root));
  });

  test.skipIf(sqliteOnly("a SQLite file's WAL and foreign keys"))("a file database uses WAL and foreign keys, and keeps data across a restart", () => {
    const dir = mkdtempSync(join(tmpdir(), "dw-db-"));
    try {
      const path = join(dir, "nested", "dw.db");
      const first = openStore(path);
      expect(first.sqlite.query<{ journal_mode: string }, []>("PRAGMA journal_mode").get()?.journal_mode).toBe("wal");
      expect(first.sqlite.query<{ foreign_keys: number }, []>("PRAGMA foreign_keys").get()?.foreign_keys).toBe(1);
      first.db.insert(contactSubmissions).values({ name: "Ann", email: "ann@example.com", company: "Acme", requestType: "sales", subject: "Hello there", message: "x".repeat(25) }).run();
      first.close();
      const second = openStore(path);
      expect(second.db.select().from(contactSubmissions).all()).toHaveLength(1);
      second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("seeding the admin twice updates the password and never duplicates", async () => {
    const store = openStore(":memory:");
    expect(await seedAdmin({ store }, "root", "first-password")).toBe("created");
    expect(await seedAdmin({ store }, "root", "second-password")).toBe("updated");
    const rows = await store.db.select().from(adminUsers).where(eq(adminUsers.username, "root"));
    expect(rows).toHaveLength(1);
    expect(await Bun.password.verify("second-password", rows[0]!.passwordHash)).toBe(true);
    expect(rows[0]!.passwordHash).toStartWith("$argon2id$");
    store.close();
  });
});
