/** Data of the signed-in dashboard, tasks and threats screens (SPEC §7), through the default query function. */
import { useQuery } from "@tanstack/react-query";
import { rereadWhileUnnamed } from "../../lib/naming";
import type { DashboardStats, IpThreat, Task } from "../../../src/features/dashboard/contract";
import type { DmarcReportSummary } from "../../../src/features/reports/contract";

export type { DashboardStats, IpThreat, Task, DmarcReportSummary };

export const STATS_KEY = ["/api/dashboard/stats"] as const;
export const TASKS_KEY = ["/api/tasks"] as const;
export const THREATS_KEY = ["/api/ip-threats"] as const;
export const REPORTS_KEY = ["/api/dmarc-reports"] as const;

export const useDashboardStats = () => useQuery<DashboardStats>({ queryKey: STATS_KEY });
export const useTasks = () => useQuery<Task[]>({ queryKey: TASKS_KEY });
/** The threat list; read again while some of its addresses have no PTR name yet (ui/lib/naming.ts). */
export const useThreats = () => useQuery<IpThreat[]>({ queryKey: THREATS_KEY, refetchInterval: rereadWhileUnnamed((t: IpThreat) => t.ptr === null) });
export const useReports = () => useQuery<DmarcReportSummary[]>({ queryKey: REPORTS_KEY });
