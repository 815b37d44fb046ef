/**
 * A throw-away PostgreSQL cluster for tests: Debian's server binaries, `initdb` into a
 * temporary directory, started on a free 127.0.0.1 port with its socket in that directory,
 * and removed by `stop()`. PostgreSQL refuses to run as root, so under root (here and in CI)
 * the cluster runs as the `postgres` user the Debian package creates.
 *
 * `postgresMissing` is null when the binaries are installed, otherwise the reason to print
 * with a skip. Tests get a fresh database each through `createDatabase()`.
 */
import { spawnSync } from "bun";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { SQL } from "bun";

function findBinDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, "bin", "initdb")))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], "bin") : null;
}

export const POSTGRES_BIN = findBinDir();
export const postgresMissing: string | null = POSTGRES_BIN ? null : "PostgreSQL is not installed (apt-get install postgresql; .ci/run does this)";

export interface PostgresCluster {
  port: number;
  /** superuser URL of one database of the cluster */
  url(database?: string): string;
  /** creates an empty database (optionally from a template) and returns its URL */
  createDatabase(name?: string, template?: string): Promise<string>;
  log(): string;
  stop(): Promise<void>;
}

const SUPERUSER = "dw";

function asPostgres(args: string[]): string[] {
  return userInfo().uid === 0 ? ["runuser", "-u", "postgres", "--", ...args] : args;
}

function run(args: string[]): void {
  const res = spawnSync(asPostgres(args), { stdout: "pipe", stderr: "pipe" });
  if (res.exitCode !== 0) throw new Error(`${args[0]} failed (${res.exitCode}): ${res.stderr.toString()}${res.stdout.toString()}`);
}

async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

let counter = 0;

export async function startPostgres(): Promise<PostgresCluster> {
  if (!POSTGRES_BIN) throw new Error(postgresMissing!);
  const dir = mkdtempSync(join(tmpdir(), "dw-pg-"));
  chmodSync(dir, 0o755);
  if (userInfo().uid === 0) {
    const uid = Number(spawnSync(["id", "-u", "postgres"]).stdout.toString().trim());
    const gid = Number(spawnSync(["id", "-g", "postgres"]).stdout.toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const logFile = join(dir, "postgres.log");
  run([join(POSTGRES_BIN, "initdb"), "-D", data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  // fsync off: a test cluster never needs to survive a power cut, and it makes CREATE DATABASE quick
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400`;
  run([join(POSTGRES_BIN, "pg_ctl"), "-D", data, "-o", options, "-l", logFile, "-w", "-t", "60", "start"]);
  const url = (database = "postgres") => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
  const admin = new SQL(url());
  return {
    port,
    url,
    async createDatabase(name, template) {
      const db = name ?? `t${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
      if (!/^[a-z0-9_]+$/.test(db)) throw new Error(`bad database name ${db}`);
      await admin.unsafe(`CREATE DATABASE ${db}${template ? ` TEMPLATE ${template}` : ""}`);
      return url(db);
    },
    log: () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : ""),
    async stop() {
      await admin.close().catch(() => {});
      try {
        run([join(POSTGRES_BIN!, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"]);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/**
 * The benches' PostgreSQL database: the URL given, else a database in a throw-away cluster
 * started here; `stop` removes that cluster (nothing when a URL was given).
 */
export async function benchDatabase(given: string | null | undefined): Promise<{ url: string; stop: () => Promise<void> }> {
  if (given) return { url: given, stop: async () => {} };
  console.log("starting a throw-away PostgreSQL cluster…");
  const cluster = await startPostgres();
  return { url: await cluster.createDatabase(), stop: () => cluster.stop() };
}
