import { expect, test } from "bun:test";
import { evaluateBimi, evaluateMtaSts, evaluateMx, evaluateTlsRpt } from "./extras";
import { overallStatus } from "./overall";
import type { TxtLookup } from "./types";

const txt = (...records: string[]): TxtLookup => ({ status: records.length ? "ok" : "nxdomain", records: records.map((text) => ({ strings: [text], text })), ttl: 300 });

test("MX: present, null MX, absent", () => {
  expect(evaluateMx("example.com", { status: "ok", records: [{ exchange: "mx.example.com", priority: 10 }], ttl: 1 }).status).toBe("configured");
  expect(evaluateMx("example.com", { status: "ok", records: [{ exchange: "", priority: 0 }], ttl: 1 }).findings[0]?.code).toBe("mx.null");
  expect(evaluateMx("example.com", { status: "nodata", records: [], ttl: 1 }).status).toBe("missing");
});

test("MTA-STS needs an id of 1-32 letters and digits", () => {
  expect(evaluateMtaSts("example.com", txt("v=STSv1; id=2024")).status).toBe("configured");
  expect(evaluateMtaSts("example.com", txt("v=STSv1;")).status).toBe("invalid");
  expect(evaluateMtaSts("example.com", txt()).status).toBe("missing");
});

test("TLS-RPT needs a mailto: or https: rua", () => {
  expect(evaluateTlsRpt("example.com", txt("v=TLSRPTv1; rua=mailto:tls@example.com")).status).toBe("configured");
  expect(evaluateTlsRpt("example.com", txt("v=TLSRPTv1; rua=ftp://x")).status).toBe("invalid");
  expect(evaluateTlsRpt("example.com", txt("v=TLSRPTv1")).status).toBe("invalid");
});

test("BIMI: https SVG logo; warns when DMARC is not enforced", () => {
  expect(evaluateBimi("example.com", txt("v=BIMI1; l=https://example.com/logo.svg; a=https://example.com/vmc.pem"), true)).toMatchObject({ status: "configured", findings: [] });
  expect(evaluateBimi("example.com", txt("v=BIMI1; l=https://example.com/logo.svg"), true).findings.map((f) => [f.level, f.code])).toEqual([["info", "bimi.no_certificate"]]);
  expect(evaluateBimi("example.com", txt("v=BIMI1; l=http://example.com/logo.png"), true).status).toBe("invalid");
  expect(evaluateBimi("example.com", txt("v=BIMI1; l=https://example.com/logo.svg"), false).findings.map((f) => f.code)).toContain("bimi.needs_dmarc");
});

test("overall status: the one documented rule", () => {
  expect(overallStatus("reject", "valid", "valid")).toBe("protected");
  expect(overallStatus("quarantine", "valid", "valid")).toBe("protected");
  expect(overallStatus("reject", "valid", "weak key")).toBe("partial");
  expect(overallStatus("reject", "too many lookups", "valid")).toBe("partial");
  expect(overallStatus("none", "valid", "valid")).toBe("partial");
  expect(overallStatus("none", "valid", "missing")).toBe("vulnerable");
  expect(overallStatus("missing", "missing", "missing")).toBe("vulnerable");
  expect(overallStatus("invalid", "invalid", "valid")).toBe("vulnerable");
});
