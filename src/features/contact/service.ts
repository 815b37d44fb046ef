import type { DB } from "../../db";
import { contactSubmissions } from "../../db/schema";
import type { ContactMessage } from "./contract";

/** Stores a validated contact message, unread, for the admin console. Returns its id. */
export function createContactSubmission(db: DB, message: ContactMessage, now: Date): string {
  const row = db
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
      submittedAt: now,
    })
    .returning({ id: contactSubmissions.id })
    .get();
  return row.id;
}
