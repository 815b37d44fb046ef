/** Builds the resolver from configuration and wires the domain checks into a running server. */
import type { Config } from "../../config";
import type { AppDeps } from "../../deps";
import { checkOnAdd, startDomainCheckScheduler } from "../domains/status";
import { createResolver, dnsServersFromConfig, type DnsResolver } from "./resolver";

export function resolverFromConfig(config: Config): DnsResolver {
  return createResolver({ servers: dnsServersFromConfig(config.raw["dns-server"]), timeoutMs: (config.raw["dns-timeout"] as number | undefined) ?? 2500 });
}

/**
 * Checks each newly added domain (deps.onDomainAdded) and re-checks all domains every
 * --dns-check-interval minutes. Returns the scheduler, to stop on shutdown.
 */
export function wireDnsChecks(deps: AppDeps): { stop(): Promise<void> } {
  const resolver = deps.resolver;
  if (!resolver) return { stop: async () => {} };
  const statusDeps = { db: deps.store.db, resolver, now: deps.now, log: deps.log };
  const previous = deps.onDomainAdded;
  const check = checkOnAdd(statusDeps);
  deps.onDomainAdded = (id) => {
    previous?.(id);
    check(id);
  };
  return startDomainCheckScheduler(statusDeps, (deps.config.raw["dns-check-interval"] as number | undefined) ?? 360);
}
