// Charges to reconcile against, seeded through the domain (no HTTP): an integration with commission terms,
// a fresh merchant account linked to it (a pool of CVUs of its own), charges created as a create does,
// and the states a charge can be in when a transfer arrives (paid, canceled, past due).
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import { cancelCharge, createCharge, type ChargeContext } from "../../domain/charges/charges.ts";
import { validateCreateRequest, type PaymentRequestCreate } from "../../domain/charges/charge-rules.ts";
import { runTimeTransitions } from "../../domain/charges/time-transitions.ts";
import { createIntegrationClient } from "../../domain/integration-clients/integration-clients.ts";
import { linkMerchant } from "../../domain/merchants/merchant-accounts.ts";

export interface ReconciliationWorld {
  db: Kysely<Database>;
  integrationClientId: string;
  merchantAccountId: string;
  context: (now: Date) => ChargeContext;
}

/** An integration (its offer 1.50 % + $0.25, a service commission of 0.70 %, no practical chat cap) for the charges of a file. */
export async function seedIntegration(db: Kysely<Database>): Promise<string> {
  const { client } = await createIntegrationClient(db, { name: "Conciliaciones", companyName: "Conciliaciones S.A.", contactEmail: "ops@conciliaciones.test" });
  await db
    .updateTable("integration_clients")
    .set({ offer_percentage: "1.50", offer_fixed_cents: 25, service_commission_percentage: "0.70" })
    .where("id", "=", client.id)
    .execute();
  // Room for the chat messages of many charges a day (an approved request would raise it so).
  await db.insertInto("integration_limits").values({ integration_client_id: client.id, max_messages_per_day: 1_000_000 }).execute();
  return client.id;
}

/** A fresh merchant account linked to the integrations (the first is the world's): its CVU pool starts empty. */
export async function seedMerchant(
  db: Kysely<Database>,
  integrationClientIds: string | string[],
  now: Date,
  tag = randomBytes(4).toString("hex"),
): Promise<ReconciliationWorld> {
  const integrations = typeof integrationClientIds === "string" ? [integrationClientIds] : integrationClientIds;
  // The account itself is a plain row (its password is never used here); the links are made as an authorization makes them.
  const merchant = await db
    .insertInto("merchant_accounts")
    .values({
      email: `merchant+${tag}@conciliaciones.test`,
      password_hash: "unused",
      fantasy_name: `Comercio ${tag}`,
      account_holder_name: "Comercio S.R.L.",
      account_holder_tax_id: "30712345671",
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  for (const integrationClientId of integrations) await linkMerchant(db, integrationClientId, merchant.id, now);
  return worldOf(db, integrations[0]!, merchant.id);
}

/** The same merchant account as seen by another of its linked integrations. */
export function asIntegration(world: ReconciliationWorld, integrationClientId: string): ReconciliationWorld {
  return worldOf(world.db, integrationClientId, world.merchantAccountId);
}

function worldOf(db: Kysely<Database>, integrationClientId: string, merchantAccountId: string): ReconciliationWorld {
  return {
    db,
    integrationClientId,
    merchantAccountId,
    context: (at) => ({
      integrationClientId,
      merchantAccountId,
      now: at,
      serviceEnv: "sandbox",
      globalMessageCap: 1_000_000,
      destinationPolicy: { allowLoopback: true },
    }),
  };
}

/** A charge created as POST /payment-request creates it; its CVU with it. */
export async function seedCharge(world: ReconciliationWorld, now: Date, body: PaymentRequestCreate): Promise<{ charge: Charge; cvu: string }> {
  const stored = await createCharge(world.db, world.context(now), validateCreateRequest(body, now));
  return { charge: stored.charge, cvu: stored.cvu! };
}

export async function cancelSeeded(world: ReconciliationWorld, now: Date, referenceId: string): Promise<void> {
  await cancelCharge(world.db, world.context(now), referenceId);
}

/** Runs the time sweep for the integration at `now`: charges past their last due date close. */
export async function sweepAt(world: ReconciliationWorld, now: Date): Promise<void> {
  await runTimeTransitions(world.db, { now, livemode: false, draftLifetimeHours: 6, integrationClientId: world.integrationClientId });
}
