// `cobro trigger`: make the Sandbox's events happen: a simulated transfer to a charge's CVU, an unmatched
// transfer, and the expiry of a charge by moving the Sandbox clock past its due instant.
import * as admin from "../generated/admin/index.js";
import { amountOf, apiJson, daysAfter, oneOf, required, type ApiJson, type Command, type Context } from "./command.js";
import { chargeByReference, chargesApi, createCharge } from "./charges.js";
import { CliError, type Output } from "./output.js";
import type { Session } from "./session.js";

/** The payer of simulated transfers: Juan Pérez, from a CVU of another bank. */
const PAYER = { cvu: "0000003100000000000017", cuil: "20301234563", name: "Juan Pérez" };
/** A valid CUIL of another person (another DNI) than PAYER's: no CLI charge is matched by it (no_cuil_match). */
const OTHER_CUIL = "27201112228";

const TRANSFER_OPTIONS = {
  amount: { type: "string" },
  "payer-cuil": { type: "string" },
  "payer-name": { type: "string" },
  "payer-account": { type: "string" },
  at: { type: "string" },
} as const;

const TRANSFER_HELP = {
  amount: "pesos transferred (default: the charge's amount)",
  "payer-cuil": `the payer's CUIL (default: the charge's payer, else ${PAYER.cuil})`,
  "payer-name": `default ${PAYER.name}`,
  "payer-account": `the CBU or CVU the money comes from (default ${PAYER.cvu})`,
  at: "when the transfer was made, ISO 8601 with offset (default: now on the Sandbox clock)",
};

interface Transfer {
  cvu: string;
  amount: number;
  cuil: string;
  name?: string;
  account?: string;
  at?: string;
}

async function transfer(session: Session, { cvu, amount, cuil, name, account, at }: Transfer): Promise<ApiJson> {
  return apiJson(
    new admin.SandboxApi(session.adminConfiguration()).simulatePaymentRaw({
      simulatePaymentRequest: {
        externalAccountCvu: account ?? PAYER.cvu,
        externalAccountCuil: cuil,
        externalAccountName: name ?? PAYER.name,
        cvu,
        amount,
        fechaOperacion: at === undefined ? undefined : checkedInstant(at, "at"),
      },
    }),
  );
}

function checkedInstant(value: string, name: string): string {
  if (Number.isNaN(new Date(value).getTime())) throw new CliError("usage", `--${name} is not an ISO 8601 instant: ${value}`);
  return value;
}

function transferOf(values: Context["values"], charge: ApiJson, defaults: { cuil?: string } = {}): Transfer {
  if (!charge.CVU) throw new CliError("no_cvu", `charge ${charge.referenceId} has no CVU (state ${charge.state})`);
  const amount = amountOf(values.amount as string | undefined) ?? charge.amount;
  if (amount === undefined || amount === null) throw new CliError("usage", `charge ${charge.referenceId} has no amount: give --amount`);
  return {
    cvu: charge.CVU,
    amount,
    cuil: (values["payer-cuil"] as string | undefined) ?? defaults.cuil ?? charge.customer?.taxDocument ?? PAYER.cuil,
    name: values["payer-name"] as string | undefined,
    account: values["payer-account"] as string | undefined,
    at: values.at as string | undefined,
  };
}

function printTransfer(out: Output, result: ApiJson, referenceId: string): void {
  if (out.json) {
    out.document({ referenceId, ...result });
    return;
  }
  out.fields([
    ["reference", referenceId],
    ["transfer", `${result.idTransaccion}: ${result.amount} to ${result.cvu}`],
    ["conciliated", result.conciliated ? out.paint("yes", "green") : out.paint(`no (${result.unmatchedReason})`, "yellow")],
    ["event", result.webhookEvent],
    ["subscribed", result.webhookWillFire ? "yes" : "no (the event is recorded but not delivered: see the webhook subscriptions)"],
  ]);
}

const UNMATCHED_REASONS = ["canceled", "already_paid", "no_cuil_match"] as const;

/** The instant a charge is due: a date's end in Argentina, or the minute of a date with a time (-03:00 without a zone). */
export function dueInstant(dueDate: string): Date {
  const [day, time] = dueDate.split("T");
  if (time === undefined) return new Date(`${daysAfter(day!, 1)}T00:00:00-03:00`);
  return new Date(/(Z|[+-]\d{2}:\d{2})$/.test(time) ? dueDate : `${dueDate}${time.length === 5 ? ":00" : ""}-03:00`);
}

export const triggerCommands: Command[] = [
  {
    name: ["trigger", "payment"],
    summary: "Simulate the payer's bank transfer to a charge's CVU: payment_request.payment_received when it matches.",
    options: { reference: { type: "string" }, ...TRANSFER_OPTIONS },
    optionHelp: { reference: "the charge's referenceId (required)", ...TRANSFER_HELP },
    async run({ values, session, out }) {
      const referenceId = required(values, "reference");
      const charge = await chargeByReference(session, referenceId);
      printTransfer(out, await transfer(session, transferOf(values, charge)), referenceId);
    },
  },
  {
    name: ["trigger", "unmatched"],
    summary: "Simulate a transfer that matches no charge: payment.unmatched with the reason asked.",
    details:
      "Without --reference a new charge of the test merchant account is made for it: canceled (created and\n" +
      "canceled), already_paid (created and paid in full, which also writes payment_received), or\n" +
      "no_cuil_match (a CUIL-mode charge, paid from another CUIL). With --reference the transfer goes to that\n" +
      "charge's CVU as it is, and the service says the reason.",
    options: { reason: { type: "string" }, reference: { type: "string" }, ...TRANSFER_OPTIONS },
    optionHelp: { reason: UNMATCHED_REASONS.join(" | "), reference: "send the transfer to this charge instead", ...TRANSFER_HELP },
    async run({ values, session, out }) {
      required(values, "reason");
      const reason = oneOf(values, "reason", UNMATCHED_REASONS)!;
      let charge: ApiJson;
      let defaults: { cuil?: string } = {};
      if (values.reference !== undefined) {
        charge = await chargeByReference(session, values.reference as string);
      } else {
        charge = await createCharge(session, {
          description: `Pago sin imputar (${reason})`,
          payerCuil: reason === "no_cuil_match" ? PAYER.cuil : undefined,
        });
        if (reason === "canceled") await (await chargesApi(session)).cancelPaymentRequest({ referenceId: charge.referenceId });
        if (reason === "already_paid") await transfer(session, { cvu: charge.CVU, amount: charge.amount, cuil: PAYER.cuil });
        if (reason === "no_cuil_match") defaults = { cuil: OTHER_CUIL };
      }
      printTransfer(out, await transfer(session, transferOf(values, charge, defaults)), charge.referenceId);
    },
  },
  {
    name: ["trigger", "expiry"],
    summary: "Move the Sandbox clock just past a charge's last due instant, so that it closes unpaid.",
    details:
      "A charge due at a time (--due YYYY-MM-DDTHH:MM on create) expires with payment_request.expired; one due\n" +
      "on a date becomes overdue at 00:00 the day after, without an event.",
    options: { reference: { type: "string" } },
    optionHelp: { reference: "the charge's referenceId (required)" },
    async run({ values, session, out }) {
      const referenceId = required(values, "reference");
      const charge = await chargeByReference(session, referenceId);
      const due = dueInstant(charge.dueDates[charge.dueDates.length - 1]);
      const sandbox = new admin.SandboxApi(session.adminConfiguration());
      const clock = await sandbox.getSandboxClock();
      if (new Date(clock.now).getTime() > due.getTime())
        throw new CliError("already_due", `the Sandbox clock (${clock.now}) is already past ${referenceId}'s due instant`);
      const moved = await apiJson(sandbox.advanceSandboxClockRaw({ sandboxClockAdvance: { advanceTo: new Date(due.getTime() + 1000).toISOString() } }));
      const after = await chargeByReference(session, referenceId);
      if (out.json) out.document({ referenceId, dueAt: due.toISOString(), clock: moved, state: after.state });
      else
        out.fields([
          ["reference", referenceId],
          ["due at", due.toISOString()],
          ["clock now", moved.now],
          ["state", out.paint(after.state, "yellow")],
        ]);
    },
  },
];
