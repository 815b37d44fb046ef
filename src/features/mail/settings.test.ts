import { describe, expect, spyOn, test } from "bun:test";
import { ConfigError, flagHelp, parseConfig } from "../../config";
import { memoryLogger } from "../../log";
import { run } from "../../main";
import { mailerFromConfig } from "./mailer";
import { mailSettings } from "./settings";

const SECRET = "s3cr3t-relay-pass";

describe("outgoing mail flags", () => {
  test("--mail-relay / MAIL_RELAY_URL and --mail-from / MAIL_FROM, flag over environment", () => {
    const c = parseConfig(["--mail-relay", `smtp://me%40x.test:${SECRET}@smtp.example.com`, "--mail-from", "alerts@example.com", "--public-url", "https://dmarc.example.com/"], {});
    expect(mailSettings(c)).toEqual({
      relay: { host: "smtp.example.com", port: 587, secure: false, auth: { user: "me@x.test", pass: SECRET } },
      from: "alerts@example.com",
      publicUrl: "https://dmarc.example.com",
    });
    const e = parseConfig([], { MAIL_RELAY_URL: "smtps://relay.example.com", MAIL_FROM: "dmarcwarden <alerts@example.com>", PUBLIC_URL: "https://d.example.com" });
    expect(mailSettings(e)?.relay).toEqual({ host: "relay.example.com", port: 465, secure: true, auth: null });
    expect(mailSettings(e)?.from).toBe("dmarcwarden <alerts@example.com>");
    expect(mailSettings(parseConfig(["--mail-relay", "smtp://127.0.0.1:2525"], { MAIL_RELAY_URL: "smtp://other:25", MAIL_FROM: "a@b.test", PUBLIC_URL: "http://x.test" }))?.relay.port).toBe(2525);
    expect(mailSettings(parseConfig([], {}))).toBeNull();
  });

  test("a bad relay URL is refused with one line that never shows the password", () => {
    for (const bad of [`http://u:${SECRET}@smtp.example.com`, `smtp.example.com:${SECRET}`, `smtp://u:${SECRET}@smtp.example.com/path`, `smtp://:${SECRET}@smtp.example.com`, `not a url ${SECRET}`]) {
      let message = "";
      try {
        parseConfig(["--mail-relay", bad], {});
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        message = (e as Error).message;
      }
      expect(message).toStartWith("--mail-relay (MAIL_RELAY_URL): ");
      expect(message).not.toContain(SECRET);
      expect(message).not.toContain("\n");
    }
    expect(() => parseConfig(["--mail-from", "not an address"], {})).toThrow("--mail-from (MAIL_FROM): must be an address");
  });

  test("a relay needs --mail-from and --public-url", () => {
    expect(() => mailSettings(parseConfig(["--mail-relay", "smtp://smtp.example.com", "--public-url", "https://d.example.com"], {}))).toThrow(new ConfigError("--mail-relay (MAIL_RELAY_URL) needs --mail-from (MAIL_FROM): the sender address of invitations and password links"));
    expect(() => mailSettings(parseConfig(["--mail-relay", "smtp://smtp.example.com", "--mail-from", "a@example.com"], {}))).toThrow("needs --public-url (PUBLIC_URL): links in mail must point at");
  });

  test("serve exits with 2 and one line on a bad mail setting, before opening the database", async () => {
    const errors: string[] = [];
    const spy = spyOn(console, "error").mockImplementation((...args: unknown[]) => void errors.push(args.join(" ")));
    try {
      expect(await run(["serve", "--db", "/nonexistent/dir/x.db", "--mail-relay", `smtps://u:${SECRET}@`], { env: {} })).toBe(2);
      expect(await run(["serve", "--db", "/nonexistent/dir/x.db", "--mail-relay", "smtp://smtp.example.com", "--mail-from", "a@example.com"], { env: {} })).toBe(2);
    } finally {
      spy.mockRestore();
    }
    expect(errors).toHaveLength(2);
    expect(errors[0]).toStartWith("dmarcwarden: --mail-relay (MAIL_RELAY_URL): ");
    expect(errors[1]).toContain("needs --public-url");
    expect(errors.join("\n")).not.toContain(SECRET);
  });

  test("the start-up log names the relay host, never its password", () => {
    const log = memoryLogger();
    const mailer = mailerFromConfig(parseConfig(["--mail-relay", `smtp://user:${SECRET}@smtp.example.com:2525`, "--mail-from", "a@example.com", "--public-url", "https://d.example.com"], {}), log);
    mailer?.close();
    expect(mailer?.publicUrl).toBe("https://d.example.com");
    expect(log.lines.join("\n")).toContain('"host":"smtp.example.com"');
    expect(log.lines.join("\n")).not.toContain(SECRET);
  });

  test("--help lists both flags with their environment twins", () => {
    const help = flagHelp("serve");
    for (const s of ["--mail-relay URL", "[env MAIL_RELAY_URL]", "--mail-from ADDR", "[env MAIL_FROM]"]) expect(help).toContain(s);
  });
});
