/**
 * The API client of SPEC §7/§8: every call sends credentials, a body goes as JSON, and a
 * non-2xx response throws "<status>: <body text or status text>".
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly bodyText: string,
    message: string,
  ) {
    super(message);
  }
  /** The server's JSON error message when there is one (DESIGN.md's error shape). */
  get serverMessage(): string | undefined {
    try {
      return JSON.parse(this.bodyText)?.error?.message;
    } catch {
      return undefined;
    }
  }
  get fields(): Record<string, string> | undefined {
    try {
      return JSON.parse(this.bodyText)?.error?.fields;
    } catch {
      return undefined;
    }
  }
}

export async function throwIfResNotOk(res: Response): Promise<void> {
  if (!res.ok) {
    const text = (await res.text()) || res.statusText;
    throw new ApiError(res.status, text, `${res.status}: ${text}`);
  }
}

export async function apiRequest(method: string, url: string, data?: unknown, headers: Record<string, string> = {}): Promise<Response> {
  const res = await fetch(url, {
    method,
    headers: data !== undefined ? { "Content-Type": "application/json", ...headers } : headers,
    body: data !== undefined ? JSON.stringify(data) : undefined,
    credentials: "include",
  });
  await throwIfResNotOk(res);
  return res;
}

/** A user-facing message for an error: the server's own words when it gave some. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.serverMessage ?? error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}
