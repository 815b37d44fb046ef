import { join } from "node:path";
import { ConfigError, parseConfig } from "../config";
import { describeDatabase } from "../db";
import type { AppDeps } from "../deps";
import { mailerFromConfig } from "../features/mail/mailer";
import { bootHandler } from "../http/boot";
import { diskAssets } from "../http/spa";
import { createLogger } from "../log";
import { VERSION } from "../version";
import type { Command } from "./commands";
import { openCommandDatabase } from "./database";

export const serveCommand: Command = {
  summary: "start the web server (and, when configured, the SMTP receiver and scheduler)",
  usage: "dmarcwarden serve [flags]",
  async run({ argv, env, assets }) {
    const config = parseConfig(argv, env, "serve");
    const log = createLogger(config.logLevel);
    // checked before the database is opened: a bad mail setting stops start-up with one line
    const mailer = mailerFromConfig(config, log);
    // the geolocation database: a bad --geoip-db file stops start-up the same way (the
    // embedded one is opened by the first lookup instead: 8 MB not held by an idle server)
    if (config.geoipDb.trim()) (await import("../features/reports/geo")).geoFromConfig(config, log);
    // the DNS checks' probes: an unreadable --extra-ca-file stops start-up the same way (the
    // probes themselves load with the rest of the server)
    const probes = config.extraCaFile ? (await import("../features/dns/probes")).probeOptionsFromConfig(config) : undefined;
    const store = await openCommandDatabase(config, log);
    if (config.seedAdmin) {
      const { seedAdmin } = await import("../features/admin/seed");
      const outcome = await seedAdmin({ store }, config.seedAdmin.username, config.seedAdmin.password);
      log.info("admin_seeded", { username: config.seedAdmin.username, outcome });
    }
    const deps = {
      config,
      store,
      log,
      assets: assets ?? diskAssets(join(process.env.DW_DIST ?? join(import.meta.dir, "../../dist"), "ui")),
      now: () => new Date(),
      // billing's settings are checked (and the Stripe client made) before anything else loads
      stripe: (await import("../features/billing/settings")).createStripeClient(config),
      probes,
      mailer,
    } as AppDeps;
    let demoSignIn: string | null = null;
    if (config.seedDemo) {
      // the demo's senders carry their PTR names already: no DNS lookups while seeding
      const [{ seedDemo }, { describeDemoSeed }] = await Promise.all([import("../features/reports/demo"), import("./seed-demo")]);
      demoSignIn = describeDemoSeed(await seedDemo({ ...deps, resolver: undefined }));
    }
    // The SMTP receiver listens before /healthz answers (a sender may deliver right after it).
    // The rest (schedulers, mail-in) starts once the server listens, and the app's routes load
    // with the first request other than /healthz (src/http/boot.ts).
    let starting: Promise<Rest> | null = config.smtpPort ? Promise.resolve(await startRest(deps)) : null;
    const rest = () => (starting ??= startRest(deps));
    let fail!: (error: unknown) => void;
    const failed = new Promise<never>((_, reject) => (fail = reject));
    const boot = bootHandler(deps, async () => {
      try {
        await rest();
        const { createHandler } = await import("../app");
        return createHandler(deps);
      } catch (error) {
        fail(error);
        throw error;
      }
    });
    const server = listen(() => Bun.serve({ port: config.port, hostname: config.host, maxRequestBodySize: 64 * 1024 * 1024, fetch: boot.fetch, idleTimeout: 120 }), config);
    deps.server = server;
    const port = server.port;
    log.info("listening", { url: `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`, db: describeDatabase(config), version: VERSION });
    // the demo's sign-in comes last, after the start-up log, where it is seen
    if (demoSignIn) console.log(`\n${demoSignIn}\nOpen http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}/login\n`);
    let stopping = false;
    const shutdown = waitForShutdown().then(() => void (stopping = true));
    // what has started, for stopping it
    const started = async () => (starting ? await starting.catch(() => null) : null);
    try {
      // the rest starts right after the first answer (a health check polling the start is not
      // kept waiting by it), with the first request that needs the app, or REST_AFTER_MS after
      // listening when no request comes
      await Promise.race([boot.firstAnswered, Bun.sleep(REST_AFTER_MS), shutdown, failed]);
      if (!stopping) await rest();
      await Promise.race([shutdown, failed]);
    } catch (error) {
      await server.stop(true);
      await (await started())?.stop();
      deps.mailer?.close();
      await store.close();
      throw error;
    }
    log.info("shutting_down", {});
    // In-flight requests get a few seconds to finish; idle keep-alive connections (an open
    // browser tab) must not hold the process, so they are then closed.
    const drained = await Promise.race([server.stop().then(() => true), Bun.sleep(SHUTDOWN_GRACE_MS).then(() => false)]);
    if (!drained) await server.stop(true);
    await (await started())?.stop();
    deps.mailer?.close();
    await store.close();
    return 0;
  },
};

/** Starts listening, or stops with one line naming --port / --host (a port in use, an address not on this machine). */
function listen<T>(start: () => T, config: { port: number; host: string }): T {
  try {
    return start();
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    throw new ConfigError(`--port ${config.port} / --host ${config.host}: cannot listen (${reason})`);
  }
}

/** How long shutdown waits for in-flight HTTP requests before closing connections. */
const SHUTDOWN_GRACE_MS = 5000;

/** Resolves on the first SIGINT or SIGTERM. */
function waitForShutdown(): Promise<void> {
  return new Promise((resolve) => {
    process.on("SIGINT", () => resolve());
    process.on("SIGTERM", () => resolve());
  });
}

/** How long after listening the rest of the server loads when no request has come. */
const REST_AFTER_MS = 50;

interface Rest {
  stop(): Promise<void>;
}

/**
 * The parts that need the services: the rate limiter, the schedulers (alert delivery, report
 * watch, DNS checks, digests, retention, the metrics' lag probe) and mail-in (server key,
 * SMTP receiver, mailbox poller). Loaded when first needed, not before the server listens.
 */
async function startRest(deps: AppDeps): Promise<Rest> {
  const config = deps.config;
  const [{ probeOptionsFromConfig }, { createResolver, dnsServersFromConfig }, { RateLimiter }, { startAlertDelivery }, { startReportWatch }, { wireDnsChecks }, { startDigestScheduler }, { startRetentionPurge }, { startSchedulerLagProbe }, { startMailIn }, { startKeptRefresh }] =
    await Promise.all([
      import("../features/dns/probes"),
      import("../features/dns/resolver"),
      import("../http/rate-limit"),
      import("../features/alerts/delivery"),
      import("../features/alerts/report-events"),
      import("../features/dns/setup"),
      import("../features/digests/schedule"),
      import("../features/reports/retention"),
      import("../features/metrics/registry"),
      import("../features/mailin/setup"),
      import("../features/reports/read-cache"),
    ]);
  deps.probes ??= probeOptionsFromConfig(config);
  deps.resolver = createResolver({ servers: dnsServersFromConfig(config.dnsServer), timeoutMs: config.dnsTimeout });
  deps.limiter = new RateLimiter(deps.store);
  // queued alerts go out from here (and what a restart left queued, shortly after start)
  const alertDelivery = startAlertDelivery(deps, config.alertDeliveryInterval);
  deps.alertsQueued = alertDelivery.kick;
  const reportWatch = startReportWatch({ ...deps, onEvents: alertDelivery.kick });
  const dnsChecks = wireDnsChecks(deps);
  // weekly digests, on each organisation's day and hour (needs a mail relay)
  const digests = startDigestScheduler(deps);
  // retention: old reports deleted in small batches, once an hour, on the node holding the lease
  const retention = startRetentionPurge(deps);
  // kept answers (Senders, the sender page, …) computed again once new data has settled
  const keptRefresh = startKeptRefresh(deps.store, (error) => deps.log.warn("kept_refresh_failed", { error: error instanceof Error ? error.message : String(error) }));
  // GET /metrics: how late this node's timers fire
  const lagProbe = config.metrics || config.metricsToken ? startSchedulerLagProbe() : null;
  let mailIn: { stop(): Promise<void> };
  try {
    mailIn = await startMailIn(deps);
  } catch (error) {
    await Promise.all([dnsChecks.stop(), digests.stop(), retention.stop(), reportWatch.stop(), alertDelivery.stop(), keptRefresh.stop()]);
    lagProbe?.stop();
    throw error;
  }
  return {
    async stop() {
      await mailIn.stop();
      await dnsChecks.stop();
      await digests.stop();
      await retention.stop();
      await keptRefresh.stop();
      lagProbe?.stop();
      await reportWatch.stop();
      await alertDelivery.stop();
    },
  };
}
