/**
 * Start-up of report mail in `serve`: the server key (flag, or a 0600 file beside the
 * database that survives restarts), and settings that must stop start-up with one clear line.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, parseConfig } from "../../src/config";
import { startMailIn } from "../../src/features/mailin/setup";
import { loadServerKey } from "../../src/features/mailin/server-key";
import { decryptSecret, encryptSecret } from "../../src/features/mailin/secret-box";
import { makeTestApp, type TestApp } from "../support/app";
import { freePort } from "../support/server";
import { selfSignedCertificate } from "../support/smtp";

let dir = "";
let t: TestApp | null = null;
afterEach(() => {
  t?.close();
  t = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = "";
});

function tempDb() {
  dir = mkdtempSync(join(tmpdir(), "dw-mailin-"));
  return join(dir, "dw.db");
}

describe("server key", () => {
  test("is generated once into <db>.key with mode 0600 and read back after a restart", () => {
    const db = tempDb();
    const first = loadServerKey(parseConfig(["--db", db], {}));
    expect(first.source).toBe("generated");
    expect(statSync(`${db}.key`).mode & 0o777).toBe(0o600);
    const sealed = encryptSecret(first.key, "imap password", "org-1");
    const again = loadServerKey(parseConfig(["--db", db], {}));
    expect(again.source).toBe("file");
    expect(decryptSecret(again.key, sealed, "org-1")).toBe("imap password");
  });

  test("--secret-key / SECRET_KEY wins over the file, in hex or base64", () => {
    const db = tempDb();
    const hex = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    const fromHex = loadServerKey(parseConfig(["--db", db, "--secret-key", hex], {}));
    expect(fromHex.source).toBe("flag");
    const fromEnv = loadServerKey(parseConfig(["--db", db], { SECRET_KEY: Buffer.from(hex, "hex").toString("base64") }));
    expect(Buffer.from(fromEnv.key).toString("hex")).toBe(hex);
  });

  test("a key that is not 32 bytes stops start-up with a clear line", () => {
    expect(() => parseConfig(["--secret-key", "too-short"], {})).toThrow(ConfigError);
    expect(() => parseConfig([], { SECRET_KEY: "abcd" })).toThrow(/32 bytes/);
  });

  test("a damaged key file stops start-up and names the file", async () => {
    const db = tempDb();
    writeFileSync(`${db}.key`, "not a key\n");
    t = await makeTestApp({ config: { db } });
    await expect(startMailIn(t.deps)).rejects.toThrow(`${db}.key`);
  });
});

describe("SMTP settings at start-up", () => {
  test("--smtp-port without --smtp-domain is refused", async () => {
    t = await makeTestApp();
    Object.assign(t.deps.config, { smtpPort: 2525 });
    await expect(startMailIn(t.deps)).rejects.toThrow(/--smtp-port needs --smtp-domain/);
  });

  test("a certificate without its key is refused, and an unreadable one names the file", async () => {
    t = await makeTestApp();
    Object.assign(t.deps.config, { smtpPort: 2525, smtpDomain: "reports.example.net", smtpTlsCert: "/nonexistent/cert.pem" });
    await expect(startMailIn(t.deps)).rejects.toThrow(/go together/);
    Object.assign(t.deps.config, { smtpTlsKey: "/nonexistent/key.pem" });
    await expect(startMailIn(t.deps)).rejects.toThrow(/--smtp-tls-cert \/nonexistent\/cert.pem: cannot read it/);
  });

  test("starts the receiver with STARTTLS from PEM files, and stops it", async () => {
    const db = tempDb();
    const pem = selfSignedCertificate();
    writeFileSync(join(dir, "cert.pem"), pem.cert);
    writeFileSync(join(dir, "key.pem"), pem.key);
    const port = await freePort();
    t = await makeTestApp({ config: { db } });
    Object.assign(t.deps.config, { smtpPort: port, smtpHost: "127.0.0.1", smtpDomain: "reports.example.net", smtpTlsCert: join(dir, "cert.pem"), smtpTlsKey: join(dir, "key.pem"), imapPollInterval: 0 });
    const mailIn = await startMailIn(t.deps);
    expect(mailIn.smtp?.port).toBe(port);
    expect(t.deps.secretKey).toBeInstanceOf(Uint8Array);
    expect(readFileSync(`${db}.key`, "utf8").trim()).toBe(Buffer.from(t.deps.secretKey!).toString("base64"));
    const line = t.logs.find((l) => l.includes('"smtp_listening"'))!;
    expect(line).toContain('"starttls":true');
    await mailIn.stop();
  });
});
