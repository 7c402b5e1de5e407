// Money that matched no charge ("pagos sin imputar"): the list with its filters (state, reason, merchant
// account, days; in the URL, so a reload or a shared link keeps them), and one payment with what resolved it
// and the steps that resolve it: assign it (imputar) to an open charge of the merchant account that received
// it (search the charge, choose it, confirm, and read what was applied and what is left), or return it
// (devolver) to the account it came from (confirm, then follow the return until the bank finishes it). The
// Admin API audits both.
import { useState } from "preact/hooks";
import type {
  IntegrationPaymentRequest,
  UnmatchedPayment,
  UnmatchedPaymentAssignmentResult,
  UnmatchedPaymentReturnRecord,
  UnmatchedPaymentReturnResult,
} from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field, SelectField } from "../components/field.tsx";
import { Confirmation, Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { Pager } from "../components/pager.tsx";
import { TableScroll } from "../components/table-scroll.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { argentinaDay, argentinaDayRange, DAY, formatDateTime, formatMoney, payerText } from "../format.ts";
import { merchantName, merchantOptions, useMerchants } from "../merchant-names.ts";
import { Link, navigate } from "../router.ts";
import { CHARGE_STATE_LABELS, UNMATCHED_PAYMENT_REASON_LABELS, UNMATCHED_PAYMENT_STATE_LABELS, UNMATCHED_RETURN_STATE_LABELS } from "../status-labels.ts";

const PAGE_SIZE = 20;

const optionsOf = (labels: Record<string, string>, all: string) => [
  { value: "", label: all },
  ...Object.entries(labels).map(([value, label]) => ({ value, label })),
];
const STATE_OPTIONS = optionsOf(UNMATCHED_PAYMENT_STATE_LABELS, "Todos");
const REASON_OPTIONS = optionsOf(UNMATCHED_PAYMENT_REASON_LABELS, "Todos");

interface Filters {
  state: string;
  reason: string;
  merchantUserId: string;
  /** `YYYY-MM-DD` days in Argentina, or empty. */
  from: string;
  to: string;
}

const FILTER_NAMES = ["state", "reason", "merchantUserId", "from", "to"] as const;

function filtersOf(query: URLSearchParams): Filters {
  const read = (name: string, allowed?: Record<string, string>) => {
    const value = query.get(name) ?? "";
    return allowed && !(value in allowed) ? "" : value;
  };
  const day = (name: string) => (DAY.test(query.get(name) ?? "") ? query.get(name)! : "");
  return {
    state: read("state", UNMATCHED_PAYMENT_STATE_LABELS),
    reason: read("reason", UNMATCHED_PAYMENT_REASON_LABELS),
    merchantUserId: read("merchantUserId"),
    from: day("from"),
    to: day("to"),
  };
}

export function UnmatchedPaymentList({ query }: { query: URLSearchParams }) {
  const filters = filtersOf(query);
  const page = Math.max(1, Number.parseInt(query.get("page") ?? "1", 10) || 1);
  const merchants = useMerchants();
  // An inverted range is said under "Hasta" at once, without asking the API.
  const inverted = Boolean(filters.from && filters.to && filters.from > filters.to);
  const payments = useResource(
    async () =>
      inverted
        ? undefined
        : adminApi.unmatchedPayments.listUnmatchedPayments({
            ...(filters.state ? { state: filters.state as UnmatchedPayment["state"] } : {}),
            ...(filters.reason ? { reason: filters.reason as UnmatchedPayment["reason"] } : {}),
            ...(filters.merchantUserId ? { merchantUserId: filters.merchantUserId } : {}),
            ...argentinaDayRange(filters.from, filters.to),
            limit: PAGE_SIZE,
            offset: (page - 1) * PAGE_SIZE,
          }),
    [...FILTER_NAMES.map((name) => filters[name]), page],
  );
  const go = (next: Partial<Filters> & { page?: number }) => {
    const params = new URLSearchParams();
    const chosen = { ...filters, ...next };
    for (const name of FILTER_NAMES) if (chosen[name]) params.set(name, chosen[name]);
    if ((next.page ?? 1) > 1) params.set("page", String(next.page));
    const search = params.toString();
    navigate(`/unmatched${search ? `?${search}` : ""}`);
  };
  const error = payments.status === "failed" ? payments.error : undefined;
  const toError = inverted ? "La fecha «hasta» no puede ser anterior a «desde»." : error?.fieldErrors.to;
  const filtered = FILTER_NAMES.some((name) => filters[name]);
  return (
    <>
      <h1>Pagos sin imputar</h1>
      <p>
        Las transferencias que Cobro recibió y no pudo aplicar a un cobro, y lo pagado de más. Desde su detalle, imputá cada una al cobro que correspondía o
        devolvela a la cuenta de donde vino.
      </p>
      <form class="filters" role="search" aria-label="Filtros de los pagos sin imputar" onSubmit={(event) => event.preventDefault()}>
        <SelectField label="Estado" name="state" value={filters.state} options={STATE_OPTIONS} onValue={(state) => go({ state, page: 1 })} />
        <SelectField label="Motivo" name="reason" value={filters.reason} options={REASON_OPTIONS} onValue={(reason) => go({ reason, page: 1 })} />
        <SelectField
          label="Comercio"
          name="merchantUserId"
          value={filters.merchantUserId}
          options={merchantOptions(merchants, "Todas")}
          onValue={(merchantUserId) => go({ merchantUserId, page: 1 })}
        />
        <Field label="Desde" type="date" name="from" value={filters.from} onValue={(from) => go({ from, page: 1 })} error={error?.fieldErrors.from} />
        <Field label="Hasta" type="date" name="to" value={filters.to} onValue={(to) => go({ to, page: 1 })} error={toError} />
      </form>
      <Loaded resource={payments}>
        {(result) =>
          result === undefined ? null : result.items.length === 0 ? (
            <Empty>{filtered ? "No hay pagos sin imputar con esos filtros." : "No hay pagos sin imputar: todo lo recibido se aplicó a un cobro."}</Empty>
          ) : (
            <>
              <TableScroll label="pagos sin imputar">
                <table>
                  <caption class="visually-hidden">Pagos sin imputar de la integración</caption>
                  <thead>
                    <tr>
                      <th scope="col">Recibido</th>
                      <th scope="col" class="number">
                        Importe
                      </th>
                      <th scope="col" class="number">
                        Sin resolver
                      </th>
                      <th scope="col">Motivo</th>
                      <th scope="col">Estado</th>
                      <th scope="col">Pagador</th>
                      <th scope="col">Comercio</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((payment) => (
                      <tr key={payment.unmatchedPaymentId} data-testid="unmatched-payment" data-reason={payment.reason} data-state={payment.state}>
                        <td>
                          <Link href={`/unmatched/${encodeURIComponent(payment.unmatchedPaymentId)}`}>
                            {formatDateTime(payment.receivedAt)}
                            {/* The link's name says which payment it opens; what it shows stays the start of it. */}
                            <span class="visually-hidden"> · ver el pago {payment.transactionId}</span>
                          </Link>
                        </td>
                        <td class="number">{formatMoney(payment.amount)}</td>
                        <td class="number">{formatMoney(payment.unresolvedAmount)}</td>
                        <td>{UNMATCHED_PAYMENT_REASON_LABELS[payment.reason]}</td>
                        <td>
                          <span class={`badge badge-${payment.state}`}>{UNMATCHED_PAYMENT_STATE_LABELS[payment.state]}</span>
                        </td>
                        <td>{payerText(payment.payerName, payment.payerCuil)}</td>
                        <td>{merchants.status === "ready" ? merchantName(merchants.data, payment.merchantUserId) : ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["pago", "pagos"]} onPage={(next) => go({ page: next })} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

export function UnmatchedPaymentDetail({ unmatchedPaymentId }: { unmatchedPaymentId: string }) {
  const payment = useResource(() => adminApi.unmatchedPayments.getUnmatchedPayment({ unmatchedPaymentId }), [unmatchedPaymentId]);
  const merchants = useMerchants();
  return (
    <>
      <p>
        <Link href="/unmatched">← Pagos sin imputar</Link>
      </p>
      <Loaded resource={payment}>
        {(found) => (
          <UnmatchedPaymentView
            payment={found}
            merchant={merchants.status === "ready" ? merchantName(merchants.data, found.merchantUserId) : ""}
            onChanged={payment.reload}
          />
        )}
      </Loaded>
    </>
  );
}

function UnmatchedPaymentView({ payment, merchant, onChanged }: { payment: UnmatchedPayment; merchant: string; onChanged: () => void }) {
  const [step, setStep] = useState<"assign" | "return" | undefined>(undefined);
  const [result, setResult] = useState<UnmatchedPaymentAssignmentResult | undefined>(undefined);
  const [returned, setReturned] = useState<UnmatchedPaymentReturnResult | undefined>(undefined);
  // A failed return's money is unresolved again: it can be assigned or returned as it was at first.
  const resolvable = (payment.state === "unresolved" || payment.state === "return_failed") && payment.merchantUserId !== null;
  return (
    <>
      <h1>Pago sin imputar {payment.transactionId}</h1>
      {result && <AssignmentOutcome result={result} />}
      {returned && <ReturnOutcome result={returned} />}
      <dl class="facts">
        <dt>Estado</dt>
        <dd>
          <span class={`badge badge-${payment.state}`} data-testid="unmatched-state">
            {UNMATCHED_PAYMENT_STATE_LABELS[payment.state]}
          </span>
        </dd>
        <dt>Motivo</dt>
        <dd data-testid="unmatched-reason">{UNMATCHED_PAYMENT_REASON_LABELS[payment.reason]}</dd>
        <dt>Importe sin imputar</dt>
        <dd>{formatMoney(payment.amount)}</dd>
        <dt>Sin resolver</dt>
        <dd data-testid="unmatched-unresolved">{formatMoney(payment.unresolvedAmount)}</dd>
        {payment.transferAmount !== payment.amount && (
          <>
            <dt>Pago recibido</dt>
            <dd>{formatMoney(payment.transferAmount)}</dd>
          </>
        )}
        <dt>Recibido</dt>
        <dd>{formatDateTime(payment.receivedAt)}</dd>
        <dt>Pagador</dt>
        <dd>{payerText(payment.payerName, payment.payerCuil)}</dd>
        <dt>CVU</dt>
        <dd class="mono">{payment.cvu}</dd>
        <dt>Comercio</dt>
        <dd>{merchant || "—"}</dd>
        {payment.paymentRequestId && (
          <>
            <dt>Cobro relacionado</dt>
            <dd>
              <Link href={`/charges/${encodeURIComponent(payment.paymentRequestId)}`}>{payment.referenceId ?? payment.paymentRequestId}</Link>
            </dd>
          </>
        )}
        <dt>Transacción</dt>
        <dd class="mono">{payment.transactionId}</dd>
        {payment.resolvedAt && (
          <>
            <dt>Resuelto</dt>
            <dd>{formatDateTime(payment.resolvedAt)}</dd>
          </>
        )}
      </dl>
      <section aria-labelledby="assignments-title">
        <h2 id="assignments-title">Imputaciones</h2>
        {payment.assignments.length === 0 ? (
          <Empty>Todavía no se imputó a ningún cobro.</Empty>
        ) : (
          <ul class="list" data-testid="unmatched-assignments">
            {payment.assignments.map((assignment) => (
              <li key={`${assignment.paymentRequestId}-${assignment.assignedAt}`}>
                <Link href={`/charges/${encodeURIComponent(assignment.paymentRequestId)}`}>{assignment.referenceId}</Link>
                <span class="number">{formatMoney(assignment.amount)}</span>
                <span class="muted">{formatDateTime(assignment.assignedAt)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section aria-labelledby="returns-title">
        <h2 id="returns-title">Devoluciones</h2>
        {payment.returns.length === 0 ? (
          <Empty>Todavía no se pidió ninguna devolución.</Empty>
        ) : (
          <ul class="list" data-testid="unmatched-returns">
            {payment.returns.map((entry) => (
              <ReturnItem key={entry.returnId} entry={entry} />
            ))}
          </ul>
        )}
        {payment.state === "return_requested" && (
          <p>
            El banco todavía no terminó la devolución.{" "}
            <button type="button" class="button-secondary" onClick={onChanged}>
              Actualizar
            </button>
          </p>
        )}
      </section>
      {/* What can be done with the money still unresolved: assign it to a charge, or return it to the account it came from. */}
      <section aria-labelledby="resolve-title" data-testid="unmatched-actions">
        <h2 id="resolve-title">Resolver</h2>
        {!resolvable ? (
          <p>
            {payment.state === "unresolved"
              ? "Este pago no es de ninguna cuenta de comercio de tu integración."
              : payment.state === "return_requested"
                ? "Se está devolviendo: no queda nada sin resolver hasta que el banco termine."
                : "No queda nada sin resolver en este pago."}
          </p>
        ) : step === "assign" ? (
          <AssignToCharge
            payment={payment}
            onCancel={() => setStep(undefined)}
            onAssigned={(assigned) => {
              setResult(assigned);
              setReturned(undefined);
              setStep(undefined);
              onChanged();
            }}
          />
        ) : step === "return" ? (
          <ReturnToSender
            payment={payment}
            onCancel={() => setStep(undefined)}
            onReturned={(asked) => {
              setReturned(asked);
              setResult(undefined);
              setStep(undefined);
              onChanged();
            }}
          />
        ) : (
          <p>
            <button type="button" onClick={() => setStep("assign")}>
              Imputar
            </button>{" "}
            <button type="button" class="button-secondary" onClick={() => setStep("return")}>
              Devolver
            </button>
          </p>
        )}
      </section>
    </>
  );
}

function AssignmentOutcome({ result }: { result: UnmatchedPaymentAssignmentResult }) {
  const left = result.unmatchedPayment.unresolvedAmount;
  return (
    <Notice>
      <p data-testid="assignment-result">
        Se imputaron {formatMoney(result.assignedAmount)} al cobro {result.referenceId}, que quedó «{CHARGE_STATE_LABELS[result.paymentRequestState]}».{" "}
        {left > 0 ? `Quedan ${formatMoney(left)} sin imputar.` : "No queda nada sin imputar de este pago."}
      </p>
    </Notice>
  );
}

/** Where money goes back to, as the API gives it: the sender's account and CUIL (either may be unknown). */
function destination(toCvu: string | undefined, toCuil: string | undefined): string {
  return [toCvu && `CBU/CVU ${toCvu}`, toCuil && `CUIL ${toCuil}`].filter(Boolean).join(", ") || "la cuenta de origen";
}

function ReturnItem({ entry }: { entry: UnmatchedPaymentReturnRecord }) {
  return (
    <li data-state={entry.state}>
      <span>
        <span class={`badge badge-${entry.state}`}>{UNMATCHED_RETURN_STATE_LABELS[entry.state]}</span> a {destination(entry.toCvu, entry.toCuil)}
        {entry.failureReason && <span class="muted"> · Motivo del banco: {entry.failureReason}</span>}
      </span>
      <span class="number">{formatMoney(entry.amount)}</span>
      <span class="muted">
        Pedida {formatDateTime(entry.requestedAt)}
        {entry.completedAt && ` · terminada ${formatDateTime(entry.completedAt)}`}
      </span>
    </li>
  );
}

function ReturnOutcome({ result }: { result: UnmatchedPaymentReturnResult }) {
  return (
    <Notice>
      <p data-testid="return-result">
        Se pidió al banco devolver {formatMoney(result.amount)} a {destination(result.toCvu, result.toCuil)}. La devolución quedó «
        {UNMATCHED_RETURN_STATE_LABELS[result.state]}»: su resultado se ve en «Devoluciones».
      </p>
    </Notice>
  );
}

/** A key no other request has: a UUID, or (randomUUID exists only on https and localhost) 32 random hex digits. */
function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/**
 * The return's confirmation. Its Idempotency-Key is made once, when the confirmation opens: a second click or
 * a retry of the same confirmation asks the same return again, which the API answers without asking the bank
 * twice; a new confirmation (after a failed return) is a new return.
 */
function ReturnToSender({
  payment,
  onCancel,
  onReturned,
}: {
  payment: UnmatchedPayment;
  onCancel: () => void;
  onReturned: (result: UnmatchedPaymentReturnResult) => void;
}) {
  const [idempotencyKey] = useState(newIdempotencyKey);
  const ask = useAction(() =>
    adminApi.unmatchedPayments.returnUnmatchedPayment({
      unmatchedPaymentId: payment.unmatchedPaymentId,
      idempotencyKey,
      unmatchedPaymentReturnRequest: {},
    }),
  );
  // The sender's account is known once a return was asked (the bank reported it); before, its CUIL and name.
  const last = payment.returns.at(-1);
  const sender = [payment.payerName, payment.payerCuil && `CUIL ${payment.payerCuil}`, last?.toCvu && `CBU/CVU ${last.toCvu}`].filter(Boolean).join(", ");
  return (
    <Confirmation
      label="Confirmar la devolución"
      confirmLabel="Sí, devolver"
      busy={ask.busy}
      error={ask.error}
      onCancel={() => {
        ask.clearError();
        onCancel();
      }}
      onConfirm={async () => {
        const result = await ask.run();
        if (result) onReturned(result);
      }}
    >
      <span data-testid="return-confirmation">
        ¿Devolver {formatMoney(payment.unresolvedAmount)} a la cuenta de donde vino la transferencia {payment.transactionId}
        {sender && ` (${sender})`}? El banco la envía de vuelta en unos momentos; no se puede deshacer.
      </span>
    </Confirmation>
  );
}

/**
 * What the charge owed at the transfer's time: the amount of its first due date not yet passed then (the
 * last one's after all passed), less what was paid. An estimate for the confirmation; the API applies the
 * exact amount and says it.
 */
function owedAt(charge: Awaited<ReturnType<typeof adminApi.paymentRequests.getIntegrationPaymentRequest>>, receivedAt: string): number | undefined {
  if (charge.dueAmounts.length === 0) return undefined;
  const day = argentinaDay(receivedAt);
  const due =
    charge.dueAmounts.find((entry) => (DAY.test(entry.dueDate) ? entry.dueDate >= day : new Date(entry.dueDate) >= new Date(receivedAt))) ??
    charge.dueAmounts.at(-1)!;
  return Math.max(0, Math.round((due.amount - charge.paidAmount) * 100) / 100);
}

function AssignToCharge({
  payment,
  onCancel,
  onAssigned,
}: {
  payment: UnmatchedPayment;
  onCancel: () => void;
  onAssigned: (result: UnmatchedPaymentAssignmentResult) => void;
}) {
  const [text, setText] = useState("");
  const [search, setSearch] = useState("");
  const [chosen, setChosen] = useState<IntegrationPaymentRequest | undefined>(undefined);
  const merchantUserId = payment.merchantUserId!;
  const charges = useResource(
    () => adminApi.paymentRequests.listIntegrationPaymentRequests({ merchantUserId, open: true, ...(search ? { search } : {}), limit: 10 }),
    [merchantUserId, search],
  );
  const detail = useResource(
    async () => (chosen ? adminApi.paymentRequests.getIntegrationPaymentRequest({ paymentRequestId: chosen.paymentRequestId }) : undefined),
    [chosen?.paymentRequestId],
  );
  const assign = useAction((paymentRequestId: string) =>
    adminApi.unmatchedPayments.assignUnmatchedPayment({
      unmatchedPaymentId: payment.unmatchedPaymentId,
      unmatchedPaymentAssignmentRequest: { paymentRequestId },
    }),
  );
  const searchError = charges.status === "failed" ? charges.error : undefined;

  if (chosen) {
    const owed = detail.status === "ready" && detail.data ? owedAt(detail.data, payment.receivedAt) : undefined;
    const toApply = owed === undefined ? payment.unresolvedAmount : Math.min(owed, payment.unresolvedAmount);
    const reference = chosen.integrationReferenceId ?? chosen.paymentRequestId;
    return (
      <Confirmation
        label="Confirmar la imputación"
        confirmLabel="Sí, imputar"
        busy={assign.busy || detail.status === "loading"}
        error={assign.error}
        onCancel={() => {
          assign.clearError();
          setChosen(undefined);
        }}
        onConfirm={async () => {
          const result = await assign.run(chosen.paymentRequestId);
          if (result) onAssigned(result);
        }}
      >
        <span data-testid="assignment-confirmation">
          ¿Imputar {formatMoney(toApply)} de este pago al cobro <strong>{reference}</strong> ({chosen.description}
          {detail.status === "ready" && detail.data ? `, de ${detail.data.customerName}, ${CHARGE_STATE_LABELS[detail.data.status].toLowerCase()}` : ""})? Se
          registra como un pago hecho el {formatDateTime(payment.receivedAt)}, con su evento y su comisión; no se puede deshacer.
          {toApply < payment.unresolvedAmount && ` Lo que el cobro no debía (${formatMoney(payment.unresolvedAmount - toApply)}) queda sin imputar.`}
        </span>
      </Confirmation>
    );
  }
  return (
    <div class="assign">
      <form
        class="filters"
        role="search"
        aria-label="Buscar el cobro"
        onSubmit={(event) => {
          event.preventDefault();
          setSearch(text.trim());
        }}
      >
        <Field
          label="Buscar un cobro abierto del comercio"
          name="search"
          value={text}
          onValue={setText}
          hint="Referencia, nombre, email o CUIL del pagador."
          error={searchError?.fieldErrors.search}
        />
        <button type="submit">Buscar</button>
        <button type="button" class="button-secondary" onClick={onCancel}>
          Cancelar
        </button>
      </form>
      {searchError && <ErrorAlert error={searchError} extra={unplacedFieldErrors(searchError, ["search"])} />}
      {charges.status !== "failed" && (
        <Loaded resource={charges}>
          {(result) =>
            result.items.length === 0 ? (
              <Empty>{search ? `Ningún cobro abierto del comercio coincide con «${search}».` : "Este comercio no tiene cobros abiertos."}</Empty>
            ) : (
              <ul class="list" aria-label="Cobros abiertos del comercio" data-testid="charge-candidates">
                {result.items.map((charge) => {
                  const reference = charge.integrationReferenceId ?? charge.paymentRequestId.slice(0, 8);
                  return (
                    <li key={charge.paymentRequestId}>
                      <span>
                        <strong>{reference}</strong> · {charge.description}
                        {charge.payerEmail && ` · ${charge.payerEmail}`}
                      </span>
                      <span class={`badge badge-${charge.status}`}>{CHARGE_STATE_LABELS[charge.status]}</span>
                      <span class="muted">Pagado {formatMoney(charge.paidAmount)}</span>
                      <button type="button" class="button-secondary" aria-label={`Elegir el cobro ${reference}`} onClick={() => setChosen(charge)}>
                        Elegir
                      </button>
                    </li>
                  );
                })}
              </ul>
            )
          }
        </Loaded>
      )}
    </div>
  );
}
