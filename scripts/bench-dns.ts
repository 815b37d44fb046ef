/**
 * npm run bench:dns — the full DNS analysis against the local test DNS server with added
 * latency per answer (standing for the network), cold (empty cache) and cached, for a deep
 * SPF tree. Cold time should be about (tree depth × latency), not (queries × latency).
 *
 *   bun scripts/bench-dns.ts [--latency MS] [--runs N]
 */
import { analyzeDomain } from "../src/features/dns/analyze";
import { createResolver } from "../src/features/dns/resolver";
import { join } from "node:path";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const latency = arg("latency", 20);
const runs = arg("runs", 5);
const domain = "deep.test";

// the DNS server runs in its own process, as a real one would
const server = Bun.spawn([process.execPath, join(import.meta.dir, "../tests/support/dns-server.ts"), "--latency", String(latency)], { stdout: "pipe", stderr: "inherit" });
let port = 0;
const reader = (server.stdout as ReadableStream<Uint8Array>).getReader();
let text = "";
while (!port) {
  const { value, done } = await reader.read();
  if (done) throw new Error("the test DNS server did not start");
  text += new TextDecoder().decode(value);
  port = Number(/PORT (\d+)/.exec(text)?.[1] ?? 0);
}
const resolver = createResolver({ servers: [{ host: "127.0.0.1", port }], timeoutMs: 2000 });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
function depth(node: { children: any[] }): number {
  return 1 + Math.max(0, ...node.children.map(depth));
}

const cold: number[] = [];
const cached: number[] = [];
let queries = 0;
let analysis;
for (let i = 0; i < runs; i++) {
  resolver.clearCache();
  const q0 = resolver.queryCount;
  let t0 = performance.now();
  analysis = await analyzeDomain(resolver, domain);
  cold.push(performance.now() - t0);
  queries = resolver.queryCount - q0;
  t0 = performance.now();
  await analyzeDomain(resolver, domain);
  cached.push(performance.now() - t0);
}
server.kill();
await server.exited;

const tree = analysis!.spf.details.tree!;
const levels = depth(tree);
console.log(`dmarcwarden DNS benchmark: ${domain}, ${latency} ms added per answer, ${runs} runs (median)`);
console.log(`  SPF tree: ${levels} levels, ${analysis!.spf.details.lookupCount} lookups; full analysis: ${queries} DNS queries (DMARC, SPF tree, ${analysis!.dkim.details.selectorsTried.length} DKIM selectors, MX, MTA-STS, TLS-RPT, BIMI)`);
console.log(`  cold:   ${median(cold).toFixed(1)} ms   (depth × latency = ${levels * latency} ms; queries × latency would be ${queries * latency} ms)`);
console.log(`  cached: ${median(cached).toFixed(1)} ms`);
console.log(`  statuses: DMARC ${analysis!.dmarc.status}, SPF ${analysis!.spf.status}, DKIM ${analysis!.dkim.status} → ${analysis!.overallStatus}`);
process.exit(0);
