// A stand-in for the WhatsApp Business Cloud API on 127.0.0.1: the webhook receiver (it records every
// request) answering as the provider does: 200 with a message id by default, or a refusal or an outage
// with the provider's error body.
import { randomUUID } from "node:crypto";
import { startWebhookReceiver, type Answer, type WebhookReceiver } from "./webhook-receiver.ts";

export const PHONE_NUMBER_ID = "109876543210";
export const CHAT_TOKEN = "EAAG-test-token-never-logged";

export interface ChatProvider extends WebhookReceiver {
  /** What COBRO_WHATSAPP_API_URL is set to. */
  apiUrl: string;
  /** The path messages are posted to. */
  messagesPath: string;
  /** The environment that points Cobro at this stand-in. */
  env: Record<string, string>;
}

const json = { "content-type": "application/json" };

/** The provider took the message: `messages[0].id` is its id. */
export function accepted(): Answer {
  return {
    status: 200,
    headers: json,
    body: (request) =>
      JSON.stringify({
        messaging_product: "whatsapp",
        contacts: [{ input: request.json?.to, wa_id: request.json?.to }],
        messages: [{ id: `wamid.${randomUUID()}` }],
      }),
  };
}

/** The provider's error answer (a 4xx refusal or a 5xx outage) with its message. */
export function providerError(status: number, message: string): Answer {
  return {
    status,
    headers: json,
    body: JSON.stringify({ error: { message, type: "OAuthException", code: status >= 500 ? 2 : 131026, fbtrace_id: "A1b2C3" } }),
  };
}

export async function startChatProvider(): Promise<ChatProvider> {
  const receiver = await startWebhookReceiver();
  receiver.fallback = accepted();
  const apiUrl = receiver.url("/v21.0");
  const env = { COBRO_WHATSAPP_API_URL: apiUrl, COBRO_WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID, COBRO_WHATSAPP_TOKEN: CHAT_TOKEN };
  return Object.assign(receiver, { apiUrl, messagesPath: `/v21.0/${PHONE_NUMBER_ID}/messages`, env });
}
