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
    expect(parseConfig([], { ADMIN_USERNAME: "a", ADMIN_PASSWORD: "b" }).seedAdmin).toEqual({ username: "a", password: "b" });
    expect(() => parseConfig([], { ADMIN_USERNAME: "a" })).toThrow("must be set together");
  });

  test("--help text names each serve flag with its environment twin", () => {
    const help = flagHelp("serve");
    for (const s of ["--port N", "[env PORT]", "--db PATH", "[env DATABASE_PATH]", "--seed-admin USER:PASS"]) expect(help).toContain(s);
  });
});
