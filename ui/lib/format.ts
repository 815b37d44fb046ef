/**
 * Display formatting of SPEC §9, pure so every screen (demo, dashboard, reports, threats,
 * notifications) shows times, counts and pass rates the same way.
 */

const HOUR_MS = 60 * 60 * 1000;
const MINUTE_MS = 60 * 1000;

function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/** SPEC §9 relative time: under 1 hour "Just now", then hours ("3h ago"), then days ("2d ago"). */
export function formatRelativeTime(value: Date | string | number, now: Date = new Date()): string {
  const elapsed = Math.max(0, now.getTime() - toDate(value).getTime());
  const hours = Math.floor(elapsed / HOUR_MS);
  if (hours < 1) return "Just now";
  if (hours < 24) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** SPEC §9 notification time: minutes under 60 ("5m ago"), then hours under 24 ("3h ago"), then days. */
export function formatNotificationTime(value: Date | string | number, now: Date = new Date()): string {
  const elapsed = Math.max(0, now.getTime() - toDate(value).getTime());
  const minutes = Math.floor(elapsed / MINUTE_MS);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return `${hours}h ago`;
  return `${Math.floor(hours / 24)}d ago`;
}

/** SPEC §9: reports processed shown in thousands with one decimal (1247 → "1.2K"). */
export function formatReportsProcessed(count: number): string {
  return `${(count / 1000).toFixed(1)}K`;
}

/** A whole number with thousands separators (1247 → "1,247"). */
export function formatCount(count: number): string {
  return count.toLocaleString("en-US");
}

export type PassRateTone = "green" | "orange" | "red";

/** SPEC §9 pass-rate colour: 95 or above green, 80 or above orange, otherwise red. */
export function passRateTone(passRate: number): PassRateTone {
  if (passRate >= 95) return "green";
  if (passRate >= 80) return "orange";
  return "red";
}

const PASS_RATE_CLASSES: Record<PassRateTone, string> = {
  green: "text-pass-green",
  orange: "text-pass-orange",
  red: "text-pass-red",
};

/** The text colour class for a pass rate (see passRateTone). */
export function passRateClass(passRate: number): string {
  return PASS_RATE_CLASSES[passRateTone(passRate)];
}

/** A percentage as shown in tables: at most one decimal, e.g. 98.5% or 72%. */
export function formatPercent(value: number): string {
  return `${Math.round(value * 10) / 10}%`;
}
