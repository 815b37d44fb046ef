import type { Config } from "./config";
import type { Store } from "./db";
import type { RateLimiter } from "./http/rate-limit";
import type { SpaAssets } from "./http/spa";
import type { Logger } from "./log";

/**
 * Everything a feature may depend on, built once by the CLI (or by a test) and handed to
 * createApp. Features add optional members here (resolver, mailer, stripe, …) so tests can
 * pass real local stand-ins.
 */
export interface AppDeps {
  config: Config;
  store: Store;
  log: Logger;
  limiter: RateLimiter;
  assets?: SpaAssets;
  /** the current time; tests pass a fixed clock */
  now: () => Date;
  /** the listening server, once started: gives the client's socket address */
  server?: { requestIP(request: Request): { address: string } | null } | null;
}
