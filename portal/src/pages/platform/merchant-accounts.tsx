// The platform's merchant accounts: find them (by email, name, CUIT or provider id, in a status), and add
// or update one by hand the way the provider's systems do (the same call, keyed by the provider's id).
import { useState } from "preact/hooks";
import type { MerchantAccountProvisioned, MerchantAccountStatus } from "@cobro/sdk/admin";
import { adminApi } from "../../api.ts";
import { unplacedFieldErrors } from "../../api-error.ts";
import { Field, SelectField } from "../../components/field.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../../components/feedback.tsx";
import { Pager } from "../../components/pager.tsx";
import { TableScroll } from "../../components/table-scroll.tsx";
import { useAction, useResource } from "../../components/use-resource.ts";
import { formatDate } from "../../format.ts";
import { MERCHANT_ACCOUNT_STATUS_LABELS } from "../../status-labels.ts";

const PAGE_SIZE = 20;
const STATUS_BADGES: Record<MerchantAccountStatus, string> = { active: "badge-delivered", suspended: "badge-pending", closed: "badge-failed" };
const STATUS_OPTIONS = (Object.keys(MERCHANT_ACCOUNT_STATUS_LABELS) as MerchantAccountStatus[]).map((value) => ({
  value,
  label: MERCHANT_ACCOUNT_STATUS_LABELS[value],
}));

export function MerchantAccounts() {
  const [page, setPage] = useState(1);
  const [typed, setTyped] = useState("");
  const [filter, setFilter] = useState<{ search?: string; status?: MerchantAccountStatus }>({});
  const [status, setStatus] = useState("");
  const accounts = useResource(
    () => adminApi.platformMerchantAccounts.listMerchantAccounts({ ...filter, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    [page, filter],
  );
  return (
    <>
      <h1>Cuentas de comercio</h1>
      <ProvisionAccount onSaved={accounts.reload} />
      <form
        class="panel"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(1);
          setFilter({ ...(typed.trim() ? { search: typed.trim() } : {}), ...(status ? { status: status as MerchantAccountStatus } : {}) });
        }}
      >
        <Field
          label="Buscar"
          name="search"
          autocomplete="off"
          hint="Parte del email o del nombre, el CUIT o el id del proveedor."
          value={typed}
          onValue={setTyped}
        />
        <SelectField label="Estado" name="status" value={status} onValue={setStatus} options={[{ value: "", label: "Todos" }, ...STATUS_OPTIONS]} />
        <button type="submit">Buscar</button>
      </form>
      <Loaded resource={accounts}>
        {(result) =>
          result.items.length === 0 ? (
            <Empty>{filter.search || filter.status ? "Ninguna cuenta coincide con la búsqueda." : "Todavía no hay cuentas de comercio."}</Empty>
          ) : (
            <>
              <TableScroll label="cuentas de comercio">
                <table>
                  <caption class="visually-hidden">Cuentas de comercio</caption>
                  <thead>
                    <tr>
                      <th scope="col">Nombre de fantasía</th>
                      <th scope="col">Razón social</th>
                      <th scope="col">CUIT</th>
                      <th scope="col">Email</th>
                      <th scope="col">Id del proveedor</th>
                      <th scope="col">Estado</th>
                      <th scope="col">Alta</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.items.map((account) => (
                      <tr key={account.merchantAccountId}>
                        <td>{account.tradeName}</td>
                        <td>{account.legalName}</td>
                        <td class="mono">{account.cuit}</td>
                        <td>
                          {account.email}
                          {account.passwordSet ? null : <span class="muted"> (sin contraseña todavía)</span>}
                        </td>
                        <td class="mono">{account.providerMerchantId ?? "—"}</td>
                        <td>
                          <span class={`badge ${STATUS_BADGES[account.status]}`}>{MERCHANT_ACCOUNT_STATUS_LABELS[account.status]}</span>
                        </td>
                        <td>{formatDate(account.createdAt)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableScroll>
              <Pager page={page} pageSize={PAGE_SIZE} total={result.total} items={["cuenta", "cuentas"]} onPage={setPage} />
            </>
          )
        }
      </Loaded>
    </>
  );
}

const FIELDS = ["providerMerchantId", "email", "legalName", "cuit", "tradeName", "status"] as const;
type ProvisionField = (typeof FIELDS)[number];

const RESULT_TEXT: Record<MerchantAccountProvisioned["result"], string> = {
  created: "Se creó la cuenta",
  updated: "Se actualizó la cuenta",
  unchanged: "La cuenta ya estaba así: no cambió nada",
};

function ProvisionAccount({ onSaved }: { onSaved: () => void }) {
  const empty: Record<ProvisionField, string> = { providerMerchantId: "", email: "", legalName: "", cuit: "", tradeName: "", status: "active" };
  const [values, setValues] = useState(empty);
  const [saved, setSaved] = useState<MerchantAccountProvisioned | undefined>(undefined);
  const save = useAction(() =>
    adminApi.platformMerchantAccounts.provisionMerchantAccount({
      providerMerchantId: values.providerMerchantId.trim(),
      merchantAccountProvision: {
        email: values.email.trim(),
        legalName: values.legalName.trim(),
        cuit: values.cuit.replace(/[\s-]/g, ""),
        tradeName: values.tradeName.trim(),
        status: values.status as MerchantAccountStatus,
      },
    }),
  );
  const set = (field: ProvisionField) => (value: string) => setValues({ ...values, [field]: value });
  const error = (field: ProvisionField) => save.error?.fieldErrors[field];
  return (
    <details class="panel">
      <summary>Agregar o actualizar una cuenta</summary>
      <p class="muted">
        Con el mismo id del proveedor se actualiza la cuenta que ya existe. Una cuenta nueva y activa recibe por email el enlace para elegir su contraseña.
      </p>
      {saved && (
        <Notice>
          {RESULT_TEXT[saved.result]} {saved.merchantAccount.tradeName} ({saved.merchantAccount.email}).
        </Notice>
      )}
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          const result = await save.run();
          if (result) {
            setSaved(result);
            setValues(empty);
            onSaved();
          }
        }}
      >
        <ErrorAlert error={save.error} extra={save.error ? unplacedFieldErrors(save.error, FIELDS) : []} />
        <Field
          label="Id del proveedor"
          required
          name="providerMerchantId"
          autocomplete="off"
          value={values.providerMerchantId}
          onValue={set("providerMerchantId")}
          error={error("providerMerchantId")}
        />
        <Field label="Email" type="email" required name="email" autocomplete="off" value={values.email} onValue={set("email")} error={error("email")} />
        <Field
          label="Razón social"
          required
          name="legalName"
          autocomplete="off"
          value={values.legalName}
          onValue={set("legalName")}
          error={error("legalName")}
        />
        <Field
          label="CUIT"
          required
          name="cuit"
          inputMode="numeric"
          autocomplete="off"
          hint="11 dígitos."
          value={values.cuit}
          onValue={set("cuit")}
          error={error("cuit")}
        />
        <Field
          label="Nombre de fantasía"
          required
          name="tradeName"
          autocomplete="off"
          value={values.tradeName}
          onValue={set("tradeName")}
          error={error("tradeName")}
        />
        <SelectField label="Estado" required name="status" value={values.status} onValue={set("status")} options={STATUS_OPTIONS} error={error("status")} />
        <button type="submit" disabled={save.busy}>
          Guardar
        </button>
      </form>
    </details>
  );
}
