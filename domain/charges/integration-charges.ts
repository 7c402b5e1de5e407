// The charges of a whole integration (every merchant account), as its admins see them: the portal's list,
// and how many are still open.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { ChargeState } from "../../db/tables/charges.table.ts";
import { DomainError } from "../errors.ts";
import { ofUnlinkedMerchant } from "../merchants/unlinked-merchants.ts";
import { WAITING_FOR_MONEY_STATES } from "./charge-states.ts";

export interface IntegrationChargeFilters {
  state?: ChargeState;
  /** `true`: only charges still waiting for money; `false`: only the others. */
  open?: boolean;
  merchantAccountId?: string;
  /** Contained in the referenceId or the payer's name, email or tax document, letter case ignored. */
  search?: string;
}

/** A page of the integration's charges, newest first, filtered; not those of an unlinked merchant account. */
export async function listIntegrationCharges(
  db: Kysely<Database>,
  integrationClientId: string,
  query: IntegrationChargeFilters & { limit: number; offset: number },
) {
  let base = db
    .selectFrom("charges")
    .where("integration_client_id", "=", integrationClientId)
    .where(sql<boolean>`not ${ofUnlinkedMerchant("charges")}`);
  if (query.state) base = base.where("state", "=", query.state);
  if (query.open !== undefined) base = base.where("state", query.open ? "in" : "not in", [...WAITING_FOR_MONEY_STATES]);
  if (query.merchantAccountId) base = base.where("merchant_account_id", "=", query.merchantAccountId);
  if (query.search) {
    // The text is matched literally: LIKE's own wildcards in it are escaped.
    const pattern = `%${query.search.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
    base = base.where((eb) =>
      eb.or(["reference_id", "customer_name", "customer_email", "customer_tax_document"].map((column) => eb(sql.ref(column), "ilike", pattern))),
    );
  }
  const [rows, count] = await Promise.all([
    base
      .select(["id", "reference_id", "paid_cents", "customer_email", "description", "created_at", "state"])
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { items: rows, total: Number(count.total) };
}

/**
 * One charge of the integration (any merchant account still linked) with its CVU and the transfers
 * reconciled or assigned to it, oldest first; 404 otherwise.
 */
export async function getIntegrationCharge(db: Kysely<Database>, integrationClientId: string, chargeId: string) {
  const row = await db
    .selectFrom("charges as c")
    .leftJoin("cvu_accounts as a", "a.id", "c.cvu_account_id")
    .selectAll("c")
    .select("a.cvu")
    .where("c.id", "=", chargeId)
    .where("c.integration_client_id", "=", integrationClientId)
    .where(sql<boolean>`not ${ofUnlinkedMerchant("c")}`)
    .executeTakeFirst();
  if (!row) throw new DomainError("IntegrationPaymentRequestNotFoundError", "No charge with this paymentRequestId in the integration");
  // The transfers reconciled to it and the unmatched money assigned to it (each with what it applied).
  const payments = await db
    .selectFrom("transfers")
    .select(["id", "transaction_id", "amount_cents", "operated_at", "sender_name", "sender_cuil"])
    .where("charge_id", "=", row.id)
    .unionAll(
      db
        .selectFrom("unmatched_payment_assignments as a")
        .innerJoin("unmatched_payments as u", "u.id", "a.unmatched_payment_id")
        .innerJoin("transfers as t", "t.id", "u.transfer_id")
        .select(["t.id", "t.transaction_id", "a.amount_cents", "t.operated_at", "t.sender_name", "t.sender_cuil"])
        .where("a.charge_id", "=", row.id),
    )
    .orderBy("operated_at")
    .orderBy("id")
    .execute();
  const { cvu, ...charge } = row;
  return { charge, cvu, payments };
}
