// The Sandbox's test webhook: a real, signed `payment.unmatched` with `test: true`, sent at once through
// the subscription gate and the routing of a merchant account (a tenant's URL with `tenantKey`, else the
// integration's), and a report of what happened with an actionable message in Spanish. Not recorded as
// an event and never retried.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { UnmatchedReason } from "../../db/tables/transfers.table.ts";
import { makeCvu } from "../cvu.ts";
import { resolveTestTarget } from "./destinations.ts";
import { sendSigned } from "./delivery.ts";
import type { OutboundHttpClient, OutboundResult } from "../outbound/http-client.ts";
import { ensureSigningSecret } from "./signing-secrets.ts";
import { isSubscribed } from "./subscriptions.ts";

export type TestWebhookStatus = "delivered" | "not_subscribed" | "no_target" | "ambiguous_target" | "delivery_failed";

export interface TestWebhookReport {
  delivered: boolean;
  status: TestWebhookStatus;
  message: string;
  webhookId?: string;
  targetUrl?: string;
  responseStatus?: number;
  livemode: boolean;
}

/** The CVU the test event names (a valid CVU that belongs to no merchant account). */
const TEST_CVU = makeCvu("0031", "9999999999999");

export async function sendTestWebhook(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  input: { integrationClientId: string; reason: UnmatchedReason; tenantKey?: string; now: Date },
): Promise<TestWebhookReport> {
  const base = { livemode: false };
  if (!(await isSubscribed(db, input.integrationClientId, "payment.unmatched"))) {
    return {
      ...base,
      delivered: false,
      status: "not_subscribed",
      message:
        "No se envió nada: payment.unmatched no está en tus eventos suscriptos (enabledEvents). Agregalo con PUT /my-integration/webhook-subscriptions y volvé a probar.",
    };
  }
  const target = await resolveTestTarget(db, input.integrationClientId, input.tenantKey);
  if (target.kind === "no_target") {
    return {
      ...base,
      delivered: false,
      status: "no_target",
      message:
        target.tenantKey !== undefined
          ? `No se envió nada: no hay una sucursal activa con la clave "${target.tenantKey}". Revisá las claves con GET /my-integration/tenant.`
          : "No se envió nada: no hay ninguna URL de webhook configurada. Registrá la URL de tu integración con POST /my-integration/urls (urlType webhook) o creá una sucursal con su webhook_url.",
    };
  }
  if (target.kind === "ambiguous_target") {
    return {
      ...base,
      delivered: false,
      status: "ambiguous_target",
      message: `No se envió nada: hay ${target.tenantKeys.length} sucursales con webhook y ninguna URL de la integración. Indicá en tenantKey a cuál enviar la prueba (${target.tenantKeys.join(", ")}).`,
    };
  }

  const { destination } = target;
  const webhookId = randomUUID();
  const mentionsCharge = input.reason === "expired" || input.reason === "already_paid" || input.reason === "canceled";
  const payload = {
    event: "payment.unmatched",
    reason: input.reason,
    livemode: false,
    transactionId: `test_${webhookId}`,
    cvu: TEST_CVU,
    amount: 1500,
    payerCuil: "20301234563",
    payerName: "Pagador de Prueba",
    ...(mentionsCharge ? { referenceId: "TEST-REFERENCE-0001" } : {}),
    test: true,
    receivedAt: input.now.toISOString(),
  };
  const secret = await ensureSigningSecret(db, input.integrationClientId, input.now);
  const result = await sendSigned(http, destination.url, webhookId, JSON.stringify(payload), secret, destination.validationToken, input.now);
  const where = destination.rule === "tenant" ? `la URL de la sucursal "${target.tenantKey}"` : "la URL de tu integración";
  const attempted = { ...base, webhookId, targetUrl: destination.url };
  if (result.ok) return { ...attempted, delivered: true, status: "delivered", message: `El webhook de prueba se entregó correctamente a ${where}.` };
  return {
    ...attempted,
    delivered: false,
    status: "delivery_failed",
    message: failureMessage(result, where, http.timeoutMs),
    ...(result.status !== undefined ? { responseStatus: result.status } : {}),
  };
}

function failureMessage(result: OutboundResult, where: string, timeoutMs: number): string {
  const seconds = Math.round(timeoutMs / 1000);
  switch (result.failure) {
    case "redirect":
      return `${capitalised(where)} respondió con una redirección (${result.status}) y las redirecciones no se siguen. Registrá la URL final, la que responde 2xx.`;
    case "timeout":
      return `${capitalised(where)} no respondió en ${seconds} segundos. Respondé 2xx enseguida y procesá el evento después (por ejemplo, en una cola).`;
    case "blocked_address":
      return `${capitalised(where)} apunta a una dirección interna o privada, y por seguridad no se envían webhooks ahí. Usá una URL pública con HTTPS.`;
    case "connection_error":
      return `No se pudo conectar con ${where}: falló el DNS, se rechazó la conexión o hubo un error de TLS. Verificá que el servidor esté activo, sea accesible desde internet y tenga un certificado HTTPS válido.`;
    default:
      return `${capitalised(where)} respondió ${result.status}. Tu endpoint debe responder con un código 2xx en menos de ${seconds} segundos: revisá sus logs y volvé a probar.`;
  }
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
