/** Shapes of the trends API (`GET /api/trends`, `GET /api/trends/sources`), shared with the UI. */
import { z } from "zod";
import { MAX_TREND_DAYS, parseUtcDate } from "../../lib/trends";

export type { TrendDay, TrendSeries } from "../../lib/trends";

export const DEFAULT_TREND_DAYS = 30;
const DAYS_MESSAGE = `days must be a whole number from 1 to ${MAX_TREND_DAYS}`;
const DATE_MESSAGE = "from and to must be dates written YYYY-MM-DD";
const date = z
  .string({ error: DATE_MESSAGE })
  .refine((v) => !Number.isNaN(parseUtcDate(v)), DATE_MESSAGE)
  .optional();

/**
 * ?days=N (1–400, default 30: the last N UTC days, today included) or a custom ?from=&to=
 * (YYYY-MM-DD, both included, at most 400 days); ?domain=NAME narrows to one of the
 * organisation's domains.
 */
export const trendsQuerySchema = z
  .object({
    days: z.coerce.number({ error: DAYS_MESSAGE }).int(DAYS_MESSAGE).min(1, DAYS_MESSAGE).max(MAX_TREND_DAYS, DAYS_MESSAGE).default(DEFAULT_TREND_DAYS),
    from: date,
    to: date,
    domain: z
      .string()
      .max(300, "domain must be one of this organization's domains")
      .optional()
      .transform((v) => v?.trim().toLowerCase().replace(/\.$/, "") || undefined),
  })
  .superRefine((q, ctx) => {
    if (!q.from !== !q.to) ctx.addIssue({ code: "custom", path: [q.from ? "to" : "from"], message: "Give both from and to for a custom range (or neither, with days)." });
    if (q.from && q.to) {
      const span = (parseUtcDate(q.to) - parseUtcDate(q.from)) / 86_400_000 + 1;
      if (span < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "from must be on or before to." });
      else if (span > MAX_TREND_DAYS) ctx.addIssue({ code: "custom", path: ["to"], message: `A custom range covers at most ${MAX_TREND_DAYS} days.` });
    }
  });
export type TrendsQuery = z.infer<typeof trendsQuerySchema>;

/** How many sources `/api/trends/sources` answers at most (?limit=, default 10). */
export const MAX_TOP_SOURCES = 100;
const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${MAX_TOP_SOURCES}`;
export const topSourcesQuerySchema = z.intersection(
  trendsQuerySchema,
  z.object({ limit: z.coerce.number({ error: LIMIT_MESSAGE }).int(LIMIT_MESSAGE).min(1, LIMIT_MESSAGE).max(MAX_TOP_SOURCES, LIMIT_MESSAGE).default(10) }),
);
export type TopSourcesQuery = z.infer<typeof topSourcesQuerySchema>;

/** One sending IP over the range, from the daily source roll-ups. */
export interface TopSource {
  sourceIp: string;
  /** ISO 3166-1 alpha-2, null when unknown */
  country: string | null;
  messages: number;
  passed: number;
  failed: number;
  quarantined: number;
  rejected: number;
  spfAligned: number;
  dkimAligned: number;
}

/** GET /api/trends/sources: the sources with the most messages in the range, most first. */
export interface TopSources {
  from: string;
  to: string;
  sources: TopSource[];
}
