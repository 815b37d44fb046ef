import { afterEach, describe, expect, test } from "bun:test";
import { makeTestApp, type TestApp } from "../../../tests/support/app";
import { signedInMember } from "../../../tests/support/fixtures";

let t: TestApp;
afterEach(() => t?.close());

describe("domains", () => {
  test("add (trimmed, lower-cased), list with the SPEC §3 fields, delete", async () => {
    const added: string[] = [];
    t = await makeTestApp({ deps: { onDomainAdded: (id) => added.push(id) } });
    const { cookie } = await signedInMember(t.deps.store, "admin");
    const created = await t.json("POST", "/api/domains", { cookie, body: { name: "  Example.COM " } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "example.com", dmarcPolicy: null, spfStatus: null, dkimStatus: null, overallStatus: "pending", lastReportAt: null });
    expect(added).toEqual([created.body.id]);
    await t.json("POST", "/api/domains", { cookie, body: { name: "alpha.org" } });
    const list = await t.json("GET", "/api/domains", { cookie });
    expect(list.status).toBe(200);
    expect(list.body.map((d: any) => d.name)).toEqual(["alpha.org", "example.com"]);
    for (const key of ["id", "name", "dmarcPolicy", "spfStatus", "dkimStatus", "overallStatus", "lastReportAt"]) expect(list.body[0]).toHaveProperty(key);
    const del = await t.json("DELETE", `/api/domains/${created.body.id}`, { cookie });
    expect(del.status).toBe(200);
    expect((await t.json("GET", "/api/domains", { cookie })).body.map((d: any) => d.name)).toEqual(["alpha.org"]);
    expect((await t.json("DELETE", `/api/domains/${created.body.id}`, { cookie })).status).toBe(404);
  });

  test("the same domain twice in one organization → 409; another organization may add it", async () => {
    t = await makeTestApp();
    const a = await signedInMember(t.deps.store, "owner");
    const b = await signedInMember(t.deps.store, "owner");
    expect((await t.json("POST", "/api/domains", { cookie: a.cookie, body: { name: "example.com" } })).status).toBe(201);
    const dup = await t.json("POST", "/api/domains", { cookie: a.cookie, body: { name: "EXAMPLE.com" } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toBe("example.com is already in this organization's domains.");
    expect((await t.json("POST", "/api/domains", { cookie: b.cookie, body: { name: "example.com" } })).status).toBe(201);
  });

  test.each([
    [{ name: "" }, "Please enter a domain name"],
    [{ name: "   " }, "Please enter a domain name"],
    [{}, "Please enter a domain name"],
    [{ name: "not a domain" }, "Please enter a valid domain name (e.g., example.com)"],
    [{ name: "example" }, "Please enter a valid domain name (e.g., example.com)"],
    [{ name: "https://example.com" }, "Please enter a valid domain name (e.g., example.com)"],
  ])("bad name %p → 400 with the DNS lookup rule's message", async (body, message) => {
    t = await makeTestApp();
    const { cookie } = await signedInMember(t.deps.store, "admin");
    const res = await t.json("POST", "/api/domains", { cookie, body });
    expect(res.status).toBe(400);
    expect(res.body.error.fields.name).toBe(message);
  });

  test("signed out → 401", async () => {
    t = await makeTestApp();
    expect((await t.json("GET", "/api/domains")).status).toBe(401);
    expect((await t.json("POST", "/api/domains", { body: { name: "example.com" } })).status).toBe(401);
  });
});
