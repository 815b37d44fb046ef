import { ConfigError, parseConfig } from "../config";
import { analyzeDomain } from "../features/dns/analyze";
import { formatAnalysis } from "../features/dns/format";
import { probeOptionsFromConfig } from "../features/dns/probes";
import { resolverFromConfig } from "../features/dns/setup";
import { normalizeDomainInput } from "../lib/domain-name";
import type { Command } from "./commands";

/** `dmarcwarden check DOMAIN [--json] [--dns-server …] [--selector …]`: the DNS analysis of the lookup screen, in a terminal. */
export const checkCommand: Command = {
  summary: "check a domain's DMARC, SPF, DKIM, MX (STARTTLS), MTA-STS (policy file), TLS-RPT, BIMI (logo) and DNSSEC and print the findings",
  usage: "dmarcwarden check DOMAIN [--json] [--dns-server HOST[:PORT]] [--selector NAME] [flags]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "check");
    const json = config.json;
    if (config.args.length !== 1) throw new ConfigError("check needs exactly one DOMAIN (see --help)");
    const domain = normalizeDomainInput(config.args[0]);
    if (!domain.ok) throw new ConfigError(`${domain.error}: ${domain.message}`);
    const probes = probeOptionsFromConfig(config);
    const analysis = await analyzeDomain(resolverFromConfig(config), domain.domain, { selectors: config.selector, probes });
    console.log(json ? JSON.stringify(analysis, null, 2) : formatAnalysis(analysis));
    // exit 0 when protected, 1 otherwise (scripts can alert on it), 3 when DNS failed
    return analysis.incomplete ? 3 : analysis.overallStatus === "protected" ? 0 : 1;
  },
};
