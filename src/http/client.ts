import type { AppDeps } from "../deps";

/**
 * The client's address: the socket's, or X-Forwarded-For's first hop when --trust-proxy
 * says a reverse proxy of the operator's own sits in front. Used for rate limits.
 */
export function clientAddress(deps: Pick<AppDeps, "server" | "config">, request: Request): string {
  if (deps.config.trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    if (forwarded) return forwarded.split(",")[0]!.trim().slice(0, 64);
  }
  return deps.server?.requestIP(request)?.address ?? "unknown";
}
