// The payer page (/p/{token}): no caller, the token is the key. It shows the charge to its payer and takes
// the payer's request for the payment confirmation by chat.
import { readPayerPage, requestPaymentConfirmation as requestConfirmation } from "../../domain/notifications/payer-page.ts";
import { payerPagePath } from "../../domain/notifications/payer-page-link.ts";
import { renderPayerPage, renderPayerPageNotFound } from "../pages/payer-page.ts";
import type { Handler } from "./handler.ts";

export const getPayerPage: Handler<"getPayerPage", 404> = async ({ params, query, services }) => {
  const page = await readPayerPage(services.db, services.clock, params.token);
  if (!page) return { status: 404, ...renderPayerPageNotFound() };
  return { status: 200, ...renderPayerPage(page, params.token, query.confirmation === "requested" ? { kind: "confirmation_requested" } : undefined) };
};

export const requestPaymentConfirmation: Handler<"requestPaymentConfirmation", 404 | 409> = async ({ params, services }) => {
  const result = await requestConfirmation(services.db, services.clock, params.token);
  if (result.outcome === "requested") {
    // Back to the page (a GET), which then shows where the confirmation stands.
    return { status: 303, headers: { "Cache-Control": "no-store", Location: `${payerPagePath(params.token)}?confirmation=requested` } };
  }
  const page = result.outcome === "refused" ? await readPayerPage(services.db, services.clock, params.token) : undefined;
  if (!page || result.outcome !== "refused") return { status: 404, ...renderPayerPageNotFound() };
  return { status: 409, ...renderPayerPage(page, params.token, { kind: "confirmation_refused", refusal: result.refusal }) };
};
