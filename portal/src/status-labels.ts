// The API's states and kinds as the portal names them, in Spanish.
import type {
  EventDeliveryStatus,
  GoLiveRequestStatus,
  IntegrationClientType,
  ClientAdminStatusEnum,
  MerchantAccountStatus,
  MessageCapRequestStatus,
  PayoutLinkStatus,
  NotificationChannel,
  NotificationKind,
  NotificationStatus,
  PaymentRequestState,
  ProvisioningStatus,
  TestWebhookStatus,
  UnmatchedPaymentReason,
  UnmatchedPaymentReturnState,
  UnmatchedPaymentState,
  UnmatchedReason,
} from "@cobro/sdk/admin";

export const CHARGE_STATE_LABELS: Record<PaymentRequestState, string> = {
  draft: "Borrador",
  pending: "Pendiente",
  partial_payment: "Pago parcial",
  total_payment: "Pagado",
  overdue: "Vencido",
  partial_overdue: "Vencido con pago parcial",
  canceled: "Cancelado",
};

/** The states in which a charge still waits for money. */
export const OPEN_CHARGE_STATES: PaymentRequestState[] = ["pending", "partial_payment", "overdue", "partial_overdue"];

export function isChargeState(value: string): value is PaymentRequestState {
  return value in CHARGE_STATE_LABELS;
}

export const EVENT_STATUS_LABELS: Record<EventDeliveryStatus, string> = {
  pending: "Por entregar",
  delivered: "Entregado",
  failed: "Falló",
  not_sent: "No enviado",
};

export const NOTIFICATION_STATUS_LABELS: Record<NotificationStatus, string> = {
  scheduled: "Programada",
  sent: "Enviada",
  simulated: "Simulada",
  failed: "Falló",
  canceled: "Cancelada",
};

export const NOTIFICATION_CHANNEL_LABELS: Record<NotificationChannel, string> = { email: "Email", whatsapp: "WhatsApp" };

export const NOTIFICATION_KIND_LABELS: Record<NotificationKind, string> = {
  initial: "Aviso del cobro",
  advance_reminder: "Recordatorio previo",
  due_date: "Día del vencimiento",
  first_due_date_passed: "Primer vencimiento pasado",
  second_due_date: "Segundo vencimiento",
  payment_confirmation: "Confirmación del pago",
};

export const MERCHANT_ACCOUNT_STATUS_LABELS: Record<MerchantAccountStatus, string> = {
  active: "Activa",
  suspended: "Suspendida",
  closed: "Cerrada",
};

export const GO_LIVE_STATUS_LABELS: Record<GoLiveRequestStatus, string> = {
  in_review: "En revisión",
  approved: "Aprobada",
  rejected: "Rechazada",
};

export const PROVISIONING_STATUS_LABELS: Record<ProvisioningStatus, string> = {
  not_started: "Sin empezar",
  in_progress: "En curso",
  provisioned: "Lista en Producción",
  failed: "Falló",
  manual: "Manual",
};

export const MESSAGE_CAP_STATUS_LABELS: Record<MessageCapRequestStatus, string> = {
  pending: "Pendiente",
  approved: "Aprobado",
  rejected: "Rechazado",
};

export const PAYOUT_LINK_STATUS_LABELS: Record<PayoutLinkStatus, string> = {
  none: "Sin invitar",
  pending: "Invitación pendiente",
  accepted: "Aceptada",
};

export const CLIENT_ADMIN_STATUS_LABELS: Record<ClientAdminStatusEnum, string> = {
  active: "Activo",
  pending: "Invitado, sin ingresar",
  unknown: "Sin datos",
};

/** Why a transfer matched no charge (a simulated payment's outcome, the test webhook's reason). */
export const UNMATCHED_REASON_LABELS: Record<UnmatchedReason, string> = {
  expired: "el cobro ya venció",
  already_paid: "el cobro ya estaba pagado",
  canceled: "el cobro está cancelado",
  no_cuil_match: "ningún cobro espera a ese CUIL",
  no_pending: "no hay cobros pendientes para ese CVU",
  ambiguous: "hay más de un cobro posible",
};

/** Where unmatched money stands. */
export const UNMATCHED_PAYMENT_STATE_LABELS: Record<UnmatchedPaymentState, string> = {
  unresolved: "Sin imputar",
  assigned: "Imputado",
  return_requested: "Devolución pedida",
  returned: "Devuelto",
  return_failed: "Devolución fallida",
};

/** Where a return of unmatched money stands: asked of the bank, then sent back or refused. */
export const UNMATCHED_RETURN_STATE_LABELS: Record<UnmatchedPaymentReturnState, string> = {
  requested: "Pedida al banco",
  returned: "Devuelta",
  failed: "Fallida",
};

/** Why money is unmatched, as a short name (a filter's option, a table's cell). */
export const UNMATCHED_PAYMENT_REASON_LABELS: Record<UnmatchedPaymentReason, string> = {
  expired: "Cobro vencido",
  already_paid: "Cobro ya pagado",
  canceled: "Cobro cancelado",
  no_cuil_match: "CUIL sin cobro",
  no_pending: "CVU sin cobros",
  ambiguous: "Ambiguo",
  overpaid: "Pago de más",
};

export const TEST_WEBHOOK_STATUS_LABELS: Record<TestWebhookStatus, string> = {
  delivered: "Entregado",
  not_subscribed: "Sin suscripción",
  no_target: "Sin destino",
  ambiguous_target: "Destino ambiguo",
  delivery_failed: "Falló la entrega",
};

export const INTEGRATION_TYPE_LABELS: Record<IntegrationClientType, string> = {
  api_direct: "API directa",
  widget: "Widget",
  both: "API y widget",
  multitenant: "Multisucursal",
};

/** The events of the catalogue, as the portal names them (one term per concept: see docs/portal/glossary.md). */
const EVENT_NAME_LABELS: Record<string, string> = {
  "payment_request.payment_received": "Pago recibido",
  "payment_request.expired": "Cobro vencido",
  "payment.unmatched": "Pago sin imputar",
  "payment.returned": "Pago devuelto",
  "payment.return_failed": "Devolución fallida",
};

/** An event's name in Spanish; an event the portal does not know yet keeps its technical name. */
export function eventLabel(event: string): string {
  return EVENT_NAME_LABELS[event] ?? event;
}
