/**
 * The OpenAPI 3.1 document: every route of the app in it with its access, its Zod contracts as
 * JSON Schema, structurally valid (the required fields of OpenAPI 3.1, path parameters, unique
 * operation ids, security schemes and references that resolve); /api/docs served from this
 * server under the app's CSP.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { declaredAccess } from "../../src/http/access";
import { NOT_ENDPOINTS } from "../../src/features/openapi/document";
import { makeTestApp, type TestApp } from "../support/app";

let t: TestApp;
let doc: any;
beforeAll(async () => {
  t = await makeTestApp();
  const res = await t.json("GET", "/api/openapi.json");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toContain("application/json");
  doc = res.body;
});
afterAll(() => t?.close());

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

test("every route of the app is in the document with the access it declared", () => {
  const routes = (t.app.routes as { method: string; path: string; hooks?: { detail?: Record<string, unknown> } }[]).filter((r) => !NOT_ENDPOINTS.has(`${r.method} ${r.path}`));
  expect(routes.length).toBeGreaterThan(50);
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const op = doc.paths[path]?.[route.method.toLowerCase()];
    if (!op) throw new Error(`${route.method} ${route.path} is missing from the OpenAPI document`);
    expect(op["x-access"]).toBe(declaredAccess(route.hooks?.detail)[0]);
  }
  const documented = Object.values(doc.paths).reduce((n: number, item: any) => n + Object.keys(item).length, 0);
  expect(documented).toBe(routes.length);
});

test("the document is structurally OpenAPI 3.1", () => {
  expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
  expect(typeof doc.info.title).toBe("string");
  expect(typeof doc.info.version).toBe("string");
  const schemes = doc.components.securitySchemes;
  for (const [name, scheme] of Object.entries<any>(schemes)) {
    expect(["apiKey", "http", "oauth2", "openIdConnect", "mutualTLS"]).toContain(scheme.type);
    if (scheme.type === "apiKey") expect(["query", "header", "cookie"]).toContain(scheme.in);
    if (scheme.type === "http") expect(typeof scheme.scheme).toBe("string");
    expect(name).toMatch(/^[A-Za-z0-9._-]+$/);
  }
  const ids = new Set<string>();
  const refs: string[] = [];
  const collectRefs = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(collectRefs);
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) k === "$ref" ? refs.push(String(x)) : collectRefs(x);
  };
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    expect(path.startsWith("/")).toBe(true);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
    for (const [method, op] of Object.entries<any>(item)) {
      expect(METHODS).toContain(method);
      expect(ids.has(op.operationId)).toBe(false);
      ids.add(op.operationId);
      expect(Object.keys(op.responses).length).toBeGreaterThan(0);
      for (const [code, response] of Object.entries<any>(op.responses)) {
        expect(code).toMatch(/^([1-5]\d\d|[1-5]XX|default)$/);
        expect(typeof response.description).toBe("string");
      }
      const pathParams = op.parameters.filter((p: any) => p.in === "path");
      expect(pathParams.map((p: any) => p.name).sort()).toEqual([...templated].sort());
      for (const p of op.parameters) {
        expect(["query", "header", "path", "cookie"]).toContain(p.in);
        if (p.in === "path") expect(p.required).toBe(true);
        expect(p.schema).toBeDefined();
      }
      if (op.requestBody) expect(Object.keys(op.requestBody.content).length).toBeGreaterThan(0);
      for (const requirement of op.security) for (const name of Object.keys(requirement)) expect(schemes[name]).toBeDefined();
      collectRefs(op);
    }
  }
  for (const ref of refs) {
    const target = ref.replace(/^#\//, "").split("/").reduce((node: any, key) => node?.[key], doc);
    if (!target) throw new Error(`${ref} does not resolve`);
  }
});

test("request and response schemas come from the routes' Zod contracts, and each route names its auth", () => {
  const settings = doc.paths["/api/settings"].put;
  const body = settings.requestBody.content["application/json"].schema;
  expect(body.properties.retentionAggregateDays).toMatchObject({ type: "integer", minimum: 30, maximum: 3650 });
  expect(body.required).toContain("organizationName");
  expect(settings.security).toEqual([{ cookieSession: [] }, { bearerToken: [] }]);
  const audit = doc.paths["/api/audit"].get;
  expect(audit.parameters.map((p: any) => p.name)).toEqual(["action", "actor", "limit", "cursor"]);
  expect(audit.responses["200"].content["application/json"].schema.properties.entries.type).toBe("array");
  expect(doc.paths["/api/auth/login"].post.security).toEqual([{}]);
  expect(doc.paths["/api/auth/login"].post.requestBody.content["application/json"].schema.properties.email).toBeDefined();
  expect(doc.paths["/api/auth/me"].get.security).toEqual([{ cookieSession: [] }]);
  expect(doc.paths["/api/admin/contact-submissions"].get.security).toEqual([{ adminSession: [] }]);
  // a wrong admin password is refused with 401 and SPEC's body, not the common error shape
  expect(doc.paths["/api/admin/login"].post.responses["401"].content["application/json"].schema).toMatchObject({ properties: { success: { const: false }, message: { type: "string" } } });
  expect(doc.paths["/api/domains/{id}"].delete.parameters[0]).toMatchObject({ name: "id", in: "path", required: true });
});

test("/api/docs is an HTML page under the app's CSP whose script and styles come from this server", async () => {
  const page = await t.request("GET", "/api/docs");
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const csp = page.headers.get("content-security-policy")!;
  expect(csp).toContain("script-src 'self'");
  const html = await page.text();
  const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  expect(sources).toContain("/api/docs/docs.js");
  for (const s of sources) expect(s.startsWith("/")).toBe(true);
  expect(html).not.toMatch(/<script>(?!<\/script>)/);
  for (const asset of ["/api/docs/docs.js", "/api/docs/docs.css"]) {
    const res = await t.request("GET", asset);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toMatch(/https?:\/\//);
  }
});
