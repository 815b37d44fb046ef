import { describe, expect, test } from "bun:test";
import { outboundTarget, urlAt } from "./outbound";

const FLAG = "--allow-private-webhook-hosts";

describe("outboundTarget: the one address a request to a named host connects to", () => {
  test("every answer is checked: one non-public address refuses the host, naming the flag", () => {
    expect(outboundTarget("hooks.example.com", ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"], false, FLAG)).toEqual({ ok: true, address: "93.184.215.14" });
    expect(outboundTarget("hooks.example.com", ["93.184.215.14", "127.0.0.1"], false, FLAG)).toEqual({ ok: false, reason: `hooks.example.com resolves to 127.0.0.1 (loopback); ${FLAG} permits it` });
    expect(outboundTarget("hooks.example.com", ["93.184.215.14", "::ffff:169.254.169.254"], false, FLAG)).toEqual({ ok: false, reason: `hooks.example.com resolves to 169.254.169.254 (link-local (cloud metadata)); ${FLAG} permits it` });
    expect(outboundTarget("hooks.example.com", [], false, FLAG)).toEqual({ ok: false, reason: "hooks.example.com has no address" });
  });

  test("with the flag, private addresses are connected to", () => {
    expect(outboundTarget("hooks.internal", ["10.0.0.5", "93.184.215.14"], true, FLAG)).toEqual({ ok: true, address: "10.0.0.5" });
  });

  test("urlAt keeps scheme, port, path and query, with the address in place of the name", () => {
    expect(urlAt(new URL("https://hooks.example.com/services/x?y=1"), "93.184.215.14").href).toBe("https://93.184.215.14/services/x?y=1");
    expect(urlAt(new URL("http://hooks.example.com:8080/a"), "2001:db8::1").href).toBe("http://[2001:db8::1]:8080/a");
  });
});
