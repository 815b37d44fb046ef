import { z } from "zod";

/** SPEC §5 Admin login: username and password both required. */
export const adminLoginSchema = z.object({
  username: z.string({ error: "Username is required" }).trim().min(1, "Username is required").max(200, "Username is too long"),
  password: z.string({ error: "Password is required" }).min(1, "Password is required").max(1024, "Password is too long"),
});
export type AdminLoginInput = z.input<typeof adminLoginSchema>;

export const adminLogoutSchema = z.object({
  sessionId: z.string({ error: "sessionId is required" }).min(1, "sessionId is required").max(200, "sessionId is not valid"),
});

/** SPEC §3 Contact submission (admin view). */
export interface ContactSubmission {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  company: string;
  domains: string | null;
  requestType: string;
  subject: string;
  message: string;
  isRead: boolean;
  /** ISO 8601 */
  submittedAt: string;
}

export interface AdminLoginResponse {
  success: boolean;
  sessionId?: string;
  message: string;
}
