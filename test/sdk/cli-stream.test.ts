// The pieces of `cobro listen` that need no service: the SDK's reader of Server-Sent Events (what its
// EventStream reads the stream with), fed the stream in every possible split, and the headers it
// forwards, which must be the ones the service's delivery sends.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signatureHeader, standardWebhookHeaders } from "../../domain/webhooks/signature.ts";
import { deliveryHeaders } from "../../sdk/src/cli/delivery-headers.ts";
import { SseParser, type ServerSentEvent } from "../../sdk/src/server-sent-events.ts";
import { verifyWebhook } from "../../sdk/src/standard-webhooks.ts";

const STREAM =
  "retry: 2000\n\n" +
  ": heartbeat\n\n" +
  'id: 7b1c\nevent: payment.unmatched\ndata: {"eventId":"7b1c","payload":{"event":"payment.unmatched"}}\n\n' +
  "id: 9d2e\r\nevent: payment_request.expired\r\ndata: first line\r\ndata:second line\r\n\r\n" +
  "event: ignored-without-data\n\n" +
  "data: no id of its own\n\n";

function parseAll(chunks: string[]): { events: ServerSentEvent[]; retryMs: number | undefined } {
  const parser = new SseParser();
  const events = chunks.flatMap((chunk) => parser.push(chunk));
  return { events, retryMs: parser.retryMs };
}

describe("the SDK's SSE reader", () => {
  const expected: ServerSentEvent[] = [
    { id: "7b1c", event: "payment.unmatched", data: '{"eventId":"7b1c","payload":{"event":"payment.unmatched"}}' },
    { id: "9d2e", event: "payment_request.expired", data: "first line\nsecond line" },
    // The last id seen stays the stream's position (what Last-Event-ID sends).
    { id: "9d2e", event: "message", data: "no id of its own" },
  ];

  it("reads events, multi-line data, CRLF lines and the retry delay; skips comments and events without data", () => {
    expect(parseAll([STREAM])).toEqual({ events: expected, retryMs: 2000 });
  });

  it("reads the same whatever the chunks the network cuts it into", () => {
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)]).events, `cut at ${cut}`).toEqual(expected);
    }
    expect(parseAll([...STREAM]).events).toEqual(expected);
  });

  it("holds back an event the stream has not finished", () => {
    expect(parseAll(["id: 1\ndata: {}\n"]).events).toEqual([]);
  });
});

describe("the headers cobro listen forwards", () => {
  const rawBody = JSON.stringify({ event: "payment_request.payment_received", referenceId: "INV-2026-000123", amount: 1500.5, payer: "Juan Pérez" });
  const at = new Date("2026-11-27T12:00:00Z");

  it.each([
    ["standard", `whsec_${randomBytes(32).toString("base64")}`],
    ["legacy", `whsec_${randomBytes(32).toString("base64url")}`],
  ] as const)("are the service's delivery headers for a %s secret, and the SDK's verifier accepts them", (scheme, secret) => {
    const headers = deliveryHeaders("wh_0123456789", rawBody, { secret, scheme }, at);
    expect(headers).toEqual({
      "content-type": "application/json",
      "user-agent": "Cobro-Webhooks/1.0",
      "X-Service-Signature": signatureHeader(rawBody, secret, at),
      "X-Service-Webhook-Id": "wh_0123456789",
      ...standardWebhookHeaders("wh_0123456789", rawBody, { secret, scheme }, at),
    });
    expect(verifyWebhook(rawBody, headers, secret, { now: at, scheme })).toBe(true);
    expect(verifyWebhook(`${rawBody} `, headers, secret, { now: at, scheme })).toBe(false);
  });
});
