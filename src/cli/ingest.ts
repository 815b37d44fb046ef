import { parseConfig } from "../config";
import { existsSync } from "node:fs";
import type { AppDeps } from "../deps";
import { resolverFromConfig } from "../features/dns/setup";
import { expandPaths, readInputs } from "../features/reports/files";
import { geoFromConfig } from "../features/reports/geo";
import { organizationBySlug } from "../features/orgs/service";
import { GroupIngest } from "../features/reports/group-ingest";
import { reportLimits, type IngestResult } from "../features/reports/ingest";
import { abandonLookups, PTR_TIMEOUT_MS, reverseDnsSettled, writeNamesFound } from "../features/reports/reverse-dns";
import { yieldToEventLoop } from "../lib/reports/model";
import { parseInBackground } from "../lib/reports/parallel";
import { RateLimiter } from "../http/rate-limit";
import { createLogger } from "../log";
import type { Command } from "./commands";
import { openExistingDatabase } from "./database";

export interface IngestSummary {
  files: number;
  ingested: number;
  duplicates: number;
  refused: IngestResult[];
  reports: number;
}

/**
 * Ingests files for one organisation; `onProgress` is told after each file. Files are parsed
 * on worker threads a few ahead of the one being stored, so both cores work, and written in
 * groups: one transaction for many files (see group-ingest.ts).
 */
export async function ingestPaths(deps: AppDeps, orgId: string, paths: string[], onProgress?: (done: number, total: number, result: IngestResult) => void): Promise<IngestSummary> {
  const files = expandPaths(paths);
  const summary: IngestSummary = { files: 0, ingested: 0, duplicates: 0, refused: [], reports: 0 };
  let done = 0;
  const onWorkersLost = (reason: string) => deps.log.warn("reports.parse_workers_unavailable", { reason, fallback: "parsing on the main thread" });
  const groups = new GroupIngest(deps, {
    async onResult(result) {
      summary.files++;
      if (result.status === "ingested") summary.ingested++;
      else if (result.status === "duplicate") summary.duplicates++;
      else summary.refused.push(result);
      summary.reports += result.status === "rejected" ? 0 : result.reports.length;
      onProgress?.(++done, Math.max(done, files.length), result);
      // a turn of the event loop per file: the reverse DNS answers (and timers) of the run get in between
      await yieldToEventLoop();
    },
  });
  for await (const { input, parsed } of parseInBackground(readInputs(files), (file) => file.bytes, { limits: reportLimits(deps), onWorkersLost })) {
    await groups.add({ orgId, fileName: input.name, bytes: input.bytes, source: "cli", parsed });
  }
  await groups.finish();
  return summary;
}

function progressBar(done: number, total: number, label: string): string {
  const width = 28;
  const filled = Math.round((done / Math.max(1, total)) * width);
  const name = label.length > 40 ? `…${label.slice(-39)}` : label;
  return `\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${done}/${total} ${name}`.padEnd(90);
}

export const ingestCommand: Command = {
  summary: "ingest report files (XML, gzip, zip, .eml, mbox; folders recursively) for an organization",
  usage: "dmarcwarden ingest --org SLUG PATH... [--db PATH | --database-url URL] [--dns-server HOST[:PORT]]",
  async run({ argv, env }) {
    const config = parseConfig(argv, env, "ingest");
    const slug = config.org;
    if (!slug) {
      console.error("dmarcwarden ingest: --org SLUG is required (the organization the reports belong to).");
      return 2;
    }
    if (config.args.length === 0) {
      console.error("dmarcwarden ingest: give at least one file or folder to ingest.");
      return 2;
    }
    // the files first: a missing path is said in one line, before the database is opened
    const missing = config.args.find((p) => !existsSync(p));
    if (missing) {
      console.error(`dmarcwarden ingest: ${missing}: no such file or folder.`);
      return 2;
    }
    let paths: string[];
    try {
      paths = expandPaths(config.args);
    } catch (error) {
      console.error(`dmarcwarden ingest: ${(error as Error).message}`);
      return 2;
    }
    geoFromConfig(config); // a bad --geoip-db file stops here (one line, exit 2)
    const store = await openExistingDatabase(config);
    try {
      const org = await organizationBySlug({ store }, slug);
      if (!org) {
        console.error(`dmarcwarden ingest: no organization with slug "${slug}".`);
        return 2;
      }
      // ingestion events go to stderr at warn level so the progress bar and summary stay readable
      const log = createLogger(config.logLevel === "info" ? "warn" : config.logLevel, (line) => process.stderr.write(`${line}\n`));
      const deps: AppDeps = { config, store, log, limiter: new RateLimiter(store), now: () => new Date(), resolver: resolverFromConfig(config) };
      const tty = process.stderr.isTTY === true;
      const summary = await ingestPaths(deps, org.id, paths, (done, total, result) => {
        if (tty) process.stderr.write(progressBar(done, total, result.fileName));
        else if (result.status === "rejected") console.error(`refused ${result.fileName}: ${result.error}`);
      });
      if (tty) process.stderr.write("\n");
      // PTR names are written after the reports; the summary waits for them one lookup's timeout at most
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([reverseDnsSettled(), new Promise((resolve) => (timer = setTimeout(resolve, PTR_TIMEOUT_MS)))]);
      clearTimeout(timer);
      console.log(
        `${org.name}: ${summary.files} file(s) read — ${summary.ingested} ingested, ${summary.duplicates} already ingested, ${summary.refused.length} refused; ${summary.reports} report(s).`,
      );
      if (tty) for (const r of summary.refused) console.log(`  refused ${r.fileName}: ${r.error}`);
      // names already found are stored before the database closes; lookups not yet made are dropped
      abandonLookups();
      await writeNamesFound();
      return summary.refused.length > 0 ? 1 : 0;
    } finally {
      await store.close();
    }
  },
};
