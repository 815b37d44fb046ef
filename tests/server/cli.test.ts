/**
 * The command line as a user meets it: `bun src/main.ts …` run as a subprocess. Bad flags and
 * variables give one line naming them and exit 2; flags of other commands are refused; help is
 * complete and aligned; ingest, seed-demo and serve --seed-demo say what happened.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fixtureZone, startDnsServer, type TestDnsServer } from "../support/dns-server";
import { sampleAggregate, xmlBytes } from "../support/report-fixtures";

const MAIN = join(import.meta.dir, "../../src/main.ts");
let dir: string;
let dns: TestDnsServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dw-cli-"));
  dns = await startDnsServer(fixtureZone());
});
afterAll(async () => {
  await dns?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { cwd: dir, env: { PATH: process.env.PATH ?? "", HOME: dir, ...env }, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { out, err, code };
}

/** One line on stderr, exit 2, no stack trace. */
function refusedInOneLine(r: { err: string; code: number }, ...mentions: string[]) {
  expect(r.code).toBe(2);
  expect(r.err.trim().split("\n")).toHaveLength(1);
  expect(r.err).not.toMatch(/\n\s+at /);
  for (const m of mentions) expect(r.err).toContain(m);
}

describe("bad flags and variables: one line naming them, exit 2", () => {
  test("a --dns-server with a bad port, for check and serve", async () => {
    refusedInOneLine(await cli(["check", "good.test", "--dns-server", "nope:99999"]), "--dns-server", "nope:99999");
    refusedInOneLine(await cli(["check", "good.test", "--dns-server", "127.0.0.1:0"]), "--dns-server", "1 to 65535");
    refusedInOneLine(await cli(["serve", "--db", join(dir, "never.db"), "--dns-server", "nope:99999"]), "--dns-server");
    refusedInOneLine(await cli(["check", "good.test"], { DNS_SERVERS: "127.0.0.1:70000" }), "DNS_SERVERS");
    expect(existsSync(join(dir, "never.db"))).toBe(false);
  });

  test("a --seed-admin password that is too short", async () => {
    refusedInOneLine(await cli(["serve", "--db", join(dir, "never.db"), "--seed-admin", "admin:short"]), "--seed-admin", "at least 10 characters");
    refusedInOneLine(await cli(["serve", "--db", join(dir, "never.db")], { ADMIN_USERNAME: "admin", ADMIN_PASSWORD: "short" }), "ADMIN_PASSWORD");
    expect(existsSync(join(dir, "never.db"))).toBe(false);
  });

  test("unknown and irrelevant flags are refused with a pointer to --help", async () => {
    refusedInOneLine(await cli(["serve", "-p", "9000"]), "-p", "dmarcwarden serve --help");
    refusedInOneLine(await cli(["migrate", "--port", "9999"]), "--port is not a flag of migrate", "dmarcwarden migrate --help");
    refusedInOneLine(await cli(["check", "good.test", "--db", "x.db"]), "--db is not a flag of check");
    refusedInOneLine(await cli(["serve", "extra"]), '"extra"', "--help");
  });

  test("a command reads only its own variables: PORT=abc does not break check", async () => {
    const r = await cli(["check", "good.test", "--dns-server", dns.address, "--smtp-probe-port", "0"], { PORT: "abc", DATABASE_PATH: "/nonexistent/x.db" });
    expect(r.err).not.toContain("PORT");
    expect(r.out).toContain("good.test");
    expect(r.code).toBe(0);
    refusedInOneLine(await cli(["migrate", "--db", join(dir, "never.db")], { LOG_LEVEL: "loud" }), "LOG_LEVEL");
  });
});

describe("a database or port that cannot be used: one line naming the flag, exit 2", () => {
  test("--db where no folder can be made, --database-url that refuses, --port in use", async () => {
    refusedInOneLine(await cli(["migrate", "--db", "/proc/no-such/dw.db"]), "--db /proc/no-such/dw.db", "cannot open the database");
    refusedInOneLine(await cli(["seed-demo", "--db", "/proc/dw.db"]), "--db /proc/dw.db", "cannot open the database");
    const refused = await cli(["migrate", "--database-url", "postgres://dw:s3cret@127.0.0.1:1/dw"]);
    refusedInOneLine(refused, "--database-url postgres://dw:***@127.0.0.1:1/dw", "cannot open the database");
    expect(refused.err).not.toContain("s3cret");
    const busy = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    try {
      refusedInOneLine(await cli(["serve", "--db", join(dir, "busy.db"), "--host", "127.0.0.1", "--port", String(busy.port), "--dns-check-interval", "0", "--imap-poll-interval", "0"]), `--port ${busy.port}`, "cannot listen");
    } finally {
      busy.stop(true);
    }
  }, 60_000);
});

describe("help", () => {
  const columns = (help: string) => {
    const lines = help.split("\n").filter((l) => l.startsWith("  --"));
    return new Set(lines.map((l) => /^ {2}--\S+(?: \S+)? +/.exec(l)![0].length));
  };

  test("check --help lists --json and not --db; ingest --help lists the DNS flags it uses", async () => {
    const check = await cli(["check", "--help"]);
    expect(check.out).toContain("--json");
    expect(check.out).not.toContain("--db");
    const ingest = await cli(["ingest", "--help"]);
    expect(ingest.out).toContain("--dns-server");
    expect(ingest.out).toContain("--dns-timeout");
  });

  test("the descriptions of each command's flags start in one column", async () => {
    for (const command of ["serve", "check", "ingest", "migrate", "seed-demo", "digest", "migrate-store"]) {
      const help = (await cli([command, "--help"])).out;
      expect(help).toContain("Flags:");
      expect([command, columns(help).size]).toEqual([command, 1]);
    }
  });
});

describe("ingest", () => {
  test("a missing path is said in one line; a mistyped --db creates no file", async () => {
    const db = join(dir, "ingest-missing.db");
    refusedInOneLine(await cli(["ingest", "--org", "acme", "--db", db, join(dir, "nope.xml")]), "nope.xml", "no such file");
    writeFileSync(join(dir, "one.xml"), xmlBytes(sampleAggregate("example.com", { reportId: "cli-one" })));
    refusedInOneLine(await cli(["ingest", "--org", "acme", "--db", join(dir, "typo.db"), join(dir, "one.xml")]), "typo.db", "no database");
    expect(existsSync(join(dir, "typo.db"))).toBe(false);
  });
});

describe("seed-demo and serve --seed-demo", () => {
  test("--reset-password gives the demo owner a new password; serve --seed-demo prints the sign-in last", async () => {
    const db = join(dir, "demo.db");
    const first = await cli(["seed-demo", "--db", db]);
    expect(first.code).toBe(0);
    const password = /Sign in as \S+ with password (\S+)/.exec(first.out)?.[1];
    expect(password).toBeTruthy();
    const again = await cli(["seed-demo", "--db", db]);
    expect(again.out).toContain("its password is unchanged");
    expect(again.out).toContain("--reset-password");
    const reset = await cli(["seed-demo", "--db", db, "--reset-password"]);
    const next = /Sign in as \S+ with password (\S+)/.exec(reset.out)?.[1];
    expect(next).toBeTruthy();
    expect(next).not.toBe(password);

    // serve: the sign-in comes after the start-up log, as the last thing printed
    const proc = Bun.spawn([process.execPath, MAIN, "serve", "--db", join(dir, "serve-demo.db"), "--port", "0", "--host", "127.0.0.1", "--seed-demo", "--dns-check-interval", "0", "--imap-poll-interval", "0", "--alert-delivery-interval", "0"], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOME: dir, DW_DIST: dir },
      stdout: "pipe",
      stderr: "pipe",
    });
    let out = "";
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    try {
      while (!/Sign in as \S+ with password \S+[\s\S]*\n\n/.test(out)) {
        const chunk = await reader.read();
        if (chunk.done) break;
        out += decoder.decode(chunk.value, { stream: true });
      }
    } finally {
      proc.kill();
      await proc.exited;
    }
    const signIn = out.indexOf("Sign in as");
    expect(signIn).toBeGreaterThan(0);
    expect(out.indexOf('"event":"listening"')).toBeGreaterThan(-1);
    expect(out.indexOf('"event":"listening"')).toBeLessThan(signIn);
    expect(out.slice(signIn)).not.toContain('"event"');
  }, 120_000);
});
