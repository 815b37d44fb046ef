/** SPEC §9: dashboard lists (the demo's and the signed-in dashboard's) show at most 3 tasks and 3 reports. */
export const DASHBOARD_LIST_LIMIT = 3;
