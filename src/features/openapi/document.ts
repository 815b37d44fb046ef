/**
 * The OpenAPI 3.1 document, generated from the app's routes (method, path and the access each
 * declared, recorded by the access macros in `detail["x-access"]`) and the routes' Zod contracts
 * (./contracts.ts) through Zod's own JSON Schema output. Built once per app, on first request.
 */
import { z, type ZodType } from "zod";
import { ACCESS_DETAIL } from "../../http/access";
import { PERMISSIONS, type Permission } from "../../lib/permissions";
import { VERSION } from "../../version";
import { CONTRACTS } from "./contracts";

export interface RouteInfo {
  method: string;
  path: string;
  hooks?: { detail?: Record<string, unknown> };
}

/** The fallbacks (the SPA's pages and the API's 404), which are not endpoints. */
export const NOT_ENDPOINTS = new Set(["GET /*", "ALL /api/*"]);

type JsonSchema = Record<string, unknown>;

function jsonSchema(schema: ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" }) as JsonSchema;
  delete out.$schema;
  return out;
}

const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: { code: { type: "string" }, message: { type: "string" }, fields: { type: "object", additionalProperties: { type: "string" } } },
    },
  },
};

const errorResponse = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

/** Query parameters of an object schema, one per property. */
function queryParameters(schema: ZodType): unknown[] {
  const json = jsonSchema(schema);
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, s]) => ({ name, in: "query", required: required.has(name) && s.default === undefined, schema: s }));
}

function security(access: string, path: string): { security: Record<string, string[]>[]; note: string } {
  if (path === "/metrics") return { security: [{}, { metricsToken: [] }], note: "Open with --metrics; with --metrics-token, send it as `Authorization: Bearer <token>`." };
  if (access === "public") return { security: [{}], note: "Anyone." };
  if (access === "signedIn") return { security: [{ cookieSession: [] }], note: "A signed-in user (session cookie)." };
  if (access === "admin") return { security: [{ adminSession: [] }], note: "The operator console's administrator (`X-Admin-Session` header)." };
  const permission = access.slice("org:".length) as Permission;
  const role = PERMISSIONS[permission] ?? "viewer";
  return {
    security: [{ cookieSession: [] }, { bearerToken: [] }],
    note: `A member of the current organization with role ${role} or higher (permission \`${permission}\`): a session cookie, or an API token of the organization with that role.`,
  };
}

export function buildOpenApi(routes: readonly RouteInfo[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const key = `${route.method} ${route.path}`;
    if (NOT_ENDPOINTS.has(key)) continue;
    const access = String(route.hooks?.detail?.[ACCESS_DETAIL] ?? "public");
    const contract = CONTRACTS[key] ?? {};
    const openPath = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const pathParams = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => ({ name: m[1], in: "path", required: true, schema: { type: "string" } }));
    const { security: sec, note } = security(access, route.path);
    const tag = route.path === "/metrics" || route.path === "/healthz" ? "operations" : (route.path.split("/")[2] ?? "api");
    const produces = contract.produces ?? "application/json";
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : ""))}`,
      summary: contract.summary ?? `${route.method} ${route.path}`,
      description: `Access: ${note}`,
      tags: [tag],
      "x-access": access,
      security: sec,
      parameters: [...pathParams, ...(contract.query ? queryParameters(contract.query) : [])],
      responses: {
        "200": {
          description: "Success",
          content: { [produces]: { schema: contract.response ? jsonSchema(contract.response) : produces === "application/json" ? {} : { type: "string" } } },
        },
        "400": errorResponse("The input is not valid (the message says what to change)"),
        ...(access === "public" ? {} : { "401": errorResponse("Not signed in, or the credentials are not valid") }),
        ...(access.startsWith("org:") ? { "403": errorResponse("The role does not allow this") } : {}),
        ...Object.fromEntries(
          Object.entries(contract.otherResponses ?? {}).map(([status, r]) => [status, { description: r.description, content: { "application/json": { schema: jsonSchema(r.schema) } } }]),
        ),
      },
    };
    if (contract.body) operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(contract.body) } } };
    const method = route.method.toLowerCase();
    (paths[openPath] ??= {})[method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "dmarcwarden API",
      version: VERSION,
      description: "DMARC, SPF and DKIM monitoring. Tenant routes act in the caller's current organization: a session's, or the organization an API token belongs to.",
    },
    servers: [{ url: "/" }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        cookieSession: { type: "apiKey", in: "cookie", name: "dw_session", description: "The session cookie set by POST /api/auth/login." },
        bearerToken: { type: "http", scheme: "bearer", description: "An API token of the organization (Settings → API tokens): `Authorization: Bearer <token>`." },
        adminSession: { type: "apiKey", in: "header", name: "X-Admin-Session", description: "The operator console's session from POST /api/admin/login." },
        metricsToken: { type: "http", scheme: "bearer", description: "The --metrics-token of the server." },
      },
    },
  };
}
