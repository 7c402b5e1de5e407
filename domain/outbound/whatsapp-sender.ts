// Chat through the WhatsApp Business Cloud API's send-message request. Messages a business starts must be
// approved templates: each kind of notification is the template `{templatePrefix}{kind}` in `es_AR`, its
// body parameters in the order content.ts documents.
//
// The provider's URL is the operator's configuration, not an integrator's input, so the call is not judged
// by the webhooks' SSRF guard; like every outbound call it has one deadline and never follows a redirect
// (undici's `request` does not). The token goes in the Authorization header only: never in a reason or a log.
//
// The answer decides the outcome: a `messages[0].id` in a 2xx is sent; a 4xx is a refusal for good, its
// `error.message` the reason (but 408 and 429, "too soon", are temporary); a 5xx, a timeout or a
// connection that fails is temporary.
import { request, type Agent } from "undici";
import { providerAgent, readJsonAnswer, unansweredReason } from "./http-client.ts";
import { failureReason, PROVIDER_TIMEOUT_MS, type ChatMessage, type Sender, type SendResult } from "./sender.ts";

export interface WhatsappSenderOptions {
  /** The Graph API's base, with its version (`https://graph.facebook.com/v21.0`), without a trailing slash. */
  apiUrl: string;
  phoneNumberId: string;
  token: string;
  /** Template names are `{templatePrefix}{kind}`. */
  templatePrefix: string;
  /** From the request's start to the whole answer (default PROVIDER_TIMEOUT_MS). */
  timeoutMs?: number;
}

export class WhatsappSender implements Sender<ChatMessage> {
  readonly #options: WhatsappSenderOptions;
  readonly #timeoutMs: number;
  readonly #agent: Agent;

  constructor(options: WhatsappSenderOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.#agent = providerAgent(this.#timeoutMs);
  }

  /** The request body of a message: the Cloud API's template message. */
  requestBody(message: ChatMessage): string {
    return JSON.stringify({
      messaging_product: "whatsapp",
      to: message.to,
      type: "template",
      template: {
        name: `${this.#options.templatePrefix}${message.kind}`,
        language: { code: message.languageCode },
        components: [{ type: "body", parameters: message.parameters.map((text) => ({ type: "text", text })) }],
      },
    });
  }

  async send(message: ChatMessage): Promise<SendResult> {
    const { apiUrl, phoneNumberId, token } = this.#options;
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await request(`${apiUrl}/${encodeURIComponent(phoneNumberId)}/messages`, {
        method: "POST",
        dispatcher: this.#agent,
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json", "user-agent": "Cobro-Notifications/1.0" },
        body: this.requestBody(message),
        signal: deadline,
      });
      return outcomeOf(response.statusCode, await readJsonAnswer<ProviderAnswer>(response.body));
    } catch (error) {
      return { outcome: "temporary_failure", reason: unansweredReason(error, deadline, this.#timeoutMs, "the chat provider") };
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

interface ProviderAnswer {
  messages?: Array<{ id?: unknown }>;
  error?: { message?: unknown; code?: unknown };
}

function outcomeOf(status: number, answer: ProviderAnswer | undefined): SendResult {
  const providerMessage = typeof answer?.error?.message === "string" ? answer.error.message : undefined;
  if (status >= 200 && status <= 299) {
    const id = answer?.messages?.[0]?.id;
    if (typeof id === "string" && id !== "") return { outcome: "sent", providerMessageId: id };
    return { outcome: "rejected", reason: `the chat provider answered ${status} without a message id` };
  }
  if (status >= 300 && status <= 399)
    return { outcome: "rejected", reason: `the chat provider answered ${status}: redirects are not followed (check COBRO_WHATSAPP_API_URL)` };
  const said = providerMessage !== undefined ? `: ${providerMessage}` : "";
  if (status === 408 || status === 429 || status >= 500)
    return { outcome: "temporary_failure", reason: failureReason(`the chat provider answered ${status}${said}`) };
  return { outcome: "rejected", reason: failureReason(providerMessage ?? `the chat provider answered ${status}`) };
}
