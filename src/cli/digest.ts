import { writeFileSync } from "node:fs";
import { ConfigError, parseConfig, type Config } from "../config";
import type { AppDeps } from "../deps";
import { buildDigest, digestWeek } from "../features/digests/service";
import { sendDigest } from "../features/digests/schedule";
import { mailerFromConfig } from "../features/mail/mailer";
import { digestText } from "../features/mail/templates";
import { organizationBySlug } from "../features/orgs/service";
import { RateLimiter } from "../http/rate-limit";
import { renderDigestPdf } from "../lib/alerts/digest-pdf";
import { createLogger } from "../log";
import type { Command } from "./commands";
import { openExistingDatabase } from "./database";
import { brandingFor } from "../features/branding/service";

/** The moment the digest is built for: --week-of's day (UTC) or now. */
function digestMoment(config: Config): Date {
  return config.weekOf ? new Date(`${config.weekOf}T00:00:00Z`) : new Date();
}

/**
 * `dmarcwarden digest --org SLUG [--send | --out FILE.pdf]`: an organisation's weekly digest on
 * demand — printed as text, written as the PDF the mail attaches, or mailed now to its verified
 * owners and admins. The same model as the scheduled digest (src/features/digests).
 */
export const digestCommand: Command = {
  summary: "print an organization's weekly digest, write it as a PDF (--out) or mail it now (--send)",
  usage: "dmarcwarden digest --org SLUG [--send | --out FILE.pdf] [--week-of YYYY-MM-DD] [--db PATH | --database-url URL]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "digest");
    if (!config.org) throw new ConfigError("digest: --org SLUG is required (the organization whose digest to build)");
    if (config.args.length) throw new ConfigError(`digest: unexpected argument "${config.args[0]}" (see --help)`);
    if (config.send && config.out) throw new ConfigError("digest: give --send or --out, not both");
    if (config.out && !/\.pdf$/i.test(config.out)) throw new ConfigError("digest: --out must name a .pdf file");
    const log = createLogger(config.logLevel === "info" ? "warn" : config.logLevel, (line) => process.stderr.write(`${line}\n`));
    const mailer = config.send ? mailerFromConfig(config, log) : undefined;
    if (config.send && !mailer) throw new ConfigError("digest: --send needs --mail-relay, --mail-from and --public-url (or their environment twins)");
    const store = await openExistingDatabase(config);
    try {
      const org = await organizationBySlug({ store }, config.org);
      if (!org) {
        console.error(`dmarcwarden digest: no organization with slug "${config.org}".`);
        return 2;
      }
      const at = digestMoment(config);
      const deps: AppDeps = { config, store, log, limiter: new RateLimiter(store), now: () => at, mailer };
      const week = digestWeek(at);
      if (mailer) {
        const result = await sendDigest({ ...deps, mailer }, org.id, { week });
        for (const to of result.sent) console.log(`sent to ${to}`);
        for (const f of result.failed) console.error(`not sent to ${f.to}: ${f.error}`);
        if (!result.sent.length && !result.failed.length) console.log(`${org.name} has no owner or admin with a verified email address: nothing sent.`);
        mailer.close();
        return result.failed.length ? 1 : 0;
      }
      const digest = await buildDigest(deps, org.id, { week });
      if (config.out) {
        // white-label: the organisation's own or its MSP's name and colour
        const brand = await brandingFor(deps, org.id);
        const pdf = await renderDigestPdf(digest, brand.source === "default" ? null : brand);
        try {
          writeFileSync(config.out, pdf);
        } catch (error) {
          console.error(`dmarcwarden digest: could not write ${config.out}: ${(error as Error).message}`);
          return 2;
        }
        console.log(`${config.out}: ${pdf.byteLength} bytes, the weekly digest of ${org.name}`);
        return 0;
      }
      process.stdout.write(digestText(digest));
      return 0;
    } finally {
      await store.close();
    }
  },
};
