// The integration's event subscription, signing secret, event catalog and the Sandbox's test webhook.
import { requireSandbox } from "../../domain/sandbox/sandbox-only.ts";
import { EVENT_CATALOG } from "../../domain/events/catalog.ts";
import { getSigningSecret, rotateSigningSecret } from "../../domain/webhooks/signing-secrets.ts";
import { getSubscription, replaceSubscription } from "../../domain/webhooks/subscriptions.ts";
import { sendTestWebhook as sendTest } from "../../domain/webhooks/test-webhook.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const getWebhookSubscriptions: Handler<"getWebhookSubscriptions"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: { enabledEvents: await getSubscription(services.db, admin.integrationClientId) } };
};

export const replaceWebhookSubscriptions: Handler<"replaceWebhookSubscriptions"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: { enabledEvents: await replaceSubscription(services.db, admin.integrationClientId, body.enabledEvents) } };
};

export const getWebhookSigningSecret: Handler<"getWebhookSigningSecret"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const { secret, scheme } = await getSigningSecret(services.db, admin.integrationClientId);
  return { status: 200, body: { webhookSigningSecret: secret, scheme } };
};

export const rotateWebhookSigningSecret: Handler<"rotateWebhookSigningSecret"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const { secret, scheme } = await rotateSigningSecret(services.db, admin.integrationClientId, services.clock.now());
  return { status: 200, body: { webhookSigningSecret: secret, scheme } };
};

export const listWebhookEvents: Handler<"listWebhookEvents"> = async ({ caller }) => {
  requireIntegrationAdmin(caller);
  return { status: 200, body: EVENT_CATALOG.map((item) => ({ ...item })) };
};

export const sendTestWebhook: Handler<"sendTestWebhook"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv, "The test webhook exists only in the Sandbox");
  const report = await sendTest(services.db, services.outboundHttp, {
    integrationClientId: admin.integrationClientId,
    reason: body.reason,
    tenantKey: body.tenantKey,
    now: services.clock.now(),
  });
  return { status: 200, body: report };
};
