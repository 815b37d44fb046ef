import { desc, eq } from "drizzle-orm";
import type { AdminContext, PublicContext } from "../../http/access";
import { NotFoundError } from "../../http/errors";
import type { ContactSubmission } from "../admin/contract";
import type { ContactMessage } from "./contract";

/** Stores a validated contact message, unread, for the admin console. Returns its id. */
export async function createContactSubmission(ctx: PublicContext, message: ContactMessage): Promise<string> {
  const { contactSubmissions } = ctx.store.t;
  const [row] = await ctx.store.write((tx) =>
    tx
      .insert(contactSubmissions)
      .values({
        name: message.name,
        email: message.email,
        company: message.company,
        phone: message.phone ?? null,
        requestType: message.requestType,
        subject: message.subject,
        message: message.message,
        domains: message.domains ?? null,
        isRead: false,
        submittedAt: ctx.now(),
      })
      .returning({ id: contactSubmissions.id }),
  );
  return row!.id;
}

type SubmissionRow = typeof import("../../db/schema").contactSubmissions.$inferSelect;

function toSubmission(row: SubmissionRow): ContactSubmission {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    phone: row.phone,
    company: row.company,
    domains: row.domains,
    requestType: row.requestType,
    subject: row.subject,
    message: row.message,
    isRead: row.isRead,
    submittedAt: row.submittedAt.toISOString(),
  };
}

/** The admin console's list: newest first (the id orders messages of the same second, alike in both databases). */
export async function listSubmissions(ctx: AdminContext): Promise<ContactSubmission[]> {
  const { contactSubmissions } = ctx.store.t;
  const rows = await ctx.store.db.select().from(contactSubmissions).orderBy(desc(contactSubmissions.submittedAt), desc(contactSubmissions.id));
  return rows.map(toSubmission);
}

export async function markSubmissionRead(ctx: AdminContext, id: string): Promise<ContactSubmission> {
  const { contactSubmissions } = ctx.store.t;
  const [row] = await ctx.store.write((tx) => tx.update(contactSubmissions).set({ isRead: true }).where(eq(contactSubmissions.id, id)).returning());
  if (!row) throw new NotFoundError("No contact submission with this id.");
  return toSubmission(row);
}
