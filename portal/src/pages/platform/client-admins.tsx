// The admins of an integration client: who they are, adding one (a welcome email with a temporary
// password), and sending the welcome again (a new temporary password; the previous one stops working).
import { useState } from "preact/hooks";
import type { PlatformIntegrationClientDetail } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { unplacedFieldErrors } from "../../api-error.ts";
import { Field } from "../../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../../components/feedback.tsx";
import { useAction, useResource } from "../../components/use-resource.ts";
import { formatDate } from "../../format.ts";
import { CLIENT_ADMIN_STATUS_LABELS } from "../../status-labels.ts";

const ADMIN_FIELDS = ["email", "name"] as const;

export function ClientAdmins({ client }: { client: PlatformIntegrationClientDetail }) {
  const admins = useResource(() => adminApi.platformClients.listClientAdmins({ id: client.integrationClientId }), [client.integrationClientId]);
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const create = useAction(() =>
    adminApi.platformClients.createClientAdmin({
      id: client.integrationClientId,
      clientAdminCreate: { email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}) },
    }),
  );
  const resend = useAction((adminId: string) => adminApi.platformClients.resendClientAdminWelcome({ id: client.integrationClientId, adminId }));
  return (
    <section class="panel" aria-labelledby="admins-title">
      <h2 id="admins-title">Administradores</h2>
      {notice && <Notice>{notice}</Notice>}
      <ErrorAlert error={resend.error} />
      <Loaded resource={admins}>
        {(list) =>
          list.items.length === 0 ? (
            <Empty>La integración todavía no tiene administradores.</Empty>
          ) : (
            <ul class="list">
              {list.items.map((admin) => (
                <li key={admin.integrationClientAdminId}>
                  <span>{admin.email}</span>
                  <span class="muted">Invitado el {formatDate(admin.invitedAt)}</span>
                  <span class={`badge badge-${admin.status === "active" ? "delivered" : "pending"}`}>{CLIENT_ADMIN_STATUS_LABELS[admin.status]}</span>
                  <button
                    type="button"
                    class="button-secondary"
                    disabled={resend.busy}
                    aria-label={`Reenviar la bienvenida a ${admin.email}`}
                    onClick={async () => {
                      setNotice(undefined);
                      if (await resend.run(admin.integrationClientAdminId))
                        setNotice(`Enviamos a ${admin.email} una bienvenida con una contraseña temporal nueva.`);
                    }}
                  >
                    Reenviar la bienvenida
                  </button>
                </li>
              ))}
            </ul>
          )
        }
      </Loaded>
      <p class="muted">Reenviar la bienvenida genera una contraseña temporal nueva: la anterior deja de funcionar y se cierran sus sesiones.</p>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setNotice(undefined);
          const created = await create.run();
          if (created) {
            setNotice(`Invitamos a ${created.email}: recibe un email con una contraseña temporal.`);
            setEmail("");
            setName("");
            admins.reload();
          }
        }}
      >
        <h3>Agregar un administrador</h3>
        <ErrorAlert error={create.error} extra={create.error ? unplacedFieldErrors(create.error, ADMIN_FIELDS) : []} />
        <Field
          label="Email del administrador"
          required
          type="email"
          name="email"
          autocomplete="off"
          value={email}
          onValue={setEmail}
          error={create.error?.fieldErrors.email}
        />
        <Field
          label="Nombre del administrador"
          name="name"
          autocomplete="off"
          hint="Opcional."
          value={name}
          onValue={setName}
          error={create.error?.fieldErrors.name}
        />
        <button type="submit" disabled={create.busy}>
          Agregar el administrador
        </button>
      </form>
    </section>
  );
}
