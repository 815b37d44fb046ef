import { describe, expect, test } from "bun:test";
import { dkimPublicKey } from "../../../tests/support/dns-server";
import { evaluateDkim, parseDkimKey, rsaModulusBits } from "./dkim";
import type { TxtLookup } from "./types";

const txt = (...records: string[]): TxtLookup => ({ status: records.length ? "ok" : "nxdomain", records: records.map((text) => ({ strings: [text], text })), ttl: 300 });
const rsa2048 = dkimPublicKey("rsa", 2048);
const rsa512 = dkimPublicKey("rsa", 512);

describe("DKIM key records", () => {
  test("the RSA modulus length comes from the key itself", () => {
    expect(rsaModulusBits(rsa2048)).toBe(2048);
    expect(rsaModulusBits(rsa512)).toBe(512);
    expect(rsaModulusBits("bm90IGEga2V5")).toBeNull();
  });

  test("2048-bit RSA is valid; 1024-bit is valid with a note; 512-bit is a weak key", () => {
    expect(parseDkimKey("s1", `v=DKIM1; k=rsa; p=${rsa2048}`)).toMatchObject({ status: "valid", keyType: "rsa", bits: 2048 });
    const k1024 = parseDkimKey("s1", `v=DKIM1; p=${dkimPublicKey("rsa", 1024)}`);
    expect(k1024.status).toBe("valid");
    expect(k1024.findings.map((f) => f.code)).toEqual(["dkim.short_key"]);
    expect(parseDkimKey("s1", `v=DKIM1; k=rsa; p=${rsa512}`)).toMatchObject({ status: "weak key", bits: 512 });
  });

  test("ed25519 keys are 32 bytes", () => {
    expect(parseDkimKey("s1", `v=DKIM1; k=ed25519; p=${dkimPublicKey("ed25519")}`)).toMatchObject({ status: "valid", keyType: "ed25519", bits: 256 });
    expect(parseDkimKey("s1", `v=DKIM1; k=ed25519; p=${rsa512}`).status).toBe("invalid");
  });

  test("empty p is revoked; a missing or unreadable p is invalid", () => {
    expect(parseDkimKey("s1", "v=DKIM1; k=rsa; p=").status).toBe("revoked");
    expect(parseDkimKey("s1", "v=DKIM1; k=rsa").status).toBe("invalid");
    expect(parseDkimKey("s1", "v=DKIM1; p=bm90IGEga2V5").status).toBe("invalid");
    expect(parseDkimKey("s1", "v=DKIM1; p=***").findings[0]?.code).toBe("dkim.bad_base64");
  });

  test("tags: v must be DKIM1 and first, k rsa|ed25519, s must allow email, t=y and h=sha1 warn", () => {
    expect(parseDkimKey("s1", `k=rsa; v=DKIM1; p=${rsa2048}`).status).toBe("invalid");
    expect(parseDkimKey("s1", `v=DKIM2; p=${rsa2048}`).status).toBe("invalid");
    expect(parseDkimKey("s1", `v=DKIM1; k=dsa; p=${rsa2048}`).status).toBe("invalid");
    expect(parseDkimKey("s1", `v=DKIM1; s=other; p=${rsa2048}`).status).toBe("invalid");
    const warned = parseDkimKey("s1", `v=DKIM1; t=y; h=sha1; p=${rsa2048}`);
    expect(warned.status).toBe("valid");
    expect(warned.findings.map((f) => f.code).sort()).toEqual(["dkim.sha1_only", "dkim.testing"]);
  });
});

describe("DKIM evaluation over selectors", () => {
  test("no key under any selector is missing", () => {
    expect(evaluateDkim("example.com", { google: txt(), selector1: txt() }).status).toBe("missing");
  });
  test("the worst active key decides; revoked keys alone are invalid", () => {
    expect(evaluateDkim("example.com", { a: txt(`v=DKIM1; p=${rsa2048}`), b: txt() }).status).toBe("valid");
    expect(evaluateDkim("example.com", { a: txt(`v=DKIM1; p=${rsa2048}`), b: txt(`v=DKIM1; p=${rsa512}`) }).status).toBe("weak key");
    expect(evaluateDkim("example.com", { a: txt(`v=DKIM1; p=${rsa2048}`), old: txt("v=DKIM1; p=") }).status).toBe("valid");
    expect(evaluateDkim("example.com", { old: txt("v=DKIM1; p=") }).status).toBe("invalid");
    expect(evaluateDkim("example.com", { a: txt("v=DKIM1; p=bm90IGEga2V5") }).status).toBe("invalid");
  });
});
