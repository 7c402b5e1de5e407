// The integration's offer: the fee it charges merchant accounts, shown on the authorization screen.
import type { IntegrationClient } from "../../db/tables/identity.table.ts";
import { fromCents } from "../money.ts";

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

const number = new Intl.NumberFormat("es-AR", { maximumFractionDigits: 2 });
const pesos = new Intl.NumberFormat("es-AR", { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** The fee in words for the authorization screen (`1,5 % + $ 25,00 por cobro`), or undefined without an offer. */
export function describeOffer(offer: Offer): string | undefined {
  const parts = [
    ...(offer.percentage !== null ? [`${number.format(offer.percentage)} %`] : []),
    ...(offer.fixedAmount !== null ? [`$ ${pesos.format(offer.fixedAmount)}`] : []),
  ];
  return parts.length > 0 ? `${parts.join(" + ")} por cobro` : undefined;
}
