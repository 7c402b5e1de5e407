// Where the integration's commissions are paid: the account invited by email accepts the invitation,
// and until it does the invitation can be resent (or another email invited instead).
import { useState } from "preact/hooks";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { PAYOUT_LINK_STATUS_LABELS } from "../status-labels.ts";

export function PayoutLink() {
  const link = useResource(() => adminApi.payoutLink.getPayoutLink(), []);
  const [email, setEmail] = useState("");
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const invite = useAction((to: string) => adminApi.payoutLink.invitePayoutLink({ payoutLinkInvite: { email: to } }));
  const resend = useAction(() => adminApi.payoutLink.resendPayoutLinkInvite());
  return (
    <>
      <h1>Cuenta de cobro de comisiones</h1>
      <p>La cuenta de Cobro que recibe las comisiones de tu integración. La persona invitada acepta desde el email que le enviamos.</p>
      {notice && <Notice>{notice}</Notice>}
      <Loaded resource={link}>
        {(view) => (
          <>
            <dl class="facts">
              <dt>Estado</dt>
              <dd data-testid="payout-link-status">{PAYOUT_LINK_STATUS_LABELS[view.status]}</dd>
              {view.invitedEmail && (
                <>
                  <dt>Email invitado</dt>
                  <dd>{view.invitedEmail}</dd>
                </>
              )}
              {view.recipient && (
                <>
                  <dt>Titular</dt>
                  <dd>{view.recipient.legalName ?? view.recipient.fantasyName ?? view.recipient.email ?? "—"}</dd>
                  {view.recipient.taxId && (
                    <>
                      <dt>CUIT/CUIL</dt>
                      <dd class="mono">{view.recipient.taxId}</dd>
                    </>
                  )}
                </>
              )}
            </dl>
            {view.status === "pending" && (
              <>
                <ErrorAlert error={resend.error} />
                <button
                  type="button"
                  class="button-secondary"
                  disabled={resend.busy}
                  onClick={async () => {
                    if (await resend.run()) setNotice(`Reenviamos la invitación a ${view.invitedEmail ?? "la cuenta invitada"}.`);
                  }}
                >
                  Reenviar la invitación
                </button>
              </>
            )}
            {view.status !== "accepted" && (
              <form
                noValidate
                class="panel"
                onSubmit={async (event) => {
                  event.preventDefault();
                  const to = email.trim();
                  if (await invite.run(to)) {
                    setNotice(`Invitamos a ${to}: la cuenta queda lista cuando acepte.`);
                    setEmail("");
                    link.reload();
                  }
                }}
              >
                <h2>{view.status === "pending" ? "Invitar otro email" : "Invitar"}</h2>
                <ErrorAlert error={invite.error} extra={invite.error ? unplacedFieldErrors(invite.error, ["email"]) : []} />
                <Field
                  label="Email de la cuenta que cobra"
                  required
                  type="email"
                  name="email"
                  autocomplete="email"
                  hint={view.status === "pending" ? "La invitación anterior deja de funcionar." : undefined}
                  value={email}
                  onValue={setEmail}
                  error={invite.error?.fieldErrors.email}
                />
                <button type="submit" disabled={invite.busy}>
                  Enviar la invitación
                </button>
              </form>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
