// `cobro charges`: charges of the integration's test merchant account, through the Integration API with
// its test tokens (what an integrator's backend does with a merchant's tokens).
import { randomBytes } from "node:crypto";
import * as admin from "../generated/admin/index.js";
import * as integration from "../generated/integration/index.js";
import { amountOf, apiJson, daysAfter, integerOf, type ApiJson, type Command, type Context } from "./command.js";
import { CliError, type Output } from "./output.js";
import type { Session } from "./session.js";

export async function chargesApi(session: Session): Promise<integration.PaymentRequestsApi> {
  return new integration.PaymentRequestsApi(await session.testMerchantConfiguration());
}

export async function chargeByReference(session: Session, referenceId: string): Promise<ApiJson> {
  return apiJson((await chargesApi(session)).getPaymentRequestRaw({ referenceId }));
}

export interface NewCharge {
  referenceId?: string;
  amount?: number;
  description?: string;
  due?: string;
  customerName?: string;
  email?: string;
  /** CUIL mode: the payer's CUIL, which the transfer is matched by. */
  payerCuil?: string;
}

/** Creates a charge of the test merchant account, due 10 days after the Sandbox's today by default. */
export async function createCharge(session: Session, charge: NewCharge): Promise<ApiJson> {
  const due = charge.due ?? daysAfter((await new admin.SandboxApi(session.adminConfiguration()).getSandboxClock()).today, 10);
  return apiJson(
    (await chargesApi(session)).createPaymentRequestRaw({
      paymentRequestCreate: {
        referenceId: charge.referenceId ?? `CLI-${randomBytes(5).toString("hex").toUpperCase()}`,
        description: charge.description ?? "Cobro de prueba",
        dueDates: [due],
        amount: charge.amount ?? 1500,
        customer: { name: charge.customerName ?? "Pagador de prueba", taxDocument: charge.payerCuil, email: charge.email },
        conciliationType: charge.payerCuil ? "cuil" : "cvu",
        sendWhatsappNotification: false,
        sendEmailNotification: charge.email !== undefined,
      },
    }),
  );
}

export function printCharge(out: Output, charge: ApiJson): void {
  if (out.json) out.document(charge);
  else
    out.fields([
      ["reference", charge.referenceId],
      ["state", out.paint(charge.state, charge.state === "total_payment" ? "green" : "yellow")],
      ["amount", charge.amount],
      ["due", charge.dueDates],
      ["CVU", charge.CVU],
      ["conciliation", charge.conciliationType],
      ["payer", charge.customer?.name],
      ["paymentRequestId", charge.paymentRequestId],
    ]);
}

function referenceOf({ positionals, values }: Context): string {
  const reference = (values.reference as string | undefined) ?? positionals[0];
  if (reference === undefined || positionals.length > (values.reference === undefined ? 1 : 0)) throw new CliError("usage", "give one REFERENCE");
  return reference;
}

export const chargeCommands: Command[] = [
  {
    name: ["charges", "create"],
    summary: "Create a charge for the integration's test merchant account.",
    details: "Reconciled by its CVU, or by the payer's CUIL with --payer-cuil. Notifications off unless --email.",
    options: {
      reference: { type: "string" },
      amount: { type: "string" },
      description: { type: "string" },
      due: { type: "string" },
      "customer-name": { type: "string" },
      email: { type: "string" },
      "payer-cuil": { type: "string" },
    },
    optionHelp: {
      reference: "the referenceId (default CLI-<random>)",
      amount: "pesos (default 1500)",
      description: "default `Cobro de prueba`",
      due: "YYYY-MM-DD, or YYYY-MM-DDTHH:MM for a charge that expires at that minute (default: 10 days after the Sandbox's today)",
      "customer-name": "default `Pagador de prueba`",
      email: "the payer's email: the payer's emails go there (simulated without a mail provider)",
      "payer-cuil": "match the transfer by this CUIL (CUIL mode)",
    },
    async run({ values, session, out }) {
      printCharge(
        out,
        await createCharge(session, {
          referenceId: values.reference as string | undefined,
          amount: amountOf(values.amount as string | undefined),
          description: values.description as string | undefined,
          due: values.due as string | undefined,
          customerName: values["customer-name"] as string | undefined,
          email: values.email as string | undefined,
          payerCuil: values["payer-cuil"] as string | undefined,
        }),
      );
    },
  },
  {
    name: ["charges", "get"],
    usage: "REFERENCE",
    summary: "Show a charge of the test merchant account by its referenceId.",
    options: { reference: { type: "string" } },
    positionals: true,
    async run(context) {
      printCharge(context.out, await chargeByReference(context.session, referenceOf(context)));
    },
  },
  {
    name: ["charges", "list"],
    summary: "List the test merchant account's charges, newest first.",
    options: { limit: { type: "string" }, offset: { type: "string" } },
    optionHelp: { limit: "at most this many (default 20)", offset: "skip this many" },
    async run({ values, session, out }) {
      const charges = await apiJson(
        (await chargesApi(session)).listPaymentRequestsRaw({
          limit: integerOf(values.limit as string | undefined, "limit"),
          offset: integerOf(values.offset as string | undefined, "offset"),
        }),
      );
      if (out.json) out.document(charges);
      else
        out.table(
          ["REFERENCE", "STATE", "AMOUNT", "PAID", "DUE", "CVU"],
          charges.map((charge: ApiJson) => [
            charge.referenceId,
            charge.state,
            String(charge.amount ?? ""),
            String(charge.paidAmount ?? 0),
            charge.dueDates.join(", "),
            charge.CVU ?? "",
          ]),
        );
    },
  },
  {
    name: ["charges", "cancel"],
    usage: "REFERENCE",
    summary: "Cancel a charge of the test merchant account (a transfer to its CVU is then unmatched, reason canceled).",
    options: { reference: { type: "string" } },
    positionals: true,
    async run(context) {
      const result = await apiJson((await chargesApi(context.session)).cancelPaymentRequestRaw({ referenceId: referenceOf(context) }));
      if (context.out.json) context.out.document(result);
      else context.out.line(`${result.referenceId}: ${result.state}`);
    },
  },
];
