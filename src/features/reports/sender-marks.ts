/**
 * A user's mark on a sender of the organisation ("approved" or "not_ours"), kept per sender key
 * (src/lib/senders.ts). Other features read the marks through `senderMarks`, never the table.
 */
import { and, eq } from "drizzle-orm";
import type { OrgContext } from "../../http/access";
import { ValidationError } from "../../http/errors";
import { parseSenderKey, senderKeyOf, type SenderMark } from "../../lib/senders";

/** The organisation's marks by sender key. */
export async function senderMarks(ctx: OrgContext): Promise<Map<string, SenderMark>> {
  const { senderMarks: marks } = ctx.store.t;
  const rows = await ctx.store.db.select({ key: marks.senderKey, verdict: marks.verdict }).from(marks).where(eq(marks.orgId, ctx.actor.orgId));
  return new Map(rows.map((r) => [r.key, r.verdict]));
}

/** One sender's mark and when it was set, or null. */
export async function senderMarkOf(ctx: OrgContext, key: string): Promise<{ verdict: SenderMark; markedAt: Date } | null> {
  const { senderMarks: marks } = ctx.store.t;
  const [row] = await ctx.store.db
    .select({ verdict: marks.verdict, markedAt: marks.markedAt })
    .from(marks)
    .where(and(eq(marks.orgId, ctx.actor.orgId), eq(marks.senderKey, key)));
  return row ?? null;
}

/** The canonical form of a sender key, or a 400 that says what a key looks like. */
export function canonicalSenderKey(key: string): string {
  const parsed = parseSenderKey(key);
  if (!parsed) throw new ValidationError('Unknown sender: a sender is "service:<name>", "domain:<base domain>" or "ip:<address>".', { key: "Not a sender key" });
  return senderKeyOf(parsed);
}

/** Sets (or with null clears) the organisation's mark on a sender. */
export async function markSender(ctx: OrgContext, key: string, verdict: SenderMark | null): Promise<{ key: string; mark: SenderMark | null }> {
  const senderKey = canonicalSenderKey(key);
  const { senderMarks: marks } = ctx.store.t;
  const orgId = ctx.actor.orgId;
  const markedAt = ctx.now();
  await ctx.store.write(async (tx) => {
    if (verdict === null) {
      await tx.delete(marks).where(and(eq(marks.orgId, orgId), eq(marks.senderKey, senderKey)));
      return;
    }
    await tx
      .insert(marks)
      .values({ orgId, senderKey, verdict, markedBy: ctx.actor.user.userId, markedAt })
      .onConflictDoUpdate({ target: [marks.orgId, marks.senderKey], set: { verdict, markedBy: ctx.actor.user.userId, markedAt } });
  });
  return { key: senderKey, mark: verdict };
}
