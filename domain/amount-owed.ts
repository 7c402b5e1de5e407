// What the payer owes, from the amount terms a charge stores: the amount up to the first due date, the
// amount plus the surcharge once it has passed (from 00:00 of the day after a date-only due date). The
// charge's view (`calculatedAmounts`), reconciliation (is a payment total?) and the payer's messages all
// read it here. The time sweep's SQL writes the same sum for charges already past their last due date.
import type { components } from "../generated/types/integration.ts";
import type { Charge } from "../db/tables/charges.table.ts";
import { addCents, fromCents } from "./money.ts";

type CalculatedAmount = components["schemas"]["CalculatedAmount"];

/** The columns of a charge that decide what is owed. */
export type AmountTerms = Pick<Charge, "amount_cents" | "surcharge_cents" | "due_dates" | "first_due_at">;

/** What is owed at an instant, in cents; undefined for a draft (no amount yet). */
export function amountOwedCents(terms: Omit<AmountTerms, "due_dates">, at: Date): number | undefined {
  if (terms.amount_cents === null) return undefined;
  if (at.getTime() < terms.first_due_at.getTime()) return terms.amount_cents;
  return addCents(terms.amount_cents, terms.surcharge_cents);
}

/** The contract's `calculatedAmounts`, present with an amount and two due dates: what is owed at each. */
export function calculatedAmounts(terms: AmountTerms): CalculatedAmount[] | undefined {
  const [first, second] = terms.due_dates;
  if (terms.amount_cents === null || first === undefined || second === undefined) return undefined;
  return [
    { dueDate: first, amount: fromCents(terms.amount_cents), isOriginalAmount: true },
    // Owed from the moment the first due date has passed.
    { dueDate: second, amount: fromCents(amountOwedCents(terms, terms.first_due_at)!), surchargeApplied: fromCents(terms.surcharge_cents) },
  ];
}
