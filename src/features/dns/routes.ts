import { Elysia } from "elysia";
import type { AppDeps } from "../../deps";
import { parseInput, ServiceError, ValidationError } from "../../http/errors";
import { access } from "../../http/access";
import { clientAddress } from "../../http/client";
import { normalizeDomainInput } from "../../lib/domain-name";
import { selectorsSeen } from "../reports/service";
import { dnsCachePolicy } from "../settings/service";
import { analyzeDomain } from "./analyze";
import { DNS_LOOKUP_LIMIT, dnsLookupRequest } from "./contract";

/**
 * POST /api/dns-lookup {domain, selectors?}: public (the landing, the demo and the app's
 * lookup use it), rate-limited per client, inputs bounded. A signed-in caller also gets the
 * DKIM selectors seen in their organisation's reports, under the organisation's DNS cache
 * settings; signed out, only the given and common selectors, under the server's cache.
 */
export function dnsRoutes(deps: AppDeps) {
  return new Elysia({ name: "dns" }).use(access(deps)).post(
    "/api/dns-lookup",
    async ({ ctx, body, request }) => {
      const input = parseInput(dnsLookupRequest, body);
      const domain = normalizeDomainInput(input.domain);
      if (!domain.ok) throw new ValidationError(domain.message, { domain: domain.message });
      await deps.limiter.hit("dns-lookup", clientAddress(deps, request), DNS_LOOKUP_LIMIT.perWindow, DNS_LOOKUP_LIMIT.windowSeconds, `Too many DNS lookups. Please wait a minute and try again.`);
      if (!deps.resolver) throw new ServiceError(503, "dns_unavailable", "DNS lookups are not available on this server.");
      const actor = await ctx.actor();
      if (!actor) return analyzeDomain(deps.resolver, domain.domain, { selectors: input.selectors, now: deps.now, probes: deps.probes });
      return analyzeDomain(deps.resolver.withPolicy(await dnsCachePolicy(ctx, actor.orgId)), domain.domain, {
        selectors: input.selectors,
        reportSelectors: await selectorsSeen(ctx, actor.orgId, domain.domain, { now: deps.now() }),
        now: deps.now,
        probes: deps.probes,
      });
    },
    { public: true },
  );
}
