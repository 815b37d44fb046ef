/**
 * The server key that encrypts stored secrets. From `--secret-key` / SECRET_KEY when given;
 * otherwise read from `<db>.key` beside the database, which is created (32 random bytes,
 * base64, mode 0600) on first start. An in-memory database gets a key for the process only.
 * PostgreSQL has no file to keep it beside, and every node must use the same key: there it
 * must be given.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { ConfigError, type Config } from "../../config";
import type { AppDeps } from "../../deps";
import { generateSecretKey, parseSecretKey, SecretKeyError } from "./secret-box";

export function keyFilePath(dbPath: string): string {
  return `${dbPath}.key`;
}

export function loadServerKey(config: Config): { key: Uint8Array; source: "flag" | "file" | "generated" | "memory" } {
  const given = config.secretKey;
  if (typeof given === "string" && given) return { key: parseSecretKey(given), source: "flag" };
  if (config.databaseUrl) throw new ConfigError("--database-url needs --secret-key (SECRET_KEY): every node must encrypt stored mailbox passwords with the same key (try: openssl rand -base64 32)");
  if (config.db === ":memory:") return { key: generateSecretKey(), source: "memory" };
  const path = keyFilePath(config.db);
  if (existsSync(path)) {
    try {
      return { key: parseSecretKey(readFileSync(path, "utf8")), source: "file" };
    } catch (error) {
      throw new SecretKeyError(`${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const key = generateSecretKey();
  // "wx": never overwrite a key another process wrote a moment ago.
  try {
    writeFileSync(path, Buffer.from(key).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return { key: parseSecretKey(readFileSync(path, "utf8")), source: "file" };
    throw error;
  }
  chmodSync(path, 0o600);
  return { key, source: "generated" };
}

const lazyKeys = new WeakMap<AppDeps["store"], Uint8Array>();

/**
 * deps.secretKey when the CLI set it; otherwise loaded once per store (each request's context
 * is a new object, the app's store is one).
 */
export function serverKey(deps: Pick<AppDeps, "secretKey" | "config" | "store">): Uint8Array {
  if (deps.secretKey) return deps.secretKey;
  let key = lazyKeys.get(deps.store);
  if (!key) {
    key = loadServerKey(deps.config).key;
    lazyKeys.set(deps.store, key);
  }
  return key;
}
