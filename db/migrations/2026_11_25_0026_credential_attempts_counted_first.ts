import type { Kysely } from "kysely";

// Throttled guessing counts an attempt before its credential is checked (domain/sign-in/credential-throttle.ts):
// `refused` counts the attempts a key refused in its current window, so that a right credential checked
// while a burst was being refused can be refused like the burst.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("credential_failures")
    .addColumn("refused", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("credential_failures").dropColumn("refused").execute();
}
