/**
 * Reverse DNS (PTR) enrichment, run after a report is stored so ingestion never waits on
 * DNS. Each lookup has a timeout; answers (and failures) are cached for an hour, and one
 * address asked for by many reports at once is looked up once. However many reports are
 * stored at once (a CLI ingest of thousands of files), at most `MAX_IN_FLIGHT` lookups are
 * under way in the whole process. A large report's lookups (src/lib/memory.ts) wait while another
 * large report is being written, and large reports' enrichments take turns, so reports uploaded
 * back to back are named one after another once the uploads are done instead of all holding their
 * memory at once. The sending service is derived from the PTR name's base domain.
 */
import { and, eq, sql } from "drizzle-orm";
import { insertRows, type RowsInsert } from "../../db/json-rows";
import type { ServiceContext } from "../../http/access";
import { collectNow, collectWhenGrown, largeWritesDone } from "../../lib/memory";
import { organizationName } from "../orgs/service";
import { raiseRollupVersion } from "./read-cache";
import { sendingServiceOf } from "./senders";
import type { SourceName } from "./source-names";
import { Slots } from "../../lib/slots";

interface ReverseResolver {
  reverse(ip: string): Promise<string[]>;
  /** the same resolver under another cache policy (src/features/dns/resolver.ts) */
  withPolicy?(policy: { cache?: boolean }): ReverseResolver;
}

/** how long one lookup may take */
export const PTR_TIMEOUT_MS = 3000;
const CACHE_TTL_MS = 3600_000;
const CACHE_MAX = 20_000;
/** lookups under way at once, across every report being enriched */
export const MAX_IN_FLIGHT = 64;
/**
 * lookups waiting for a slot; past it an address is not looked up this time (its PTR stays
 * empty, and a later report may look it up), so slow DNS never makes the queue grow with the reports
 */
export const MAX_WAITING = 10_000;

const slots = new Slots(MAX_IN_FLIGHT, MAX_WAITING);
/** a lookup not made because too many wait (not cached: a later report asks again) */
const SKIPPED = Symbol("skipped");
/** false once the process is about to end (the CLI after its summary): queued lookups are not made */
let accepting = true;

/** Drops the lookups still waiting for a slot (those under way end within their timeout). For a process about to end. */
export function abandonLookups(): void {
  accepting = false;
}
/** lookups under way, by resolver and address: a second report asking waits for the same answer */
const inFlight = new WeakMap<ReverseResolver, Map<string, Promise<string | null>>>();

/** Lookups under way right now (never more than MAX_IN_FLIGHT). */
export const ptrLookupsInFlight = () => slots.inFlight;

/**
 * Each resolver as asked for PTR names: its answers are kept here (`caches`), so the resolver's own
 * cache is not filled with them a second time (20,000 addresses held twice were about 8 MB of heap).
 */
const uncached = new WeakMap<ReverseResolver, ReverseResolver>();
function asked(resolver: ReverseResolver): ReverseResolver {
  let plain = uncached.get(resolver);
  if (!plain) uncached.set(resolver, (plain = typeof resolver.withPolicy === "function" ? resolver.withPolicy({ cache: false }) : resolver));
  return plain;
}

/**
 * One address's answer, kept CACHE_TTL_MS. `writtenFor`: the organizations whose source_names row
 * this process has written with it: a bulk ingest's reports share their addresses, and an address
 * named once is not written again for every later report of the same organization within the hour.
 * A list, not a Set: nearly always one organization, and the cache holds up to CACHE_MAX answers
 * (20,000 Sets were 3.6 MB of heap more than as many one-element arrays).
 */
interface Answer {
  ptr: string | null;
  expires: number;
  writtenFor?: string[];
}
type Answers = Map<string, Answer>;
/** answers per resolver: one resolver's answers never stand in for another's (tests give each app its own) */
const caches = new WeakMap<ReverseResolver, Answers>();
const pending = new Set<Promise<void>>();

function resolverOf(deps: ServiceContext): ReverseResolver | null {
  const candidate = (deps as ServiceContext & { resolver?: ReverseResolver | null }).resolver;
  return candidate && typeof candidate.reverse === "function" ? candidate : null;
}

function lookupPtr(resolver: ReverseResolver, ip: string): Promise<string | null> | string | null {
  let cache = caches.get(resolver);
  if (!cache) caches.set(resolver, (cache = new Map()));
  const hit = cache.get(ip);
  if (hit && hit.expires > Date.now()) return hit.ptr;
  let running = inFlight.get(resolver);
  if (!running) inFlight.set(resolver, (running = new Map()));
  const already = running.get(ip);
  if (already) return already;
  const lookup = slots
    .runOrSkip<string | null | typeof SKIPPED>(() => (accepting ? resolvePtr(resolver, ip, cache) : Promise.resolve(SKIPPED)), SKIPPED)
    .then((ptr) => (ptr === SKIPPED ? null : ptr))
    .finally(() => running.delete(ip));
  running.set(ip, lookup);
  return lookup;
}

async function resolvePtr(resolver: ReverseResolver, ip: string, cache: Answers): Promise<string | null> {
  const now = Date.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<string[]>((resolve) => {
    timer = setTimeout(() => resolve([]), PTR_TIMEOUT_MS);
  });
  let ptr: string | null = null;
  try {
    const names = await Promise.race([asked(resolver).reverse(ip), timeout]);
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
  /** a stored report's addresses, or ("sources") addresses of the organization's roll-ups with no name yet (nameUnnamedSources) */
  table: "aggregate" | "failure" | "sources";
  /** the organization the report belongs to */
  orgId: string;
  /** the report (empty for "sources") */
  reportRowId: string;
  ips: string[];
  /** one large report's addresses (src/lib/memory.ts): looked up and named keeping memory near what is live */
  large?: boolean;
}

/** the last large report's enrichment (settled): the next one starts after it */
let largeTurn: Promise<void> = Promise.resolve();

/** Starts PTR lookups for freshly stored reports; returns at once. */
export function scheduleReverseDns(deps: ServiceContext, targets: EnrichmentTarget[]): void {
  const resolver = resolverOf(deps);
  if (!resolver || targets.length === 0) return;
  const large = targets.some((t) => t.large);
  // large reports' enrichments take turns: several uploaded back to back are named one after another, not all at once
  const enrich = () => runEnrichment(deps, resolver, targets, large);
  const run = large ? largeTurn.then(enrich) : enrich();
  const job = run.catch((error) => deps.log.warn("reports.ptr_failed", { error }));
  if (large) largeTurn = job;
  pending.add(job);
  void job.finally(() => pending.delete(job));
}

/** addresses named per read at most (nameUnnamedSources): a window of thousands of unnamed addresses is named over several reads */
export const UNNAMED_PER_READ = 500;

/**
 * Looks up, in the background, the PTR names of some of an organization's sending addresses
 * that source_names has no name for: those a CLI ingest ended before asking (its summary waits
 * one lookup's timeout at most), those skipped while too many lookups waited, those stored with
 * no resolver. Addresses this process asked about within the hour (named or not) or is asking
 * about now are left out, so a list read again asks nothing; at most UNNAMED_PER_READ,
 * in the order given (the most mail first). Names found are written to source_names.
 */
export function nameUnnamedSources(deps: ServiceContext, orgId: string, ips: readonly string[]): void {
  const resolver = resolverOf(deps);
  if (!resolver || ips.length === 0) return;
  const cache = caches.get(resolver);
  const running = inFlight.get(resolver);
  const now = Date.now();
  const fresh: string[] = [];
  for (const ip of ips) {
    if (fresh.length >= UNNAMED_PER_READ) break;
    const hit = cache?.get(ip);
    if ((hit && hit.expires > now) || running?.has(ip)) continue;
    fresh.push(ip);
  }
  scheduleReverseDns(deps, fresh.length ? [{ table: "sources", orgId, reportRowId: "", ips: fresh }] : []);
}

/** Resolves when every scheduled PTR lookup has been written (CLI and tests wait on it). */
export async function reverseDnsSettled(): Promise<void> {
  while (pending.size > 0) await Promise.allSettled([...pending]);
}

/** `many`: a target is a large report (its lookups keep memory near what is live, wait for other large writes, end with a full collection). */
async function runEnrichment(deps: ServiceContext, resolver: ReverseResolver, targets: EnrichmentTarget[], many: boolean): Promise<void> {
  const ips = [...new Set(targets.flatMap((t) => t.ips))];
  /** the names found (addresses without one are left out) */
  const ptrs = new Map<string, string>();
  // at most MAX_IN_FLIGHT lookups of this job ask for a slot at a time, each taking the next
  // address when its own is answered: a report of 20,000 addresses holds 64 lookups, not 20,000
  // promises, and never fills the shared waiting line by itself
  let next = 0;
  // a large report's lookups keep memory near what is live; a bulk ingest's files are never held up by collections
  if (many) collectWhenGrown();
  const lookups = async () => {
    while (next < ips.length) {
      // a large report's lookups wait while another large report is being written: the two never hold their memory at once
      if (many) await largeWritesDone();
      if (next >= ips.length) break;
      const ip = ips[next++]!;
      const ptr = await lookupPtr(resolver, ip);
      if (ptr) ptrs.set(ip, ptr);
      // each lookup leaves a socket's and a packet's garbage behind
      if (many && next % 32 === 0) collectWhenGrown();
    }
  };
  await Promise.all(Array.from({ length: Math.min(MAX_IN_FLIGHT, ips.length) }, lookups));
  const named = targets.reduce((n, t) => n + t.ips.filter((ip) => ptrs.has(ip)).length, 0);
  if (named > 0) await queueNames(deps, { targets, ptrs, answers: caches.get(resolver) }, named);
  // a large report's last step: the heap it leaves is what stays live, not the garbage of its lookups and names
  if (many) collectNow();
}

interface Named {
  targets: EnrichmentTarget[];
  ptrs: Map<string, string>;
  /** the answers the names came from (their `writtenFor`) */
  answers?: Answers;
}

/**
 * Names found are written in batches, one transaction for many reports (a CLI ingest of
 * thousands of files would otherwise add a commit per file): a batch is written once it holds
 * `BATCH_NAMES` names or `BATCH_MS` after its first, whichever comes first.
 */
const BATCH_NAMES = 2000;
const BATCH_MS = 50;
interface Batch {
  deps: ServiceContext;
  items: Named[];
  names: number;
  timer: ReturnType<typeof setTimeout>;
  written: Promise<void>;
  done: () => void;
}
/** the batch being filled, per store (removed when written) */
const batches = new Map<object, Batch>();
/** batches being written */
const writing = new Set<Promise<void>>();

function queueNames(deps: ServiceContext, item: Named, names: number): Promise<void> {
  const key = deps.store as object;
  let batch = batches.get(key);
  if (!batch) {
    let done!: () => void;
    const written = new Promise<void>((resolve) => (done = resolve));
    batch = { deps, items: [], names: 0, timer: setTimeout(() => void flush(key), BATCH_MS), written, done };
    batches.set(key, batch);
  }
  batch.items.push(item);
  batch.names += names;
  const written = batch.written;
  if (batch.names >= BATCH_NAMES) void flush(key);
  return written;
}

async function flush(key: object): Promise<void> {
  const batch = batches.get(key);
  if (!batch) return;
  batches.delete(key);
  clearTimeout(batch.timer);
  const written = writeNames(batch.deps, batch.items).finally(() => {
    writing.delete(written);
    batch.done();
  });
  writing.add(written);
  await written;
}

/**
 * Writes the names already found, now, and resolves once they are stored; lookups still under
 * way are not waited for. The CLI calls it after its summary, before closing the database.
 */
export async function writeNamesFound(): Promise<void> {
  await Promise.all([...batches.keys()].map(flush));
  await Promise.allSettled([...writing]);
}

/** An address with its reverse DNS name and the sending service it names, as source_names keeps them; `answer`: the lookup's answer it came from. */
type RecordName = SourceName & { ip: string; answer?: Answer };

/** names written per statement: source_names rows per upsert */
const NAMES_PER_STATEMENT = 500;

async function writeNames(deps: ServiceContext, items: Named[]): Promise<void> {
  const { failureReports } = deps.store.t;
  try {
    const written = await deps.store.write(async (tx) => {
      // each organization's names once, whatever number of its reports name an address in this
      // batch (a bulk ingest's files share their addresses): the last answer for an address stands
      const byOrg = new Map<string, { names: Map<string, RecordName>; large: boolean }>();
      /** organizations known to exist in this write ("sources" targets) */
      const orgsFound = new Map<string, boolean>();
      for (const { targets, ptrs, answers } of items) {
        for (const target of targets) {
          if (target.table === "failure") {
            for (const ip of target.ips) {
              const ptr = ptrs.get(ip);
              if (ptr) await tx.update(failureReports).set({ ptr }).where(and(eq(failureReports.id, target.reportRowId), eq(failureReports.sourceIp, ip)));
            }
            continue;
          }
          const fresh: RecordName[] = [];
          for (const ip of target.ips) {
            const ptr = ptrs.get(ip);
            if (!ptr) continue;
            const answer = answers?.get(ip);
            const current = answer?.ptr === ptr ? answer : undefined;
            // this answer is already the organization's row (written by this process within the hour)
            if (current?.writtenFor?.includes(target.orgId)) continue;
            const { baseDomain, service } = sendingServiceOf(ptr);
            fresh.push({ ip, ptr, baseDomain, service: service?.name ?? null, serviceType: service?.type ?? null, answer: current });
          }
          // nothing new to write: its report or organization need not be read
          if (!fresh.length || !(await targetStands(deps.store, target, orgsFound))) continue;
          let org = byOrg.get(target.orgId);
          if (!org) byOrg.set(target.orgId, (org = { names: new Map(), large: false }));
          org.large ||= target.large === true;
          for (const name of fresh) org.names.set(name.ip, name);
        }
      }
      for (const [orgId, { names, large }] of byOrg) await upsertNames(deps.store, orgId, [...names.values()], large);
      return byOrg;
    });
    // committed: each answer is now its organization's row
    for (const [orgId, { names }] of written) for (const { answer } of names.values()) if (answer && !answer.writtenFor?.includes(orgId)) (answer.writtenFor ??= []).push(orgId);
  } catch (error) {
    // the store may have been closed (a test ended, the CLI exited): enrichment is best effort
    deps.log.debug("reports.ptr_write_skipped", { error });
  }
}

/**
 * Whether a target's names are still to be written: its aggregate report is still stored, or
 * (a "sources" target) its organization still exists (`orgsFound` remembers those asked in this
 * write). Inside the caller's store.write.
 */
async function targetStands(store: ServiceContext["store"], target: EnrichmentTarget, orgsFound: Map<string, boolean>): Promise<boolean> {
  if (target.table === "aggregate") return (await store.rows(sql`SELECT 1 AS found FROM aggregate_reports WHERE org_id = ${target.orgId} AND id = ${target.reportRowId}`)).length > 0;
  let found = orgsFound.get(target.orgId);
  if (found === undefined) orgsFound.set(target.orgId, (found = (await organizationName({ store }, target.orgId)) !== null));
  return found;
}

/**
 * The source_names rows of `names`, NAMES_PER_STATEMENT per statement, then the organization's
 * roll-up version raised (its kept answers, read-cache.ts) if any row was written. A row that
 * already holds the same name is left as it was: no write, and the version holds, as an address
 * looked up again names nothing new.
 */
async function upsertNames(store: ServiceContext["store"], orgId: string, names: RecordName[], large: boolean): Promise<void> {
  const into: RowsInsert = {
    table: "source_names",
    columns: ["org_id", "source_ip", "ptr", "base_domain", "service", "service_type"],
    fixed: [sql`${orgId}`],
    tail: sql`ON CONFLICT (org_id, source_ip) DO UPDATE SET ptr = excluded.ptr, base_domain = excluded.base_domain, service = excluded.service, service_type = excluded.service_type
      WHERE source_names.ptr IS DISTINCT FROM excluded.ptr OR source_names.base_domain IS DISTINCT FROM excluded.base_domain
        OR source_names.service IS DISTINCT FROM excluded.service OR source_names.service_type IS DISTINCT FROM excluded.service_type
      RETURNING 1 AS written`,
    perStatement: NAMES_PER_STATEMENT,
  };
  let written = 0;
  for (let at = 0; at < names.length; at += NAMES_PER_STATEMENT) {
    if (large) collectWhenGrown();
    written += await insertRows(store, into, names.slice(at, at + NAMES_PER_STATEMENT).map((n) => [n.ip, n.ptr, n.baseDomain, n.service, n.serviceType]));
  }
  // names are no part of any settled days' sums (read-cache.ts, windowSums): the settled version holds
  if (written) await raiseRollupVersion(store, orgId, true);
}
