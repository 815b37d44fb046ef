/**
 * Reverse DNS (PTR) enrichment, run after a report is stored so ingestion never waits on
 * DNS. Each lookup has a timeout; answers (and failures) are cached for an hour. The
 * sending service is derived from the PTR name's base domain.
 */
import { and, eq } from "drizzle-orm";
import type { ServiceContext } from "../../http/access";
import { nameSourceIp } from "./rollups";
import { sendingServiceOf } from "./senders";

interface ReverseResolver {
  reverse(ip: string): Promise<string[]>;
}

const TIMEOUT_MS = 3000;
const CACHE_TTL_MS = 3600_000;
const CACHE_MAX = 20_000;
const CONCURRENCY = 8;

/** answers per resolver: one resolver's answers never stand in for another's (tests give each app its own) */
const caches = new WeakMap<ReverseResolver, Map<string, { ptr: string | null; expires: number }>>();
const pending = new Set<Promise<void>>();

function resolverOf(deps: ServiceContext): ReverseResolver | null {
  const candidate = (deps as ServiceContext & { resolver?: ReverseResolver | null }).resolver;
  return candidate && typeof candidate.reverse === "function" ? candidate : null;
}

async function lookupPtr(resolver: ReverseResolver, ip: string): Promise<string | null> {
  const now = Date.now();
  let cache = caches.get(resolver);
  if (!cache) caches.set(resolver, (cache = new Map()));
  const hit = cache.get(ip);
  if (hit && hit.expires > now) return hit.ptr;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), TIMEOUT_MS);
  });
  let ptr: string | null = null;
  try {
    const names = await Promise.race([resolver.reverse(ip), timeout]);
    ptr = names[0]?.replace(/\.$/, "").toLowerCase() ?? null;
  } catch {
    ptr = null;
  } finally {
    clearTimeout(timer);
  }
  if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
  cache.set(ip, { ptr, expires: now + CACHE_TTL_MS });
  return ptr;
}

export interface EnrichmentTarget {
  table: "aggregate" | "failure";
  reportRowId: string;
  ips: string[];
}

/** Starts PTR lookups for freshly stored reports; returns at once. */
export function scheduleReverseDns(deps: ServiceContext, targets: EnrichmentTarget[]): void {
  const resolver = resolverOf(deps);
  if (!resolver || targets.length === 0) return;
  const job = runEnrichment(deps, resolver, targets).catch((error) => deps.log.warn("reports.ptr_failed", { error }));
  pending.add(job);
  void job.finally(() => pending.delete(job));
}

/** Resolves when every scheduled PTR lookup has been written (CLI and tests wait on it). */
export async function reverseDnsSettled(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

async function runEnrichment(deps: ServiceContext, resolver: ReverseResolver, targets: EnrichmentTarget[]): Promise<void> {
  const ips = [...new Set(targets.flatMap((t) => t.ips))];
  const ptrs = new Map<string, string | null>();
  let next = 0;
  const worker = async () => {
    while (next < ips.length) {
      const ip = ips[next++]!;
      ptrs.set(ip, await lookupPtr(resolver, ip));
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, ips.length) }, worker));

  const { aggregateRecords, failureReports } = deps.store.t;
  try {
    await deps.store.write(async (tx) => {
      for (const target of targets) {
        for (const ip of target.ips) {
          const ptr = ptrs.get(ip) ?? null;
          if (!ptr) continue;
          if (target.table === "aggregate") {
            const { baseDomain, service } = sendingServiceOf(ptr);
            await tx
              .update(aggregateRecords)
              .set({ ptr, baseDomain, service: service?.name ?? null, serviceType: service?.type ?? null })
              .where(and(eq(aggregateRecords.reportId, target.reportRowId), eq(aggregateRecords.sourceIp, ip)));
            await nameSourceIp(deps.store, target.reportRowId, ip, { ptr, baseDomain, service: service?.name ?? null, serviceType: service?.type ?? null });
          } else await tx.update(failureReports).set({ ptr }).where(and(eq(failureReports.id, target.reportRowId), eq(failureReports.sourceIp, ip)));
        }
      }
    });
  } catch (error) {
    // the store may have been closed (a test ended, the CLI exited): enrichment is best effort
    deps.log.debug("reports.ptr_write_skipped", { error });
  }
}
