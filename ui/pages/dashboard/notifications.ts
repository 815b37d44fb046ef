/**
 * The dashboard's local notifications (SPEC §3/§4), made from what the server already sent:
 * urgent tasks, high threats of the last day and the newest reports. Nothing is stored on the
 * server; read and deleted state stays in this browser (components/NotificationsMenu).
 */
import type { AppNotification } from "../../components/NotificationsMenu";
import type { DmarcReportSummary, IpThreat, Task } from "./api";

export const MAX_NOTIFICATIONS = 12;

export function notificationsFrom({ tasks = [], threats = [], reports = [] }: { tasks?: Task[]; threats?: IpThreat[]; reports?: DmarcReportSummary[] }): AppNotification[] {
  const out: AppNotification[] = [];
  for (const t of tasks.filter((t) => t.priority === "high")) {
    out.push({ id: `task:${t.id}`, type: "warning", title: t.title, message: t.description, timestamp: t.createdAt, read: false });
  }
  for (const t of threats.filter((t) => t.threatLevel === "high")) {
    const where = t.country === "Unknown" ? "an unknown location" : t.country;
    out.push({
      id: `threat:${t.ipAddress}:${t.lastSeenAt}`,
      type: "error",
      title: `High threat from ${t.ipAddress}`,
      message: `${t.attemptCount.toLocaleString("en-US")} messages from ${where} failed DMARC in the last 24 hours.`,
      timestamp: t.lastSeenAt,
      read: false,
    });
  }
  for (const r of reports.slice(0, 5)) {
    out.push({
      id: `report:${r.id}`,
      type: r.passRate >= 95 ? "success" : "info",
      title: `Report from ${r.orgName}`,
      message: `${r.domain}: ${r.totalMessages.toLocaleString("en-US")} messages, ${r.passRate}% passed DMARC.`,
      timestamp: r.processedAt,
      read: false,
    });
  }
  return out.sort((a, b) => new Date(b.timestamp).getTime() - new Date(a.timestamp).getTime()).slice(0, MAX_NOTIFICATIONS);
}
