/**
 * A resolver whose PTR lookups run on a worker thread (./ptr-worker.ts) and whose other
 * lookups stay on this one. For the CLI's bulk ingest: reverse DNS of every source address
 * would otherwise take more of the storing thread than the writes. If the worker cannot run,
 * lookups go to the resolver here.
 */
import type { DnsResolver, DnsServer } from "../dns/resolver";
import type { PtrAnswer, PtrRequest } from "./ptr-worker";

export interface RemoteReverse extends DnsResolver {
  /** ends the worker; PTR questions after it are answered here */
  close(): void;
}

function workerUrl(): string {
  return new URL(import.meta.url.includes("$bunfs") ? "./ptr-worker.js" : "./ptr-worker.ts", import.meta.url).href;
}

export function reverseOnWorker(here: DnsResolver, options: { servers: DnsServer[]; timeoutMs: number }, onLost?: (reason: string) => void): RemoteReverse {
  const waiting = new Map<number, { ip: string; resolve: (names: string[] | Promise<string[]>) => void }>();
  let next = 0;
  let worker: Worker | null = null;
  const lose = (reason: string) => {
    if (!worker) return;
    worker.terminate();
    worker = null;
    onLost?.(reason);
    // what the worker held is asked here
    for (const [, { ip, resolve }] of waiting) resolve(here.reverse(ip));
    waiting.clear();
  };
  try {
    worker = new Worker(workerUrl());
    worker.onmessage = (event: MessageEvent<PtrAnswer>) => {
      const asked = waiting.get(event.data.id);
      waiting.delete(event.data.id);
      asked?.resolve(event.data.names);
    };
    worker.onerror = (event) => lose(event.message);
    worker.postMessage({ kind: "init", servers: options.servers, timeoutMs: options.timeoutMs } satisfies PtrRequest);
  } catch (error) {
    worker = null;
    onLost?.(String(error));
  }
  const remote = Object.create(here) as RemoteReverse;
  remote.reverse = (ip: string) => {
    const w = worker;
    if (!w) return here.reverse(ip);
    const id = next++;
    return new Promise<string[]>((resolve) => {
      waiting.set(id, { ip, resolve });
      w.postMessage({ kind: "reverse", id, ip } satisfies PtrRequest);
    });
  };
  remote.close = () => {
    worker?.terminate();
    worker = null;
    for (const [, { resolve }] of waiting) resolve([]);
    waiting.clear();
  };
  return remote;
}
