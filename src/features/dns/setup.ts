/** Builds the resolver from configuration and wires the domain checks into a running server. */
import type { Config } from "../../config";
import type { AppDeps } from "../../deps";
import { checkOnAdd, startDomainCheckScheduler, type StatusDeps } from "../domains/status";
import { selectorsSeen } from "../reports/service";
import { dnsCachePolicy } from "../settings/service";
import { createResolver, dnsServersFromConfig, type DnsResolver } from "./resolver";

export function resolverFromConfig(config: Config): DnsResolver {
  return createResolver({ servers: dnsServersFromConfig(config.dnsServer), timeoutMs: config.dnsTimeout });
}

/**
 * What the domain checks run with: each domain is checked with the DKIM selectors seen in its
 * organisation's reports and under that organisation's DNS cache settings. Null without a resolver.
 */
export function domainCheckDeps(deps: AppDeps): StatusDeps | null {
  const resolver = deps.resolver;
  if (!resolver) return null;
  return {
    store: deps.store,
    resolver,
    probes: deps.probes,
    now: deps.now,
    log: deps.log,
    reportSelectors: (orgId, domain) => selectorsSeen(deps, orgId, domain, { now: deps.now() }),
    cachePolicy: (orgId) => dnsCachePolicy(deps, orgId),
    onEvents: () => deps.alertsQueued?.(),
  };
}

/**
 * Checks each newly added domain (deps.onDomainAdded) and re-checks all domains every
 * --dns-check-interval minutes (see domainCheckDeps), and MSPs' verified custom hostnames daily.
 * Returns the schedulers, to stop on shutdown.
 */
export function wireDnsChecks(deps: AppDeps): { stop(): Promise<void> } {
  const statusDeps = domainCheckDeps(deps);
  if (!statusDeps) return { stop: async () => {} };
  const previous = deps.onDomainAdded;
  const check = checkOnAdd(statusDeps);
  deps.onDomainAdded = (id) => {
    previous?.(id);
    check(id);
  };
  const domains = startDomainCheckScheduler(statusDeps, deps.config.dnsCheckInterval);
  // MSPs' verified custom hostnames are re-checked daily; the module loads a minute after start
  let hostnames: Promise<{ stop(): Promise<void> }> | null = null;
  const later = setTimeout(() => (hostnames = import("../branding/hostname-recheck").then((m) => m.startHostnameRecheck(deps))), 60_000);
  return {
    async stop() {
      clearTimeout(later);
      await Promise.all([domains.stop(), hostnames?.then((h) => h.stop())]);
    },
  };
}
