import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// Unmatched money sent back to the account it came from (domain/reconciliation/return-unmatched.ts): each
// return is an outgoing transfer of what was unresolved, asked of the bank by a job. A payment has at most one
// return in progress (`requested`); a failed one leaves its money unresolved again, to return again (a new row)
// or assign. The request's Idempotency-Key is kept with the return it asked for, unique per owner (an
// integration, or the platform for money of no integration), with the request's fingerprint: the same key
// answers the same return, another request under it is refused.
// Release safety (ReleaseSafety, db/migrations/index.ts): a new table.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("unmatched_payment_returns")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("seq", "bigint", (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn("unmatched_payment_id", "uuid", (c) => c.notNull().references("unmatched_payments.id"))
    .addColumn("amount_cents", "bigint", (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn("state", "text", (c) => c.notNull().defaultTo("requested").check(sql`state in ('requested', 'returned', 'failed')`))
    // Where it goes: the sender's account and CUIL as the bank reported them (the bank returns by the transfer's id either way).
    .addColumn("to_cvu", "text")
    .addColumn("to_cuil", "text")
    // Sandbox only: the Sandbox's bank refuses it.
    .addColumn("simulate_failure", "boolean", (c) => c.notNull().defaultTo(false))
    .addColumn("requested_at", "timestamptz", (c) => c.notNull())
    .addColumn("completed_at", "timestamptz")
    .addColumn("failure_reason", "text")
    // The bank's id of the outgoing transfer, once it took it; and how many times it was asked.
    .addColumn("bank_transfer_id", "text")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    // Who asked: an integration admin, the integration's backend, or a platform admin.
    .addColumn("actor_kind", "text", (c) => c.notNull().check(sql`actor_kind in ('integration_admin', 'integration_api', 'platform_admin')`))
    .addColumn("actor_admin_user_id", "uuid")
    // `integration:<id>` or `platform`, the key, and the SHA-256 of what was asked under it.
    .addColumn("idempotency_owner", "text", (c) => c.notNull())
    .addColumn("idempotency_key", "text", (c) => c.notNull())
    .addColumn("request_fingerprint", "text", (c) => c.notNull())
    .addUniqueConstraint("unmatched_payment_returns_idempotency_key", ["idempotency_owner", "idempotency_key"])
    .addCheckConstraint(
      "unmatched_payment_returns_outcome",
      sql`(state = 'requested') = (completed_at is null) and (state = 'failed') = (failure_reason is not null)`,
    )
    .execute();
  // One return in progress per payment, whatever races the row lock would miss.
  await sql`create unique index unmatched_payment_returns_one_in_progress on unmatched_payment_returns (unmatched_payment_id) where state = 'requested'`.execute(
    db,
  );
  await db.schema.createIndex("unmatched_payment_returns_by_payment").on("unmatched_payment_returns").columns(["unmatched_payment_id", "seq"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("unmatched_payment_returns").execute();
}
