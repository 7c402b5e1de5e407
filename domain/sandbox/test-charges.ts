// Sandbox test charges: a charge for the integration's own test merchant account (created and linked on
// first use, as with test tokens), made from the portal by a person rather than by code. It goes through
// the Integration API's rules and create, so it behaves exactly like a charge an integrator makes.
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { components } from "../../generated/types/integration.ts";
import type { Database } from "../../db/schema.ts";
import { addDays, argentinaDate } from "../argentina-time.ts";
import { validateCreateRequest } from "../charges/charge-rules.ts";
import { createCharge, type ChargeContext } from "../charges/charges.ts";
import { ValidationError } from "../errors.ts";
import { integrationClientById } from "../integration-clients/integration-clients.ts";
import { ensureTestMerchant, linkMerchant } from "../merchants/merchant-accounts.ts";

export interface TestChargeInput {
  amount: number;
  description?: string;
  dueDate?: string;
  customerName?: string;
  customerEmail?: string;
}

/** How far ahead the due date is when none is given. */
const DEFAULT_DUE_IN_DAYS = 10;

/** The Integration API's field paths → the test charge's own fields, for the problems its rules report. */
const FIELDS: Record<string, string> = { "dueDates[0]": "dueDate", dueDates: "dueDate", "customer.name": "customerName", "customer.email": "customerEmail" };

export async function createTestCharge(db: Kysely<Database>, context: Omit<ChargeContext, "merchantAccountId">, input: TestChargeInput) {
  const body: components["schemas"]["PaymentRequestCreate"] = {
    referenceId: `PRUEBA-${randomBytes(4).toString("hex").toUpperCase()}`,
    amount: input.amount,
    description: input.description ?? "Cobro de prueba",
    dueDates: [input.dueDate ?? addDays(argentinaDate(context.now), DEFAULT_DUE_IN_DAYS)],
    customer: { name: input.customerName ?? "Pagador de prueba", ...(input.customerEmail ? { email: input.customerEmail } : {}) },
    sendWhatsappNotification: false,
    sendEmailNotification: input.customerEmail !== undefined,
  };
  let spec: ReturnType<typeof validateCreateRequest>;
  try {
    spec = validateCreateRequest(body, context.now);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      error.details.problems.map((problem) => {
        const field = FIELDS[problem.field] ?? problem.field;
        return { ...problem, field, message: problem.message.replace(problem.field, field) };
      }),
    );
  }
  const merchantAccountId = await db.transaction().execute(async (trx) => {
    const client = await integrationClientById(trx, context.integrationClientId);
    const merchant = await ensureTestMerchant(trx, client);
    await linkMerchant(trx, client.id, merchant.id, context.now);
    return merchant.id;
  });
  return createCharge(db, { ...context, merchantAccountId }, spec);
}
