// The platform's integration clients: the list with pages and each one's setup progress, and creating one
// with every field the API takes (its client secret is shown once).
import { useState } from "preact/hooks";
import type { IntegrationClientCreated } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { Field } from "../../components/field.tsx";
import { errorsOutside, LinesField, lineProblems, linesOf } from "../../components/lines-field.tsx";
import { Empty, ErrorAlert, Loaded } from "../../components/feedback.tsx";
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

const CREATE_FIELDS = ["name", "companyName", "contactEmail", "description", "logoUrl", "firstAdminEmail", "firstAdminName"] as const;
const CREATE_LISTS = ["scopes", "redirectUrls", "logoutUrls"] as const;
type CreateField = (typeof CREATE_FIELDS)[number] | (typeof CREATE_LISTS)[number];

function CreateClient({ onCreated }: { onCreated: () => void }) {
  const empty: Record<CreateField, string> = {
    name: "",
    companyName: "",
    contactEmail: "",
    description: "",
    logoUrl: "",
    scopes: "",
    redirectUrls: "",
    logoutUrls: "",
    firstAdminEmail: "",
    firstAdminName: "",
  };
  const [values, setValues] = useState<Record<CreateField, string>>(empty);
  const [created, setCreated] = useState<IntegrationClientCreated | undefined>(undefined);
  const lists = { scopes: linesOf(values.scopes), redirectUrls: linesOf(values.redirectUrls), logoutUrls: linesOf(values.logoutUrls) };
  // Optional fields left empty are left out rather than sent empty (no scopes: the API's default ones).
  const optional = (field: CreateField) => (values[field].trim() ? { [field]: values[field].trim() } : {});
  const optionalList = (field: (typeof CREATE_LISTS)[number]) => (lists[field].length > 0 ? { [field]: new Set(lists[field]) } : {});
  const create = useAction(() =>
    adminApi.platformClients.createIntegrationClient({
      integrationClientCreate: {
        name: values.name.trim(),
        companyName: values.companyName.trim(),
        contactEmail: values.contactEmail.trim(),
        ...optional("description"),
        ...optional("logoUrl"),
        ...optionalList("scopes"),
        ...optionalList("redirectUrls"),
        ...optionalList("logoutUrls"),
        ...optional("firstAdminEmail"),
        ...optional("firstAdminName"),
      },
    }),
  );
  const set = (field: CreateField) => (value: string) => setValues({ ...values, [field]: value });
  if (created) {
    return (
      <section class="panel">
        <p>
          Se creó <strong>{created.name}</strong> con el clientId <code class="mono">{created.providerClientId}</code>.
        </p>
        <SecretOnce
          title="Secreto de la integración"
          secrets={[{ label: "clientSecret", value: created.providerClientSecret }]}
          onDone={() => setCreated(undefined)}
        />
      </section>
    );
  }
  return (
    <details class="panel">
      <summary>Crear una integración</summary>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          const result = await create.run();
          if (result) {
            setCreated(result);
            setValues(empty);
            onCreated();
          }
        }}
      >
        <ErrorAlert error={create.error} extra={create.error ? errorsOutside(create.error, CREATE_FIELDS, CREATE_LISTS) : []} />
        <Field label="Nombre" required name="name" autocomplete="off" value={values.name} onValue={set("name")} error={create.error?.fieldErrors.name} />
        <Field
          label="Razón social"
          required
          name="companyName"
          autocomplete="organization"
          value={values.companyName}
          onValue={set("companyName")}
          error={create.error?.fieldErrors.companyName}
        />
        <Field
          label="Email de contacto"
          required
          type="email"
          name="contactEmail"
          autocomplete="email"
          value={values.contactEmail}
          onValue={set("contactEmail")}
          error={create.error?.fieldErrors.contactEmail}
        />
        <Field
          label="Descripción"
          name="description"
          autocomplete="off"
          hint="Opcional, hasta 500 caracteres."
          value={values.description}
          onValue={set("description")}
          error={create.error?.fieldErrors.description}
        />
        <Field
          label="URL del logo"
          type="url"
          name="logoUrl"
          autocomplete="off"
          hint="Opcional: una imagen HTTPS ya publicada (o la integración sube la suya después)."
          value={values.logoUrl}
          onValue={set("logoUrl")}
          error={create.error?.fieldErrors.logoUrl}
        />
        <LinesField
          label="Scopes de OAuth"
          name="scopes"
          value={values.scopes}
          onValue={set("scopes")}
          hint="Uno por línea. Vacío: openid, email y profile."
          problems={lineProblems(create.error, "scopes", lists.scopes)}
        />
        <LinesField
          label="URLs de redirección (redirect_uri)"
          name="redirectUrls"
          value={values.redirectUrls}
          onValue={set("redirectUrls")}
          hint="Una por línea: las direcciones a las que vuelve la autorización de un comercio (https; en el Sandbox también http://localhost)."
          problems={lineProblems(create.error, "redirectUrls", lists.redirectUrls)}
        />
        <LinesField
          label="URLs de cierre de sesión"
          name="logoutUrls"
          value={values.logoutUrls}
          onValue={set("logoutUrls")}
          hint="Una por línea: adónde puede volver el navegador después de cerrar la sesión."
          problems={lineProblems(create.error, "logoutUrls", lists.logoutUrls)}
        />
        <Field
          label="Email del primer administrador"
          type="email"
          name="firstAdminEmail"
          autocomplete="off"
          hint="Opcional: recibe un email de bienvenida con una contraseña temporal."
          value={values.firstAdminEmail}
          onValue={set("firstAdminEmail")}
          error={create.error?.fieldErrors.firstAdminEmail}
        />
        <Field
          label="Nombre del primer administrador"
          name="firstAdminName"
          autocomplete="off"
          value={values.firstAdminName}
          onValue={set("firstAdminName")}
          error={create.error?.fieldErrors.firstAdminName}
        />
        <button type="submit" disabled={create.busy}>
          Crear la integración
        </button>
      </form>
    </details>
  );
}
