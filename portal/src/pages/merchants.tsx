// The integration's merchants (the accounts linked to it): the commission each one pays, a change of
// commission proposed to one (the merchant accepts it by email), withdrawing that proposal, and unlinking.
import { useState } from "preact/hooks";
import type { IntegrationClientUser } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { Pager } from "../components/pager.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatDate, formatDateTime } from "../format.ts";
import { decimalText, parsePercentage } from "../input-parsing.ts";

const PAGE_SIZE = 20;

export function MerchantList() {
  const [page, setPage] = useState(1);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const users = useResource(() => adminApi.merchants.listIntegrationUsers({ limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }), [page]);
  const changed = (message: string) => {
    setNotice(message);
    users.reload();
  };
  return (
    <>
      <h1>Comercios</h1>
      <p>Las cuentas de comercio que autorizaron tu integración y la comisión que pagan sobre cada cobro.</p>
      {notice && <Notice>{notice}</Notice>}
      <Loaded resource={users}>
        {(result) =>
          result.items.length === 0 ? (
            <Empty>Todavía no se vinculó ningún comercio.</Empty>
          ) : (
            <>
              {result.items.map((user) => (
                <Merchant key={user.integrationClientUserId} user={user} onChanged={changed} />
              ))}
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["comercio", "comercios"]} onPage={setPage} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

function Merchant({ user, onChanged }: { user: IntegrationClientUser; onChanged: (message: string) => void }) {
  const headingId = `merchant-${user.integrationClientUserId}`;
  const pending = user.pendingCommissionProposal;
  const withdraw = useAction((invitationId: string) =>
    adminApi.merchants.withdrawCommissionChange({ integrationClientUserId: user.integrationClientUserId, invitationId }),
  );
  return (
    <section class="panel" aria-labelledby={headingId}>
      <h2 id={headingId}>{user.fantasyName ?? user.email}</h2>
      <dl class="facts">
        <dt>Email</dt>
        <dd>{user.email}</dd>
        <dt>Vinculado</dt>
        <dd>{formatDate(user.joinedAt)}</dd>
        {user.tenantName && (
          <>
            <dt>Sucursal</dt>
            <dd>{user.tenantName}</dd>
          </>
        )}
        <dt>Comisión</dt>
        <dd data-testid="current-commission">{decimalText(user.currentCommissionPercentage)} %</dd>
        {pending && (
          <>
            <dt>Propuesta pendiente</dt>
            <dd data-testid="pending-commission">
              {pending.proposedPercentage === undefined ? "Sí" : `${decimalText(pending.proposedPercentage)} %`}
              {pending.expiresAt && <span class="muted"> · vence el {formatDateTime(pending.expiresAt)}</span>}
            </dd>
          </>
        )}
      </dl>
      {pending && (
        <>
          <ErrorAlert error={withdraw.error} />
          <button
            type="button"
            class="button-secondary"
            disabled={withdraw.busy}
            onClick={async () => {
              if (await withdraw.run(pending.invitationId)) onChanged(`Se retiró la propuesta de comisión a ${user.email}.`);
            }}
          >
            Retirar la propuesta
          </button>
        </>
      )}
      <ProposeCommission user={user} onProposed={onChanged} />
      <Unlink user={user} onUnlinked={onChanged} />
    </section>
  );
}

function ProposeCommission({ user, onProposed }: { user: IntegrationClientUser; onProposed: (message: string) => void }) {
  const [percentage, setPercentage] = useState("");
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const propose = useAction((value: number) =>
    adminApi.merchants.proposeCommissionChange({ integrationClientUserId: user.integrationClientUserId, commissionProposalCreate: { percentage: value } }),
  );
  return (
    <form
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        const value = parsePercentage(percentage);
        setProblem(value === undefined || value === null ? "Ingresá un porcentaje entre 0 y 100, por ejemplo 2,5." : undefined);
        if (value === undefined || value === null) return;
        const proposal = await propose.run(value);
        if (proposal) {
          setPercentage("");
          onProposed(`Le enviamos a ${user.email} la propuesta de ${decimalText(proposal.percentage)} %: la comisión cambia cuando la acepte.`);
        }
      }}
    >
      <ErrorAlert error={propose.error} extra={propose.error ? unplacedFieldErrors(propose.error, ["percentage"]) : []} />
      <Field
        label="Nueva comisión (%)"
        required
        name="percentage"
        inputMode="decimal"
        autocomplete="off"
        hint="El comercio recibe un email para aceptarla; reemplaza cualquier propuesta pendiente."
        value={percentage}
        onValue={setPercentage}
        error={problem ?? propose.error?.fieldErrors.percentage}
      />
      <button type="submit" disabled={propose.busy}>
        Proponer la comisión
      </button>
    </form>
  );
}

function Unlink({ user, onUnlinked }: { user: IntegrationClientUser; onUnlinked: (message: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  // The API answers 204: `true` tells success from failure (`undefined`).
  const unlink = useAction(async () => {
    await adminApi.merchants.unlinkMerchant({ integrationClientUserId: user.integrationClientUserId });
    return true;
  });
  if (!confirming) {
    return (
      <button type="button" class="button-danger" onClick={() => setConfirming(true)}>
        Desvincular
      </button>
    );
  }
  return (
    <div class="alert alert-error" role="group" aria-label={`Desvincular ${user.email}`}>
      <p>
        Al desvincular a <strong>{user.email}</strong>, sus tokens dejan de funcionar en la API de Integración hasta que vuelva a autorizar tu integración. Sus
        cobros pendientes no se cancelan (se pueden pagar y el dinero le llega al comercio), pero dejás de verlos y de recibir sus eventos.
      </p>
      <ErrorAlert error={unlink.error} />
      <button
        type="button"
        class="button-danger"
        disabled={unlink.busy}
        onClick={async () => {
          if (await unlink.run()) onUnlinked(`Se desvinculó ${user.email}.`);
        }}
      >
        Sí, desvincular
      </button>{" "}
      <button type="button" class="button-secondary" onClick={() => setConfirming(false)}>
        Cancelar
      </button>
    </div>
  );
}
