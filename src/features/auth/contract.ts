import { z } from "zod";
import { isGuessablePassword } from "../../lib/password-strength";

export const PASSWORD_GUESSABLE_MESSAGE = "This password is too common or easy to guess. Use a few unrelated words, or a longer mix of letters, numbers and symbols.";

/**
 * The one password rule of the product: sign-up, set-password, reset, the trial's first
 * password and the Master Administrator's seed all use passwordSchema (and the UI's forms too).
 */
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 128;

export const passwordSchema = z
  .string({ error: "Password is required" })
  .min(PASSWORD_MIN, `Password must be at least ${PASSWORD_MIN} characters`)
  .max(PASSWORD_MAX, `Password must be at most ${PASSWORD_MAX} characters`)
  .refine((p) => p.trim().length > 0 && new Set(p).size >= 4, "Password is too simple: use a longer mix of words, letters, numbers or symbols")
  .refine((p) => p.length < PASSWORD_MIN || p.length > PASSWORD_MAX || new Set(p).size < 4 || !isGuessablePassword(p), PASSWORD_GUESSABLE_MESSAGE);

export const emailSchema = z
  .string({ error: "Please enter a valid email address" })
  .trim()
  .max(254, "Email address is too long")
  .email("Please enter a valid email address")
  .transform((e) => e.toLowerCase());

export const signupSchema = z
  .object({
    name: z.string({ error: "Name must be at least 2 characters" }).trim().min(2, "Name must be at least 2 characters").max(100, "Name must be at most 100 characters"),
    email: emailSchema,
    password: passwordSchema,
    organization: z
      .string({ error: "Organization name must be at least 2 characters" })
      .trim()
      .min(2, "Organization name must be at least 2 characters")
      .max(100, "Organization name must be at most 100 characters"),
  })
  .refine((v) => v.password.toLowerCase() !== v.email, { path: ["password"], message: "Password must not be your email address" });
export type SignupInput = z.input<typeof signupSchema>;

export const loginSchema = z.object({
  email: emailSchema,
  password: z.string({ error: "Password is required" }).min(1, "Password is required").max(PASSWORD_MAX * 8, "Password is too long"),
});
export type LoginInput = z.input<typeof loginSchema>;

/** What GET /api/auth/me (and signup, login, switch) answer. */
export interface OrgSummary {
  id: string;
  name: string;
  slug: string;
  parentId: string | null;
  role: "owner" | "admin" | "member" | "viewer";
}
export interface MeResponse {
  user: { id: string; name: string; email: string };
  organizations: OrgSummary[];
  currentOrg: OrgSummary | null;
  /** two-factor sign-in: on for this account; required by the current organisation (enrol before anything else) */
  twoFactor?: { enabled: boolean; required: boolean };
}

/** "Forgot password?" on /login. */
export const passwordLinkSchema = z.object({ email: emailSchema });
export type PasswordLinkInput = z.input<typeof passwordLinkSchema>;

export const passwordTokenSchema = z
  .string({ error: "This link is not valid. Ask for a new one from the sign-in page." })
  .min(10, "This link is not valid. Ask for a new one from the sign-in page.")
  .max(200, "This link is not valid. Ask for a new one from the sign-in page.");

/** /set-password?token=…: the new password (same rules as signup). */
export const resetPasswordSchema = z.object({ token: passwordTokenSchema, password: passwordSchema });
export type ResetPasswordInput = z.input<typeof resetPasswordSchema>;

/** The /set-password form: the password twice. */
export const newPasswordFormSchema = z
  .object({ password: passwordSchema, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { path: ["confirm"], message: "The two passwords are not the same" });
export type NewPasswordFormInput = z.input<typeof newPasswordFormSchema>;

/** What POST /api/auth/password-link answers, whether or not the address has an account. */
export const PASSWORD_LINK_SENT_MESSAGE = "If an account exists for this address, we have sent it a link to set a new password. The link works once, for 24 hours.";

/** A code after the password (POST /api/auth/login/2fa), or for enabling / disabling two-factor sign-in: 6 digits from the app, or a recovery code. */
export const twoFactorCodeSchema = z.object({
  code: z
    .string({ error: "Enter the 6-digit code from your authenticator app" })
    .trim()
    .min(6, "Enter the 6-digit code from your authenticator app")
    .max(40, "That code is too long: enter the 6-digit code, or a recovery code such as abcde-fghjk"),
});
export type TwoFactorCodeInput = z.input<typeof twoFactorCodeSchema>;

/** What the login call answers when the password was right and a second-factor code must follow. */
export interface TwoFactorChallenge {
  twoFactorRequired: true;
}
