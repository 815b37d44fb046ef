import { boolean, index, pgTable, text } from "drizzle-orm/pg-core";
import { epoch, id } from "./columns";

export const contactSubmissions = pgTable(
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
    isRead: boolean("is_read").notNull().default(false),
    submittedAt: epoch("submitted_at").notNull().$defaultFn(() => new Date()),
  },
  (t) => [index("contact_submissions_submitted_idx").on(t.submittedAt)],
);
