import { z } from "zod";
import { ROLES } from "../../db/schema/accounts";

/** POST /api/tokens: a name, a role (no higher than the creator's) and an optional expiry (a future date, at most 5 years ahead). */
export const createTokenSchema = z.object({
  name: z.string({ error: "Give the token a name, e.g. the tool that will use it" }).trim().min(1, "Give the token a name, e.g. the tool that will use it").max(100, "Name must be at most 100 characters"),
  role: z.enum(ROLES, { error: "Role must be owner, admin, member or viewer" }).default("viewer"),
  expiresAt: z
    .union([z.iso.datetime({ offset: true }), z.iso.date(), z.null()], { error: "Expiry must be a date such as 2030-01-31, or empty for no expiry" })
    .optional()
    .transform((value) => (value ? new Date(value) : null)),
});
export type CreateTokenInput = z.input<typeof createTokenSchema>;

/** A token as listed: never the token itself, nor its hash. */
export interface ApiTokenView {
  id: string;
  name: string;
  role: (typeof ROLES)[number];
  createdAt: string;
  createdBy: { id: string; name: string; email: string } | null;
  expiresAt: string | null;
  lastUsedAt: string | null;
  expired: boolean;
}

/** What POST /api/tokens answers: the token, shown this once. */
export interface CreatedToken {
  id: string;
  token: string;
}

/** Every token starts with this, so secret scanners and people can tell one apart. */
export const TOKEN_PREFIX = "dwt_";
