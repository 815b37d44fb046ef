import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { id } from "./columns";

/** Messages sent through the contact dialog and /contact, read in the admin console. */
export const contactSubmissions = sqliteTable(
  "contact_submissions",
  {
    id: id(),
    name: text("name").notNull(),
    email: text("email").notNull(),
    company: text("company").notNull(),
    phone: text("phone"),
    requestType: text("request_type").notNull(),
    subject: text("subject").notNull(),
    message: text("message").notNull(),
    domains: text("domains"),
    isRead: integer("is_read", { mode: "boolean" }).notNull().default(false),
    submittedAt: integer("submitted_at", { mode: "timestamp" }).notNull().$defaultFn(() => new Date()),
  },
  (t) => [index("contact_submissions_submitted_idx").on(t.submittedAt)],
);
