// The audit log, for both roles: what each admin (or platform API key) did, when, from where and how it
// ended, newest first, with filters (days, operation, result, and who or what, by clicking them) and
// pages. Filters and page are in the URL. The platform's page also narrows to one integration.
import type { AuditEntry, AuditEntryPage, AuditOutcome } from "@cobro/sdk/admin";
import { Field, SelectField } from "./field.tsx";
import { Empty, Loaded } from "./feedback.tsx";
import { Pager } from "./pager.tsx";
import { TableScroll } from "./table-scroll.tsx";
import { useResource } from "./use-resource.ts";
import { argentinaDayRange, formatDateTime } from "../format.ts";
import { navigate } from "../router.ts";

const PAGE_SIZE = 20;

/** Each recorded operation in words; one not listed here shows its operationId. */
export const AUDIT_OPERATION_LABELS: Record<string, string> = {
  adminLogin: "Ingresó al portal",
  adminRefresh: "Renovó la sesión",
  adminLogout: "Cerró la sesión",
  adminChangePassword: "Cambió su contraseña",
  requestAdminPasswordReset: "Pidió restablecer la contraseña",
  completeAdminPasswordReset: "Restableció la contraseña",
  submitAdminPasswordResetPage: "Restableció la contraseña (página)",
  updateMyIntegration: "Cambió el perfil de la integración",
  uploadLogo: "Subió el logo",
  rotateClientSecret: "Rotó el secreto del cliente",
  createApiKeys: "Creó las claves del widget",
  rotateApiSecretKey: "Rotó la clave secreta del widget",
  replaceAllowedOrigins: "Cambió los orígenes permitidos",
  rotateWebhookSigningSecret: "Rotó el secreto de firma de webhooks",
  replaceWebhookSubscriptions: "Cambió los eventos suscriptos",
  sendTestWebhook: "Envió un webhook de prueba",
  resendEvent: "Reenvió un evento",
  createClientUrl: "Agregó una URL",
  updateClientUrl: "Cambió una URL",
  deleteClientUrl: "Borró una URL",
  testClientUrl: "Probó una URL",
  createTenant: "Creó una sucursal",
  updateTenant: "Cambió una sucursal",
  deleteTenant: "Borró una sucursal",
  setTenantValidationToken: "Cambió el token de validación de una sucursal",
  deleteTenantValidationToken: "Quitó el token de validación de una sucursal",
  replaceOffer: "Cambió la oferta",
  invitePayoutLink: "Invitó la cuenta de cobro de comisiones",
  resendPayoutLinkInvite: "Reenvió la invitación de la cuenta de cobro",
  proposeCommissionChange: "Propuso un cambio de comisión",
  withdrawCommissionChange: "Retiró una propuesta de comisión",
  unlinkMerchant: "Desvinculó un comercio",
  createMessageCapRequest: "Pidió más mensajes de chat",
  requestGoLive: "Pidió la salida a producción",
  advanceSandboxClock: "Adelantó el reloj del Sandbox",
  resetSandboxClock: "Volvió el reloj del Sandbox a la hora real",
  simulatePayment: "Simuló un pago",
  createTestCharge: "Creó un cobro de prueba",
  createTestTokens: "Pidió tokens de prueba",
  assignUnmatchedPayment: "Imputó un pago sin imputar a un cobro",
  createIntegrationClient: "Creó una integración",
  updateIntegrationClient: "Cambió una integración",
  suspendIntegrationClient: "Suspendió una integración",
  reinstateIntegrationClient: "Reactivó una integración",
  createClientAdmin: "Agregó un administrador a una integración",
  resendClientAdminWelcome: "Reenvió la bienvenida a un administrador",
  approveMessageCapRequest: "Aprobó un pedido de mensajes",
  rejectMessageCapRequest: "Rechazó un pedido de mensajes",
  approveGoLiveRequest: "Aprobó una salida a producción",
  rejectGoLiveRequest: "Rechazó una salida a producción",
  provisionProductionClient: "Creó una integración en Producción",
  provisionMerchantAccount: "Dio de alta o cambió una cuenta de comercio",
  returnUnmatchedPayment: "Devolvió un pago sin imputar",
  returnPlatformUnmatchedPayment: "Devolvió un pago sin integración",
};

const OUTCOME_OPTIONS = [
  { value: "", label: "Todos" },
  { value: "succeeded", label: "Hechas" },
  { value: "refused", label: "Rechazadas" },
];

const OPERATION_OPTIONS = [
  { value: "", label: "Todas" },
  ...Object.entries(AUDIT_OPERATION_LABELS)
    .map(([value, label]) => ({ value, label }))
    .sort((a, b) => a.label.localeCompare(b.label, "es")),
];

/** What the page filters by, as in its URL. */
export interface AuditFilters {
  desde: string;
  hasta: string;
  operation: string;
  outcome: string;
  actorId: string;
  targetId: string;
  integrationClientId: string;
}

const FILTER_KEYS = ["desde", "hasta", "operation", "outcome", "actorId", "targetId", "integrationClientId"] as const;

/** The query of the Admin API for the filters: Argentina days (UTC-03:00), both inclusive. */
export function auditQuery(filters: AuditFilters) {
  return {
    ...argentinaDayRange(filters.desde, filters.hasta),
    ...(filters.operation ? { operation: filters.operation } : {}),
    ...(filters.outcome ? { outcome: filters.outcome as AuditOutcome } : {}),
    ...(filters.actorId ? { actorId: filters.actorId } : {}),
    ...(filters.targetId ? { targetId: filters.targetId } : {}),
  };
}

function actorLabel(entry: AuditEntry): string {
  const { actor } = entry;
  if (actor.kind === "platform_api_key") return `Clave de API ${actor.platformApiKeyName ?? actor.platformApiKeyId ?? ""}`.trim();
  if (actor.kind === "anonymous") return "Sin identificar";
  const role = actor.kind === "platform_admin" ? "administrador de la plataforma" : "administrador de la integración";
  return `${actor.adminEmail ?? actor.adminUserId} (${role})`;
}

/** `fixedAmount: 25 · percentage: 1.5`, by field name. */
function changesText(changes: Record<string, unknown>): string {
  return Object.entries(changes)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, value]) => `${name}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(" · ");
}

function outcomeLabel(entry: AuditEntry): string {
  if (entry.outcome === "succeeded") return "Hecha";
  return `Rechazada: ${entry.errorCode ?? `HTTP ${entry.status}`}`;
}

export function AuditLog({
  path,
  query,
  load,
  platform = false,
}: {
  path: string;
  query: URLSearchParams;
  load: (filters: AuditFilters, page: { limit: number; offset: number }) => Promise<AuditEntryPage>;
  platform?: boolean;
}) {
  const filters = Object.fromEntries(FILTER_KEYS.map((key) => [key, query.get(key) ?? ""])) as unknown as AuditFilters;
  const page = Math.max(1, Number.parseInt(query.get("page") ?? "1", 10) || 1);
  const entries = useResource(() => load(filters, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }), [query.toString()]);
  const go = (next: Partial<AuditFilters> & { page?: number }) => {
    const params = new URLSearchParams();
    for (const key of FILTER_KEYS) {
      const value = next[key] ?? filters[key];
      if (value) params.set(key, value);
    }
    if ((next.page ?? 1) > 1) params.set("page", String(next.page));
    const search = params.toString();
    navigate(`${path}${search ? `?${search}` : ""}`);
  };
  const filtered = FILTER_KEYS.some((key) => filters[key] !== "");
  return (
    <>
      <h1>Registro de auditoría</h1>
      <p class="muted">
        {platform
          ? "Todo lo que hicieron los administradores y las claves de API: cambios, ingresos al portal y contraseñas, hechos o rechazados."
          : "Todo lo que hicieron los administradores de tu integración: cambios, ingresos al portal y contraseñas, hechos o rechazados."}{" "}
        Nunca se guardan contraseñas, secretos ni tokens.
      </p>
      {/* biome-ignore lint/a11y/useSemanticElements: the search landmark every screen reader knows, as on the pages (biome.jsonc) */}
      <form class="filters" role="search" onSubmit={(submitted) => submitted.preventDefault()}>
        <Field label="Desde" type="date" name="desde" value={filters.desde} onValue={(desde) => go({ desde, page: 1 })} />
        <Field label="Hasta" type="date" name="hasta" value={filters.hasta} onValue={(hasta) => go({ hasta, page: 1 })} />
        <SelectField
          label="Operación"
          name="operation"
          value={filters.operation}
          options={OPERATION_OPTIONS}
          onValue={(operation) => go({ operation, page: 1 })}
        />
        <SelectField label="Resultado" name="outcome" value={filters.outcome} options={OUTCOME_OPTIONS} onValue={(outcome) => go({ outcome, page: 1 })} />
      </form>
      {(filters.actorId || filters.targetId || filters.integrationClientId) && (
        <p class="audit-narrowed">
          {filters.actorId && (
            <span>
              Sólo las acciones de <span class="mono">{filters.actorId}</span>.{" "}
            </span>
          )}
          {filters.targetId && (
            <span>
              Sólo sobre <span class="mono">{filters.targetId}</span>.{" "}
            </span>
          )}
          {filters.integrationClientId && (
            <span>
              Sólo de la integración <span class="mono">{filters.integrationClientId}</span>.{" "}
            </span>
          )}
          <button type="button" class="button-secondary" onClick={() => go({ actorId: "", targetId: "", integrationClientId: "", page: 1 })}>
            Ver todas
          </button>
        </p>
      )}
      <Loaded resource={entries}>
        {(result) =>
          result.items.length === 0 ? (
            <Empty>{filtered ? "No hay acciones con esos filtros." : "Todavía no hay acciones registradas."}</Empty>
          ) : (
            <>
              <TableScroll label="acciones registradas">
                <table class="audit-log">
                  <caption class="visually-hidden">Registro de auditoría</caption>
                  <thead>
                    <tr>
                      <th scope="col">Fecha</th>
                      <th scope="col">Quién</th>
                      <th scope="col">Qué</th>
                      <th scope="col">Sobre qué</th>
                      <th scope="col">Resultado</th>
                      <th scope="col">Desde</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((entry) => (
                      <tr key={entry.id} data-testid="audit-entry">
                        <td>{formatDateTime(entry.occurredAt)}</td>
                        <td>
                          {entry.actor.adminUserId || entry.actor.platformApiKeyId ? (
                            <button
                              type="button"
                              class="link-button"
                              title="Ver sólo sus acciones"
                              onClick={() => go({ actorId: entry.actor.adminUserId ?? entry.actor.platformApiKeyId ?? "", page: 1 })}
                            >
                              {actorLabel(entry)}
                            </button>
                          ) : (
                            actorLabel(entry)
                          )}
                          {platform && entry.integrationClientId && (
                            <>
                              {" "}
                              <button
                                type="button"
                                class="link-button muted"
                                title="Ver sólo esta integración"
                                onClick={() => go({ integrationClientId: entry.integrationClientId ?? "", page: 1 })}
                              >
                                (integración)
                              </button>
                            </>
                          )}
                        </td>
                        <td>
                          {AUDIT_OPERATION_LABELS[entry.operation] ?? entry.operation}
                          <div class="mono muted">
                            {entry.method} {entry.route}
                          </div>
                          {entry.fields.length > 0 && <div class="muted">Campos: {entry.fields.join(", ")}</div>}
                          {Object.keys(entry.changes).length > 0 && <div class="muted">Valores: {changesText(entry.changes)}</div>}
                        </td>
                        <td>
                          {Object.entries(entry.targets).map(([name, id]) => (
                            <div key={name}>
                              <button type="button" class="link-button mono" title="Ver sólo lo hecho sobre esto" onClick={() => go({ targetId: id, page: 1 })}>
                                {name}: {id}
                              </button>
                            </div>
                          ))}
                          {Object.keys(entry.targets).length === 0 && "—"}
                        </td>
                        <td>
                          <span class={`badge ${entry.outcome === "succeeded" ? "badge-delivered" : "badge-failed"}`}>{outcomeLabel(entry)}</span>
                        </td>
                        <td class="mono">{entry.clientAddress}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["acción", "acciones"]} onPage={(next) => go({ page: next })} />
            </>
          )
        }
      </Loaded>
    </>
  );
}
