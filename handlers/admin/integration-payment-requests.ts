// The integration's charges across all its merchant accounts (/my-integration/payment-requests).
import type { components } from "../../generated/types/admin.ts";
import { listIntegrationCharges } from "../../domain/charges/integration-charges.ts";
import { fromCents } from "../../domain/money.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

type Schemas = components["schemas"];
type IntegrationCharge = Awaited<ReturnType<typeof listIntegrationCharges>>["items"][number];

function integrationChargeView(row: IntegrationCharge): Schemas["IntegrationPaymentRequest"] {
  return {
    paymentRequestId: row.id,
    integrationReferenceId: row.reference_id,
    paidAmount: fromCents(row.paid_cents),
    ...(row.customer_email ? { payerEmail: row.customer_email } : {}),
    description: row.description,
    createdAt: row.created_at.toISOString(),
    status: row.state,
  };
}

export const listIntegrationPaymentRequests: Handler<"listIntegrationPaymentRequests"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listIntegrationCharges(services.db, admin.integrationClientId, { state: query.status, ...page });
  return { status: 200, body: { items: items.map(integrationChargeView), total, ...page } };
};
