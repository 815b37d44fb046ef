/** Client reports (issue 17): the most outside contacts one client's weekly report goes to. Shared by the API's contract and the UI (no zod here). */
export const CLIENT_REPORT_MAX_CONTACTS = 10;
