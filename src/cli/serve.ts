import { join } from "node:path";
import { createHandler } from "../app";
import { ConfigError, parseConfig } from "../config";
import { describeDatabase } from "../db";
import type { AppDeps } from "../deps";
import { geoFromConfig } from "../features/reports/geo";
import { startMailIn } from "../features/mailin/setup";
import { resolverFromConfig, wireDnsChecks } from "../features/dns/setup";
import { probeOptionsFromConfig } from "../features/dns/probes";
import { startDigestScheduler } from "../features/digests/schedule";
import { startRetentionPurge } from "../features/reports/retention";
import { startSchedulerLagProbe } from "../features/metrics/registry";
import { startAlertDelivery } from "../features/alerts/delivery";
import { startReportWatch } from "../features/alerts/report-events";
import { createStripeClient } from "../features/billing/settings";
import { mailerFromConfig } from "../features/mail/mailer";
import { RateLimiter } from "../http/rate-limit";
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
    if (config.geoipDb.trim()) geoFromConfig(config, log);
    // the DNS checks' probes: an unreadable --extra-ca-file stops start-up the same way
    const probes = probeOptionsFromConfig(config);
    const store = await openCommandDatabase(config);
    if (config.seedAdmin) {
      const { seedAdmin } = await import("../features/admin/seed");
      const outcome = await seedAdmin({ store }, config.seedAdmin.username, config.seedAdmin.password);
      log.info("admin_seeded", { username: config.seedAdmin.username, outcome });
    }
    const deps: AppDeps = {
      config,
      store,
      log,
      limiter: new RateLimiter(store),
      assets: assets ?? diskAssets(join(process.env.DW_DIST ?? join(import.meta.dir, "../../dist"), "ui")),
      now: () => new Date(),
      stripe: createStripeClient(config),
      resolver: resolverFromConfig(config),
      probes,
      mailer,
    };
    let demoSignIn: string | null = null;
    if (config.seedDemo) {
      // the demo's senders carry their PTR names already: no DNS lookups while seeding
      const [{ seedDemo }, { describeDemoSeed }] = await Promise.all([import("../features/reports/demo"), import("./seed-demo")]);
      demoSignIn = describeDemoSeed(await seedDemo({ ...deps, resolver: undefined }));
    }
    // queued alerts go out from here (and what a restart left queued, shortly after start)
    const alertDelivery = startAlertDelivery(deps, config.alertDeliveryInterval);
    deps.alertsQueued = alertDelivery.kick;
    const reportWatch = startReportWatch({ ...deps, onEvents: alertDelivery.kick });
    const dnsChecks = wireDnsChecks(deps);
    // weekly digests, on each organisation's day and hour (needs a mail relay)
    const digests = startDigestScheduler(deps);
    // retention: old reports deleted in small batches, once an hour, on the node holding the lease
    const retention = startRetentionPurge(deps);
    // GET /metrics: how late this node's timers fire
    const lagProbe = config.metrics || config.metricsToken ? startSchedulerLagProbe() : null;
    const mailIn = await startMailIn(deps);
    const handler = createHandler(deps);
    const server = listen(() => Bun.serve({ port: config.port, hostname: config.host, maxRequestBodySize: 64 * 1024 * 1024, fetch: handler, idleTimeout: 120 }), config);
    deps.server = server;
    const port = server.port;
    log.info("listening", { url: `http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}`, db: describeDatabase(config), version: VERSION });
    // the demo's sign-in comes last, after the start-up log, where it is seen
    if (demoSignIn) console.log(`\n${demoSignIn}\nOpen http://${config.host === "0.0.0.0" ? "localhost" : config.host}:${port}/login\n`);
    await waitForShutdown(async () => {
      log.info("shutting_down", {});
      // In-flight requests get a few seconds to finish; idle keep-alive connections (an open
      // browser tab) must not hold the process, so they are then closed.
      const drained = await Promise.race([server.stop().then(() => true), Bun.sleep(SHUTDOWN_GRACE_MS).then(() => false)]);
      if (!drained) await server.stop(true);
      await mailIn.stop();
      await dnsChecks.stop();
      await digests.stop();
      await retention.stop();
      lagProbe?.stop();
      await reportWatch.stop();
      await alertDelivery.stop();
      deps.mailer?.close();
      await store.close();
    });
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

function waitForShutdown(onStop: () => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = () => {
      if (stopping) return;
      stopping = true;
      onStop().finally(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
