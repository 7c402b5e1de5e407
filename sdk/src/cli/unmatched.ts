// `cobro unmatched`: the integration's unmatched payments (money Cobro received and applied to no charge),
// listed with the Admin API's filters, one assigned by hand to a charge of the merchant account that received
// it, and one returned to the account it came from.
import { randomUUID } from "node:crypto";
import * as admin from "../generated/admin/index.js";
import { apiJson, daysAfter, integerOf, oneOf, type ApiJson, type Command } from "./command.js";
import { CliError } from "./output.js";

const STATES = Object.values(admin.UnmatchedPaymentState);
const REASONS = Object.values(admin.UnmatchedPaymentReason);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The API's Idempotency-Key: 1 to 255 printable ASCII characters. */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

function uuidOf(value: string | undefined, what: string): string | undefined {
  if (value !== undefined && !UUID.test(value)) throw new CliError("usage", `${what} must be a UUID`);
  return value;
}

/**
 * A `--from`/`--to` value as the API's instant: a day (`2026-11-22`, in Argentina, UTC-03:00) is its start;
 * for `--to`, the start of the next day, so that the day itself is included (the API's `to` is exclusive).
 */
function instantOf(value: string | undefined, name: "from" | "to"): string | undefined {
  if (value === undefined) return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    // 2026-02-30 or 2026-13-01 would roll over into another day: a day that does not come back as given is refused.
    if (daysAfter(value, 0) !== value) throw new CliError("usage", `--${name} is not a calendar day`);
    return `${name === "to" ? daysAfter(value, 1) : value}T00:00:00-03:00`;
  }
  if (Number.isNaN(Date.parse(value)) || !/T.*(Z|[+-]\d{2}:\d{2})$/.test(value))
    throw new CliError("usage", `--${name} is a day (YYYY-MM-DD, in Argentina) or an instant with its offset (2026-11-22T12:00:00-03:00)`);
  return value;
}

const unmatchedApi = (configuration: admin.Configuration) => new admin.UnmatchedPaymentsApi(configuration);

export const unmatchedCommands: Command[] = [
  {
    name: ["unmatched", "list"],
    summary: "List the integration's unmatched payments (money applied to no charge), newest transfer first.",
    details:
      "A transfer Cobro could not match to a charge (a late payer, a canceled or paid charge, a CUIL nobody\n" +
      "expected), or the excess of a payment over what its charge owed (overpaid). Assign one with\n" +
      "cobro unmatched assign, or send it back with cobro unmatched return.",
    options: {
      state: { type: "string" },
      reason: { type: "string" },
      merchant: { type: "string" },
      from: { type: "string" },
      to: { type: "string" },
      limit: { type: "string" },
      offset: { type: "string" },
    },
    optionHelp: {
      state: `only in this state (${STATES.join(", ")})`,
      reason: `only unmatched for this reason (${REASONS.join(", ")})`,
      merchant: "only those received by this merchant account (its userId, as in GET /my-integration/users)",
      from: "only transfers made on or after this day (YYYY-MM-DD, in Argentina) or instant",
      to: "only transfers made on or before this day (YYYY-MM-DD, the whole day), or before this instant",
      limit: "at most this many (default 20, at most 100)",
      offset: "skip this many",
    },
    async run({ values, session, out }) {
      const page = await apiJson(
        unmatchedApi(session.adminConfiguration()).listUnmatchedPaymentsRaw({
          state: oneOf(values, "state", STATES),
          reason: oneOf(values, "reason", REASONS),
          merchantUserId: uuidOf(values.merchant as string | undefined, "--merchant"),
          from: instantOf(values.from as string | undefined, "from"),
          to: instantOf(values.to as string | undefined, "to"),
          limit: integerOf(values.limit as string | undefined, "limit"),
          offset: integerOf(values.offset as string | undefined, "offset"),
        }),
      );
      if (out.json) {
        out.document(page);
        return;
      }
      out.table(
        ["RECEIVED", "AMOUNT", "UNRESOLVED", "REASON", "STATE", "REFERENCE", "PAYER", "UNMATCHED PAYMENT ID"],
        page.items.map((item: ApiJson) => [
          item.receivedAt,
          item.amount.toFixed(2),
          item.unresolvedAmount.toFixed(2),
          item.reason,
          item.state,
          item.referenceId ?? "",
          [item.payerName, item.payerCuil].filter(Boolean).join(" ") || "",
          item.unmatchedPaymentId,
        ]),
      );
      out.line(out.paint(`${page.items.length} of ${page.total}`, "dim"));
    },
  },
  {
    name: ["unmatched", "assign"],
    usage: "UNMATCHED_PAYMENT_ID (--payment-request-id ID | --reference-id REF [--merchant USER_ID])",
    summary: "Assign an unmatched payment to a charge of the merchant account that received it (audited).",
    details:
      "The money is applied as a payment made at the transfer's time: what the charge owed then, at most what is\n" +
      "unresolved; the rest stays unmatched. A referenceId is looked up among the charges of the merchant\n" +
      "account that received the money; --merchant makes sure that is the merchant account you mean.",
    options: { "payment-request-id": { type: "string" }, "reference-id": { type: "string" }, merchant: { type: "string" } },
    optionHelp: {
      "payment-request-id": "the charge's paymentRequestId",
      "reference-id": "the charge's referenceId",
      merchant: "the merchant account (userId) the money must have been received by; refused before assigning otherwise",
    },
    positionals: true,
    async run({ values, positionals, session, out }) {
      const [unmatchedPaymentId, ...rest] = positionals;
      if (unmatchedPaymentId === undefined || rest.length > 0) throw new CliError("usage", "give one UNMATCHED_PAYMENT_ID");
      uuidOf(unmatchedPaymentId, "UNMATCHED_PAYMENT_ID");
      const paymentRequestId = uuidOf(values["payment-request-id"] as string | undefined, "--payment-request-id");
      const referenceId = values["reference-id"] as string | undefined;
      if ((paymentRequestId === undefined) === (referenceId === undefined)) throw new CliError("usage", "give either --payment-request-id or --reference-id");
      const merchant = uuidOf(values.merchant as string | undefined, "--merchant");
      const api = unmatchedApi(session.adminConfiguration());
      if (merchant !== undefined) {
        const payment = await api.getUnmatchedPayment({ unmatchedPaymentId });
        if (payment.merchantUserId !== merchant)
          throw new CliError(
            "merchant_mismatch",
            `unmatched payment ${unmatchedPaymentId} was received by merchant account ${payment.merchantUserId ?? "(none)"}, not ${merchant}: nothing assigned`,
          );
      }
      const result = await apiJson(
        api.assignUnmatchedPaymentRaw({
          unmatchedPaymentId,
          unmatchedPaymentAssignmentRequest: paymentRequestId !== undefined ? { paymentRequestId } : { referenceId },
        }),
      );
      if (out.json) out.document(result);
      else
        out.fields([
          ["assigned", result.assignedAmount.toFixed(2)],
          ["reference", result.referenceId],
          ["charge state", out.paint(result.paymentRequestState, result.paymentRequestState === "total_payment" ? "green" : "yellow")],
          ["unmatched state", result.unmatchedPayment.state],
          ["still unresolved", result.unmatchedPayment.unresolvedAmount.toFixed(2)],
          ["paymentRequestId", result.paymentRequestId],
          ["eventId", result.eventId],
        ]);
    },
  },
  {
    name: ["unmatched", "return"],
    usage: "UNMATCHED_PAYMENT_ID [--idempotency-key KEY]",
    summary: "Return an unmatched payment's unresolved money to the account it came from (audited).",
    details:
      "The return is asked of the bank (state requested); it ends returned, or return_failed with the bank's\n" +
      "reason, and then can be asked again. Follow it with cobro unmatched list --state or the payment's returns.\n" +
      "The request carries an Idempotency-Key: a new one unless given, printed so that the same return can be\n" +
      "asked again after a lost answer without returning the money twice.",
    options: { "idempotency-key": { type: "string" } },
    optionHelp: { "idempotency-key": "the Idempotency-Key to send (1 to 255 printable ASCII characters); default, a new UUID" },
    positionals: true,
    async run({ values, positionals, session, out }) {
      const [unmatchedPaymentId, ...rest] = positionals;
      if (unmatchedPaymentId === undefined || rest.length > 0) throw new CliError("usage", "give one UNMATCHED_PAYMENT_ID");
      uuidOf(unmatchedPaymentId, "UNMATCHED_PAYMENT_ID");
      const given = values["idempotency-key"] as string | undefined;
      if (given !== undefined && !IDEMPOTENCY_KEY.test(given)) throw new CliError("usage", "--idempotency-key is 1 to 255 printable ASCII characters");
      const idempotencyKey = given ?? randomUUID();
      const result = await apiJson(
        unmatchedApi(session.adminConfiguration()).returnUnmatchedPaymentRaw({ unmatchedPaymentId, idempotencyKey, unmatchedPaymentReturnRequest: {} }),
      );
      if (out.json) out.document({ ...result, idempotencyKey });
      else
        out.fields([
          ["return state", out.paint(result.state, result.state === "returned" ? "green" : result.state === "failed" ? "red" : "yellow")],
          ["amount", result.amount.toFixed(2)],
          ["to account", result.toCvu ?? ""],
          ["to CUIL", result.toCuil ?? ""],
          ["unmatched state", result.unmatchedPayment.state],
          ["returnId", result.returnId],
          ["idempotency key", idempotencyKey],
        ]);
    },
  },
];
