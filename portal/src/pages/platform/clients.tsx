// The platform's integration clients: the list with pages and each one's setup progress, and creating one
// with every field the API takes (its client secret is shown once).
import { useState } from "preact/hooks";
import type { IntegrationClientCreated } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { Empty, Loaded } from "../../components/feedback.tsx";
import { type ClientField, type ClientFormData, clientCreateOf, IntegrationClientForm } from "../../components/integration-client-form.tsx";
import { Pager } from "../../components/pager.tsx";
import { SecretOnce } from "../../components/secret-once.tsx";
import { useAction, useResource } from "../../components/use-resource.ts";
import { formatDate } from "../../format.ts";
import { Link } from "../../router.ts";
import { INTEGRATION_TYPE_LABELS } from "../../status-labels.ts";
import { TableScroll } from "../../components/table-scroll.tsx";

const PAGE_SIZE = 20;

export function ClientList() {
  const [page, setPage] = useState(1);
  const clients = useResource(() => adminApi.platformClients.listIntegrationClients({ limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }), [page]);
  return (
    <>
      <h1>Integraciones</h1>
      <CreateClient onCreated={clients.reload} />
      <Loaded resource={clients}>
        {(result) => {
          return result.items.length === 0 ? (
            <Empty>Todavía no hay integraciones.</Empty>
          ) : (
            <>
              <TableScroll label="integraciones">
                <table>
                  <caption class="visually-hidden">Integraciones</caption>
                  <thead>
                    <tr>
                      <th scope="col">Nombre</th>
                      <th scope="col">Empresa</th>
                      <th scope="col">Tipo</th>
                      <th scope="col">Estado</th>
                      <th scope="col">Bienvenida enviada</th>
                      <th scope="col">Un administrador ingresó</th>
                      <th scope="col">Webhook configurado</th>
                      <th scope="col">Alta</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((client) => (
                      <tr key={client.integrationClientId}>
                        <td>
                          <Link href={`/clients/${encodeURIComponent(client.integrationClientId)}`}>{client.name}</Link>
                        </td>
                        <td>{client.companyName}</td>
                        <td>{INTEGRATION_TYPE_LABELS[client.type]}</td>
                        <td>{client.suspended ? <span class="badge badge-failed">Suspendida</span> : <span class="badge badge-delivered">Activa</span>}</td>
                        <td data-column="firstAdminEmailSent">{yesNo(client.firstAdminEmailSent)}</td>
                        <td data-column="firstAdminLoggedIn">{yesNo(client.firstAdminLoggedIn)}</td>
                        <td data-column="webhookConfigured">{yesNo(client.webhookConfigured)}</td>
                        <td>{formatDate(client.createDate)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["integración", "integraciones"]} onPage={setPage} />
            </>
          );
        }}
      </Loaded>
    </>
  );
}

const yesNo = (value: boolean) => (value ? "Sí" : "No");

/** What the platform sets when it creates an integration client; the API's `type` starts as `api_direct`. */
const CREATE_FIELDS = [
  "description",
  "logoUrl",
  "scopes",
  "redirectUrls",
  "logoutUrls",
  "firstAdminEmail",
  "firstAdminName",
] as const satisfies readonly ClientField[];

function CreateClient({ onCreated }: { onCreated: () => void }) {
  const [created, setCreated] = useState<IntegrationClientCreated | undefined>(undefined);
  const create = useAction((data: ClientFormData) => adminApi.platformClients.createIntegrationClient({ integrationClientCreate: clientCreateOf(data) }));
  if (created) {
    return (
      <section class="panel">
        <p>
          Se creó <strong>{created.name}</strong> con el ID de cliente (clientId) <code class="mono">{created.providerClientId}</code>.
        </p>
        <SecretOnce
          title="Secreto de la integración"
          secrets={[{ label: "Secreto del cliente", name: "clientSecret", value: created.providerClientSecret }]}
          onDone={() => setCreated(undefined)}
        />
      </section>
    );
  }
  return (
    <details class="panel">
      <summary>Crear una integración</summary>
      <IntegrationClientForm
        mode="create"
        fields={CREATE_FIELDS}
        action={create}
        submitLabel="Crear la integración"
        onDone={(result) => {
          setCreated(result);
          onCreated();
        }}
      />
    </details>
  );
}
