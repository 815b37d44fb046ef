import { afterEach, describe, expect, test } from "bun:test";
import { withFetch } from "../../tests/support/ui";
import { apiRequest, ApiError, errorMessage } from "./api";
import { createQueryClient, getQueryFn } from "./queryClient";

let restore = () => {};
afterEach(() => restore());

describe("API client (SPEC §7/§8)", () => {
  test("sends credentials and a JSON body with its content type", async () => {
    const f = withFetch(() => new Response("{}", { status: 200 }));
    restore = f.restore;
    await apiRequest("POST", "/api/contact", { name: "Ann" });
    expect(f.calls[0]!.init.credentials).toBe("include");
    expect(f.calls[0]!.init.method).toBe("POST");
    expect((f.calls[0]!.init.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect(f.calls[0]!.init.body).toBe('{"name":"Ann"}');
  });

  test("a request without a body sends no content type", async () => {
    const f = withFetch(() => new Response("{}", { status: 200 }));
    restore = f.restore;
    await apiRequest("GET", "/api/domains");
    expect(f.calls[0]!.init.headers).toEqual({});
    expect(f.calls[0]!.init.body).toBeUndefined();
  });

  test('a non-2xx response throws "<status>: <body text>"', async () => {
    const f = withFetch(() => new Response('{"error":{"code":"x","message":"Nope"}}', { status: 400 }));
    restore = f.restore;
    const error = await apiRequest("POST", "/api/x", {}).catch((e) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error.message).toBe('400: {"error":{"code":"x","message":"Nope"}}');
    expect(errorMessage(error)).toBe("Nope");
  });

  test("an empty error body falls back to the status text", async () => {
    const f = withFetch(() => new Response("", { status: 503, statusText: "Service Unavailable" }));
    restore = f.restore;
    const error = await apiRequest("GET", "/api/x").catch((e) => e);
    expect(error.message).toBe("503: Service Unavailable");
  });

  test("queries GET the key's segments joined by slashes; 401 throws by default", async () => {
    const f = withFetch((url) => (url === "/api/domains/abc" ? new Response('[{"id":1}]') : new Response("Unauthorized", { status: 401 })));
    restore = f.restore;
    const fn = getQueryFn({ on401: "throw" }) as any;
    expect(await fn({ queryKey: ["/api/domains", "abc"] })).toEqual([{ id: 1 }]);
    await expect(fn({ queryKey: ["/api/other"] })).rejects.toThrow("401: Unauthorized");
    expect(await (getQueryFn({ on401: "returnNull" }) as any)({ queryKey: ["/api/other"] })).toBeNull();
  });

  test("query data never goes stale, no refetch on focus or interval, no retries", () => {
    const defaults = createQueryClient().getDefaultOptions();
    expect(defaults.queries?.staleTime).toBe(Infinity);
    expect(defaults.queries?.refetchOnWindowFocus).toBe(false);
    expect(defaults.queries?.refetchInterval).toBe(false);
    expect(defaults.queries?.retry).toBe(false);
    expect(defaults.mutations?.retry).toBe(false);
  });
});
