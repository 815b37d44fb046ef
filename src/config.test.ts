import { describe, expect, test } from "bun:test";
import { ConfigError, flagHelp, parseConfig } from "./config";

describe("config", () => {
  test("defaults: port 8080 and ./data/dmarcwarden.db", () => {
    const c = parseConfig([], {});
    expect(c.port).toBe(8080);
    expect(c.db).toBe("./data/dmarcwarden.db");
    expect(c.seedAdmin).toBeNull();
  });

  test("every flag has an environment twin, and the flag wins over it", () => {
    expect(parseConfig([], { PORT: "9001", DATABASE_PATH: "/tmp/x.db" }).port).toBe(9001);
    expect(parseConfig(["--port", "9002"], { PORT: "9001" }).port).toBe(9002);
    expect(parseConfig(["--port=9003"], {}).port).toBe(9003);
    expect(parseConfig([], { DATABASE_PATH: "/tmp/x.db" }).db).toBe("/tmp/x.db");
  });

  test("bad values are refused with one clear line", () => {
    expect(() => parseConfig(["--port", "eighty"], {})).toThrow(new ConfigError('--port: "eighty" is not a whole number'));
    expect(() => parseConfig(["--port", "70000"], {})).toThrow("must be a port number");
    expect(() => parseConfig([], { PORT: "x" })).toThrow('PORT: "x" is not a whole number');
    expect(() => parseConfig(["--prot", "1"], {})).toThrow("unknown flag --prot");
    expect(() => parseConfig(["--seed-admin", "nopassword"], {})).toThrow("must be USER:PASS");
    expect(() => parseConfig(["--port"], {})).toThrow("--port needs a value");
  });

  test("seed admin from the flag or from ADMIN_USERNAME / ADMIN_PASSWORD", () => {
    expect(parseConfig(["--seed-admin", "root:s3cret:with:colons"], {}).seedAdmin).toEqual({ username: "root", password: "s3cret:with:colons" });
    expect(parseConfig([], { ADMIN_USERNAME: "a", ADMIN_PASSWORD: "b-long-enough" }).seedAdmin).toEqual({ username: "a", password: "b-long-enough" });
    expect(() => parseConfig([], { ADMIN_USERNAME: "a" })).toThrow("must be set together");
  });

  test("--help text names each serve flag with its environment twin", () => {
    const help = flagHelp("serve");
    for (const s of ["--port N", "[env PORT]", "--db PATH", "[env DATABASE_PATH]", "--seed-admin USER:PASS"]) expect(help).toContain(s);
  });
});

describe("each command reads its own flags and variables", () => {
  test("a flag of another command is refused; a variable of another command is not read", () => {
    expect(() => parseConfig(["--port", "9999"], {}, "migrate")).toThrow("--port is not a flag of migrate (see dmarcwarden migrate --help)");
    expect(() => parseConfig(["-p", "9000"], {}, "serve")).toThrow("unknown flag -p");
    expect(() => parseConfig(["stray"], {}, "serve")).toThrow('serve takes no argument "stray"');
    expect(parseConfig(["example.com"], { PORT: "abc", DATABASE_PATH: "/x.db" }, "check")).toMatchObject({ port: 8080, db: "./data/dmarcwarden.db", args: ["example.com"] });
    expect(parseConfig([], { ADMIN_USERNAME: "a", ADMIN_PASSWORD: "b-long-enough" }, "migrate").seedAdmin).toBeNull();
  });

  test("DNS servers need a port from 1 to 65535; a seed admin password follows the password rule", () => {
    expect(parseConfig(["--dns-server", "127.0.0.1:53", "--dns-server", "[::1]:5353", "--dns-server", "::1", "--dns-server", "dns.example"], {}, "check").dnsServer).toHaveLength(4);
    for (const bad of ["nope:99999", "127.0.0.1:0", "1.1.1.1:65536", "bad host"]) expect(() => parseConfig(["--dns-server", bad], {}, "check")).toThrow(ConfigError);
    expect(() => parseConfig(["--seed-admin", "admin:short"], {})).toThrow("--seed-admin (SEED_ADMIN): the password is refused: Password must be at least 10 characters");
    expect(() => parseConfig([], { ADMIN_USERNAME: "a", ADMIN_PASSWORD: "b" })).toThrow("ADMIN_PASSWORD");
  });

  test("--help: check has --json and no store flags; the descriptions line up", () => {
    expect(flagHelp("check")).toContain("--json");
    expect(flagHelp("check")).not.toContain("--db");
    expect(flagHelp("ingest")).toContain("--dns-server");
    const starts = new Set(flagHelp("serve").split("\n").map((l) => /^ {2}--\S+(?: \S+)? +/.exec(l)![0].length));
    expect(starts.size).toBe(1);
  });
});
