// The integration's offer: the fee it charges merchant accounts, shown on the authorization screen.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { IntegrationClient } from "../../db/tables/integration-clients.table.ts";
import { ValidationError } from "../errors.ts";
import { decimalsProblem, fromCents, toCents } from "../money.ts";

export interface Offer {
  percentage: number | null;
  fixedAmount: number | null;
}

export function offerOf(client: Pick<IntegrationClient, "offer_percentage" | "offer_fixed_cents">): Offer {
  return {
    percentage: client.offer_percentage === null ? null : Number(client.offer_percentage),
    fixedAmount: client.offer_fixed_cents === null ? null : fromCents(Number(client.offer_fixed_cents)),
  };
}

export async function readOffer(db: Kysely<Database>, integrationClientId: string): Promise<Offer> {
  return offerOf(
    await db
      .selectFrom("integration_clients")
      .select(["offer_percentage", "offer_fixed_cents"])
      .where("id", "=", integrationClientId)
      .executeTakeFirstOrThrow(),
  );
}

/** Replaces the offer; a part left out is removed. Both parts have at most 2 decimals (each refusal reported). */
export async function replaceOffer(db: Kysely<Database>, integrationClientId: string, offer: { percentage?: number; fixedAmount?: number }): Promise<Offer> {
  const problems = [
    offer.percentage === undefined ? undefined : decimalsProblem("percentage", offer.percentage),
    offer.fixedAmount === undefined ? undefined : decimalsProblem("fixedAmount", offer.fixedAmount),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) throw new ValidationError(problems);
  const client = await db
    .updateTable("integration_clients")
    .set({
      offer_percentage: offer.percentage === undefined ? null : String(offer.percentage),
      offer_fixed_cents: offer.fixedAmount === undefined ? null : toCents(offer.fixedAmount),
    })
    .where("id", "=", integrationClientId)
    .returning(["offer_percentage", "offer_fixed_cents"])
    .executeTakeFirstOrThrow();
  return offerOf(client);
}

const number = new Intl.NumberFormat("es-AR", { maximumFractionDigits: 2 });
const pesos = new Intl.NumberFormat("es-AR", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A percentage as people in Argentina write it: `1,25 %`. */
export function formatPercentage(percentage: number): string {
  return `${number.format(percentage)} %`;
}

/** The fee in words for the authorization screen (`1,5 % + $ 25,00 por cobro`), or undefined without an offer. */
export function describeOffer(offer: Offer): string | undefined {
  const parts = [
    ...(offer.percentage !== null ? [formatPercentage(offer.percentage)] : []),
    ...(offer.fixedAmount !== null ? [`$ ${pesos.format(offer.fixedAmount)}`] : []),
  ];
  return parts.length > 0 ? `${parts.join(" + ")} por cobro` : undefined;
}
