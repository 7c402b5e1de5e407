// Production's bank adapter (domain/outbound/http-bank.ts) against a stand-in of the bank's outgoing transfers
// API on loopback: what it sends (the return id as the Idempotency-Key, the token in the Authorization header
// only) and how each answer becomes an outcome.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ReturnTransfer } from "../../domain/outbound/bank-transfers.ts";
import { DEFAULT_CHECK_AFTER_MS, HttpBank } from "../../domain/outbound/http-bank.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const TOKEN = "bank-token-never-logged";
const json = { "content-type": "application/json" };
const transfer: ReturnTransfer = {
  returnId: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
  amountCents: 150050,
  originalTransactionId: "TRX-20261125-000042",
  toCvu: "0000003100000000000017",
  toCuil: "20301234563",
  simulateFailure: false,
};

let bankApi: WebhookReceiver;
let bank: HttpBank;
beforeAll(async () => {
  bankApi = await startWebhookReceiver();
  bank = new HttpBank({ apiUrl: bankApi.url("/v1"), token: TOKEN, timeoutMs: 2000 });
});
afterAll(async () => {
  await bank?.close();
  await bankApi?.close();
});

describe("the bank's outgoing transfers API", () => {
  it("posts the return with its id as the Idempotency-Key; a completed or pending answer is taken, pending with its Retry-After", async () => {
    bankApi.answerNext(
      { status: 201, headers: json, body: JSON.stringify({ id: "bt-1", status: "completed" }) },
      { status: 202, headers: { ...json, "retry-after": "120" }, body: JSON.stringify({ id: "bt-2", status: "pending" }) },
      { status: 200, headers: json, body: JSON.stringify({ id: "bt-2", status: "pending" }) },
    );
    expect(await bank.send(transfer)).toEqual({ outcome: "completed", bankTransferId: "bt-1" });
    const [sent] = bankApi.at("/v1/transfers");
    expect(sent).toMatchObject({ method: "POST", headers: { "idempotency-key": transfer.returnId, authorization: `Bearer ${TOKEN}` } });
    expect(sent!.json).toEqual({
      type: "return",
      amount: "1500.50",
      originalTransactionId: "TRX-20261125-000042",
      toCvu: "0000003100000000000017",
      toCuil: "20301234563",
      reference: transfer.returnId,
    });
    expect(await bank.send(transfer)).toEqual({ outcome: "pending", bankTransferId: "bt-2", checkAfterMs: 120_000 });
    expect(await bank.check({ ...transfer, bankTransferId: "bt-2" })).toEqual({
      outcome: "pending",
      bankTransferId: "bt-2",
      checkAfterMs: DEFAULT_CHECK_AFTER_MS,
    });
    expect(bankApi.at("/v1/transfers/bt-2")).toEqual([expect.objectContaining({ method: "GET" })]);
  });

  it("a rejection or a 4xx is a refusal for good with the bank's words; a 5xx, a 429 or an answer without an id is temporary", async () => {
    bankApi.answerNext(
      { status: 200, headers: json, body: JSON.stringify({ id: "bt-3", status: "rejected", reason: "Cuenta destino cerrada" }) },
      { status: 422, headers: json, body: JSON.stringify({ error: { message: "CBU inexistente" } }) },
      { status: 503, headers: json, body: JSON.stringify({ error: { message: "mantenimiento" } }) },
      { status: 429 },
      { status: 200, headers: json, body: "{}" },
    );
    expect(await bank.send(transfer)).toEqual({ outcome: "rejected", bankTransferId: "bt-3", reason: "Cuenta destino cerrada" });
    expect(await bank.send(transfer)).toEqual({ outcome: "rejected", reason: "CBU inexistente" });
    expect(await bank.send(transfer)).toEqual({ outcome: "temporary_failure", reason: "the bank answered 503: mantenimiento" });
    expect(await bank.send(transfer)).toMatchObject({ outcome: "temporary_failure" });
    expect(await bank.send(transfer)).toMatchObject({ outcome: "temporary_failure" });
  });

  it("a bank that cannot be reached is a temporary failure", async () => {
    const unreachable = new HttpBank({ apiUrl: "http://127.0.0.1:1", token: TOKEN, timeoutMs: 2000 });
    expect(await unreachable.send(transfer)).toMatchObject({ outcome: "temporary_failure", reason: expect.stringContaining("could not reach the bank") });
    await unreachable.close();
  });
});
