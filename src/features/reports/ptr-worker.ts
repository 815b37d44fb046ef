/**
 * Worker thread entry for reverseOnWorker (./ptr-remote.ts): answers PTR questions with the
 * project's own resolver, so the encoding, decoding and sockets of many thousands of lookups
 * (a CLI ingest) cost the thread that stores the reports nothing.
 */
import { createResolver, type DnsResolver, type DnsServer } from "../dns/resolver";

export type PtrRequest = { kind: "init"; servers: DnsServer[]; timeoutMs: number } | { kind: "reverse"; id: number; ip: string };
export interface PtrAnswer {
  id: number;
  names: string[];
}

declare const self: Worker;
let resolver: DnsResolver | null = null;

self.onmessage = async (event: MessageEvent<PtrRequest>) => {
  const request = event.data;
  if (request.kind === "init") {
    resolver = createResolver({ servers: request.servers, timeoutMs: request.timeoutMs });
    return;
  }
  let names: string[] = [];
  try {
    names = resolver ? await resolver.reverse(request.ip) : [];
  } catch {
    names = [];
  }
  self.postMessage({ id: request.id, names } satisfies PtrAnswer);
};
