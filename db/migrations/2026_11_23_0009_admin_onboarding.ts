import type { Kysely } from "kysely";

// Admins' onboarding: a temporary password (mailed in the welcome email) lasts until `password_expires_at`
// and allows only changing it (`password_change_required`); `welcome_email_sent_at` records when the mail
// server accepted the welcome (or, in the Sandbox without SMTP, when it was written to the log).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("admin_users")
    .addColumn("password_change_required", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("password_expires_at", "timestamptz")
    .addColumn("welcome_email_sent_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("admin_users")
    .dropColumn("password_change_required")
    .dropColumn("password_expires_at")
    .dropColumn("welcome_email_sent_at")
    .execute();
}
