// The platform's queue of chat-cap requests: filtered by status (the pending ones first), each approved
// with the figure asked for or another one, or rejected with a reason mailed to the admin who asked.
import { useState } from "preact/hooks";
import type { MessageCapRequestStatus, PlatformMessageCapRequest } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { unplacedFieldErrors } from "../../api-error.ts";
import { Field, SelectField } from "../../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../../components/feedback.tsx";
import { Pager } from "../../components/pager.tsx";
import { useAction, useResource } from "../../components/use-resource.ts";
import { formatCount, formatDateTime, plural } from "../../format.ts";
import { parseWholeNumber } from "../../input-parsing.ts";
import { MESSAGE_CAP_STATUS_LABELS } from "../../status-labels.ts";

const PAGE_SIZE = 20;
const STATUS_OPTIONS = [...Object.entries(MESSAGE_CAP_STATUS_LABELS).map(([value, label]) => ({ value, label })), { value: "", label: "Todos" }];

export function MessageCapReview() {
  const [status, setStatus] = useState<MessageCapRequestStatus | "">("pending");
  const [page, setPage] = useState(1);
  const queue = useResource(
    () => adminApi.platformMessageCapRequests.listMessageCapRequests({ ...(status ? { status } : {}), limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [status, page],
  );
  return (
    <>
      <h1>Pedidos de mensajes</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <SelectField
          label="Estado"
          name="status"
          value={status}
          options={STATUS_OPTIONS}
          onValue={(value) => {
            setPage(1);
            setStatus(value as MessageCapRequestStatus | "");
          }}
        />
      </form>
      <Loaded resource={queue}>
        {(result) =>
          result.items.length === 0 ? (
            <Empty>{status === "pending" ? "No hay pedidos para revisar." : "No hay pedidos."}</Empty>
          ) : (
            <>
              {result.items.map((request) => (
                <CapRequest key={request.id} request={request} />
              ))}
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["pedido", "pedidos"]} onPage={setPage} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

/** A decided request stays in view with its outcome (until the filter changes or the page reloads). */
function CapRequest({ request }: { request: PlatformMessageCapRequest }) {
  const [approvedPerDay, setApprovedPerDay] = useState("");
  const [figureProblem, setFigureProblem] = useState<string | undefined>(undefined);
  const [reason, setReason] = useState("");
  const [decided, setDecided] = useState<PlatformMessageCapRequest | undefined>(undefined);
  const approve = useAction((figure: number | undefined) =>
    adminApi.platformMessageCapRequests.approveMessageCapRequest({
      id: request.id,
      messageCapRequestApproval: figure === undefined ? {} : { approvedPerDay: figure },
    }),
  );
  const reject = useAction(() =>
    adminApi.platformMessageCapRequests.rejectMessageCapRequest({ id: request.id, messageCapRequestRejection: { reason: reason.trim() } }),
  );
  const done = (result: PlatformMessageCapRequest | undefined) => {
    if (result) setDecided(result);
  };
  const shown = decided ?? request;
  const headingId = `cap-request-${request.id}`;
  const busy = approve.busy || reject.busy;
  return (
    <section class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{request.integrationClientName}</h2>
      <dl class="facts">
        <dt>Pide</dt>
        <dd>{plural(request.requestedPerDay, "mensaje", "mensajes")} por día</dd>
        <dt>Tope entonces</dt>
        <dd>{formatCount(request.currentPerDay)}</dd>
        <dt>Motivo</dt>
        <dd>{request.reason}</dd>
        <dt>Pedido</dt>
        <dd>
          {formatDateTime(request.createdAt)}
          {request.requestedBy ? ` por ${request.requestedBy}` : ""}
        </dd>
        <dt>Estado</dt>
        <dd>
          {MESSAGE_CAP_STATUS_LABELS[shown.status]}
          {shown.approvedPerDay !== null ? `: ${formatCount(shown.approvedPerDay)} por día` : ""}
          {shown.rejectionReason ? `: ${shown.rejectionReason}` : ""}
          {shown.decidedBy ? ` (${shown.decidedBy})` : ""}
        </dd>
      </dl>
      {decided && <Notice>Pedido {MESSAGE_CAP_STATUS_LABELS[decided.status].toLowerCase()}.</Notice>}
      {!decided && request.status === "pending" && (
        <>
          <form
            noValidate
            onSubmit={async (event) => {
              event.preventDefault();
              const figure = approvedPerDay.trim() === "" ? undefined : parseWholeNumber(approvedPerDay);
              const invalid = approvedPerDay.trim() !== "" && figure === undefined;
              setFigureProblem(invalid ? "Ingresá una cantidad de mensajes por día, o dejalo vacío." : undefined);
              if (!invalid) done(await approve.run(figure));
            }}
          >
            <ErrorAlert error={approve.error} extra={approve.error ? unplacedFieldErrors(approve.error, ["approvedPerDay"]) : []} />
            <Field
              label="Tope a otorgar"
              required
              name="approvedPerDay"
              inputMode="numeric"
              autocomplete="off"
              hint={`Vacío: lo pedido (${formatCount(request.requestedPerDay)}).`}
              value={approvedPerDay}
              onValue={setApprovedPerDay}
              error={figureProblem ?? approve.error?.fieldErrors.approvedPerDay}
            />
            <button type="submit" disabled={busy}>
              Aprobar
            </button>
          </form>
          <form
            noValidate
            class="reject-form"
            onSubmit={async (event) => {
              event.preventDefault();
              done(await reject.run());
            }}
          >
            <ErrorAlert error={reject.error} extra={reject.error ? unplacedFieldErrors(reject.error, ["reason"]) : []} />
            <Field
              label="Motivo del rechazo"
              required
              name="reason"
              autocomplete="off"
              maxLength={500}
              value={reason}
              onValue={setReason}
              error={reject.error?.fieldErrors.reason}
            />
            <button type="submit" class="button-danger" disabled={busy}>
              Rechazar
            </button>
          </form>
        </>
      )}
    </section>
  );
}
