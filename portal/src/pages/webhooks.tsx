// Webhooks: the integration's URLs (webhook URLs and redirect URIs) with their verification, the one
// that receives the events marked, each deletable after a confirmation; the events it is subscribed to, the signing secret (revealed on request, rotated after a confirmation,
// with a note asking to rotate a legacy one)
// and the Sandbox's test webhook with its outcome (the Sandbox only: Production has no test webhook).
import { useState } from "preact/hooks";
import type {
  ClientUrl,
  ClientUrlType,
  ClientUrlVerification,
  TestWebhookResult,
  UnmatchedReason,
  WebhookEventCatalogItem,
  WebhookSigningSecret,
} from "@cobro/sdk/admin";
import { httpStatusOf } from "@cobro/sdk/errors";
import { adminApi } from "../api.ts";
import { environment, sandboxRedirectUri } from "../environment.ts";
import { placedUnderField, unplacedFieldErrors, type ApiError } from "../api-error.ts";
import { Field, SelectField } from "../components/field.tsx";
import { Confirmation, Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { TEST_WEBHOOK_STATUS_LABELS, UNMATCHED_REASON_LABELS } from "../status-labels.ts";

export function Webhooks() {
  return (
    <>
      <h1>Webhooks</h1>
      <ClientUrlsSection />
      <SubscriptionsSection />
      <SigningSecretSection />
      {environment === "sandbox" && <TestWebhookSection />}
    </>
  );
}

const URL_TYPE_LABELS: Record<ClientUrlType, string> = { webhook: "URL de webhook", redirect_uri: "URI de redirección" };

/** What the reachability test of a webhook URL found, in words. */
export function verificationText(verification: ClientUrlVerification): string {
  if (verification.status === "ok") return `Respondió correctamente (HTTP ${verification.httpStatus ?? "2xx"}).`;
  if (verification.status === "non_2xx") return `Respondió HTTP ${verification.httpStatus ?? "?"}, no un 2xx: revisá que acepte POST y responda 2xx.`;
  return "No se pudo conectar con la URL: revisá que exista y sea accesible desde internet.";
}

function VerificationNote({ verification }: { verification: ClientUrlVerification }) {
  return (
    <p class={verification.status === "ok" ? "verification verification-ok" : "verification verification-failed"} data-verification={verification.status}>
      {verificationText(verification)}
    </p>
  );
}

const URL_FIELDS = ["url", "urlType", "validationToken"] as const;

/** A refused address is about the URL field, whether the contract or the address check refused it: said there, once. */
function refusedUrl(error: ApiError | undefined): ApiError | undefined {
  return placedUnderField(error, "WebhookUrlBlockedError", "url");
}

function ClientUrlsSection() {
  const listed = useResource(() => adminApi.clientUrls.listClientUrls(), []);
  return (
    <section class="panel" aria-labelledby="urls-title">
      <h2 id="urls-title">URLs de la integración</h2>
      <p>
        La URL de webhook activa recibe los eventos: es la verificada más recientemente (respondió 2xx a la prueba). Una URL nueva que no responde queda
        pendiente y los eventos siguen yendo a la activa hasta que una prueba le salga bien. Las demás URLs de webhook no reciben nada (eliminalas). Las URIs de
        redirección (<span class="mono">redirect_uri</span>) son las direcciones a las que vuelve la autorización de un comercio.
      </p>
      {sandboxRedirectUri && (
        <p data-testid="sandbox-redirect-uri">
          La integración que crea el Sandbox ya acepta la URI de redirección de prueba <span class="mono">{sandboxRedirectUri}</span> (no figura en esta lista).
        </p>
      )}
      <Loaded resource={listed} label="Cargando las URLs">
        {(list) => <ClientUrlsEditor registered={list.items} />}
      </Loaded>
    </section>
  );
}

/**
 * The registered URLs, each editable, testable and deletable, and the form that registers another. After
 * a change the list is read again: which webhook URL receives the events is the service's to say (a
 * delete hands them to another). The verifications seen on this page are kept: the list has none.
 */
function ClientUrlsEditor({ registered }: { registered: ClientUrl[] }) {
  const [urls, setUrls] = useState<ClientUrl[]>(registered);
  const [deletedNotice, setDeletedNotice] = useState<string | undefined>(undefined);
  const reread = useAction(() => adminApi.clientUrls.listClientUrls());
  const changed = async (change: (list: ClientUrl[]) => ClientUrl[]) => {
    setUrls(change);
    const listed = await reread.run();
    if (!listed) return;
    setUrls((list) => {
      const seen = new Map(list.map((item) => [item.clientUrlId, item.verification]));
      return listed.items.map((item) => {
        const verification = seen.get(item.clientUrlId);
        return verification ? { ...item, verification } : item;
      });
    });
  };
  const [url, setUrl] = useState("");
  const [urlType, setUrlType] = useState<ClientUrlType>("webhook");
  const [validationToken, setValidationToken] = useState("");
  const creation = useAction(() =>
    adminApi.clientUrls.createClientUrl({
      clientUrlCreate: { url: url.trim(), urlType, ...(validationToken.trim() ? { validationToken: validationToken.trim() } : {}) },
    }),
  );
  const create = { ...creation, error: refusedUrl(creation.error) };
  const replace = (fresh: ClientUrl) => {
    setDeletedNotice(undefined);
    void changed((list) => list.map((item) => (item.clientUrlId === fresh.clientUrlId ? fresh : item)));
  };
  const removed = (gone: ClientUrl) => {
    setDeletedNotice(`Se eliminó la URL ${gone.data.url}.`);
    void changed((list) => list.filter((item) => item.clientUrlId !== gone.clientUrlId));
  };
  return (
    <>
      {deletedNotice && <Notice>{deletedNotice}</Notice>}
      <ErrorAlert error={reread.error} />
      {urls.length === 0 ? (
        <Empty>Todavía no hay URLs registradas. Registrá una: una URL de webhook se prueba al instante.</Empty>
      ) : (
        <ul class="list">
          {urls.map((item) => (
            <ClientUrlItem
              key={item.clientUrlId}
              clientUrl={item}
              otherWebhooks={urls.some((other) => other.clientUrlId !== item.clientUrlId && other.data.urlType === "webhook")}
              onChanged={replace}
              onDeleted={removed}
            />
          ))}
        </ul>
      )}
      <h3>Registrar una URL</h3>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          const created = await creation.run();
          if (created) {
            setDeletedNotice(undefined);
            void changed((list) => [...list, created]);
            setUrl("");
            setValidationToken("");
          }
        }}
      >
        <ErrorAlert error={create.error} extra={create.error ? unplacedFieldErrors(create.error, URL_FIELDS) : []} />
        <SelectField
          label="Tipo"
          required
          name="urlType"
          value={urlType}
          onValue={(value) => setUrlType(value as ClientUrlType)}
          options={Object.entries(URL_TYPE_LABELS).map(([value, label]) => ({ value, label }))}
          error={create.error?.fieldErrors.urlType}
        />
        <Field
          label="URL"
          required
          type="url"
          name="url"
          autocomplete="off"
          hint="https://…"
          value={url}
          onValue={setUrl}
          error={create.error?.fieldErrors.url}
        />
        <Field
          label="Token de validación (opcional)"
          name="validationToken"
          autocomplete="off"
          hint="Se envía en el header validation-token de cada evento."
          value={validationToken}
          onValue={setValidationToken}
          error={create.error?.fieldErrors.validationToken}
        />
        <button type="submit" disabled={create.busy}>
          Registrar la URL
        </button>
      </form>
    </>
  );
}

/** What deleting this URL does, said before it is done. */
function deletionConsequence(clientUrl: ClientUrl, otherWebhooks: boolean): string {
  if (clientUrl.data.urlType === "redirect_uri") return "La autorización de los comercios deja de aceptarla como URI de redirección.";
  if (!clientUrl.receivesEvents) return "No recibe eventos: los eventos siguen yendo a la URL activa.";
  return otherWebhooks
    ? "Es la URL activa: los eventos pasan a la URL de webhook verificada más recientemente entre las que quedan."
    : "Es tu única URL de webhook: los eventos de los comercios sin sucursal dejan de enviarse hasta que registres otra.";
}

function ClientUrlItem({
  clientUrl,
  otherWebhooks,
  onChanged,
  onDeleted,
}: {
  clientUrl: ClientUrl;
  otherWebhooks: boolean;
  onChanged: (changed: ClientUrl) => void;
  onDeleted: (deleted: ClientUrl) => void;
}) {
  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [url, setUrl] = useState(clientUrl.data.url);
  const [validationToken, setValidationToken] = useState("");
  const [tested, setTested] = useState<ClientUrlVerification | undefined>(undefined);
  const updating = useAction(() =>
    adminApi.clientUrls.updateClientUrl({
      clientUrlId: clientUrl.clientUrlId,
      clientUrlUpdate: { url: url.trim(), ...(validationToken.trim() ? { validationToken: validationToken.trim() } : {}) },
    }),
  );
  const update = { ...updating, error: refusedUrl(updating.error) };
  const test = useAction(() => adminApi.clientUrls.testClientUrl({ clientUrlId: clientUrl.clientUrlId }));
  // 204: `true` says the call went through (a failure is `undefined`, with its error).
  const remove = useAction(async () => {
    await adminApi.clientUrls.deleteClientUrl({ clientUrlId: clientUrl.clientUrlId });
    return true;
  });
  const verification = tested ?? clientUrl.verification;
  // Registered or changed here, its test failed, and the events stay with the active URL: pending until a test passes.
  const pending =
    clientUrl.data.urlType === "webhook" && !clientUrl.receivesEvents && clientUrl.verification !== undefined && clientUrl.verification.status !== "ok";
  return (
    <li class="url-item" aria-label={clientUrl.data.url}>
      <div class="url-line">
        <span class="badge">{URL_TYPE_LABELS[clientUrl.data.urlType]}</span>
        <span class="mono">{clientUrl.data.url}</span>
        {clientUrl.data.hasValidationToken && <span class="muted">Con token de validación</span>}
        {clientUrl.receivesEvents && (
          <span class="badge badge-receives-events" data-testid="receives-events">
            Activa: recibe los eventos
          </span>
        )}
        {pending && (
          <span class="badge" data-testid="pending">
            Pendiente: recibe los eventos cuando una prueba responda 2xx
          </span>
        )}
      </div>
      {verification && <VerificationNote verification={verification} />}
      <ErrorAlert error={test.error} />
      <div>
        {clientUrl.data.urlType === "webhook" && (
          <button
            type="button"
            class="button-secondary"
            disabled={test.busy}
            onClick={async () => {
              const result = (await test.run())?.verification;
              setTested(result);
              // A pending URL that passes takes the events: the list says which URL is active now.
              if (result?.status === "ok" && !clientUrl.receivesEvents) onChanged({ ...clientUrl, verification: result });
            }}
          >
            Probar
          </button>
        )}
        <button type="button" class="button-secondary" aria-expanded={editing} onClick={() => setEditing(!editing)}>
          Editar
        </button>
        {!confirmingDelete && (
          <button type="button" class="button-secondary" onClick={() => setConfirmingDelete(true)}>
            Eliminar
          </button>
        )}
      </div>
      {confirmingDelete && (
        <Confirmation
          label="Confirmar la eliminación"
          confirmLabel="Sí, eliminar"
          busy={remove.busy}
          error={remove.error}
          onConfirm={async () => (await remove.run()) && onDeleted(clientUrl)}
          onCancel={() => setConfirmingDelete(false)}
        >
          ¿Eliminar la URL <span class="mono">{clientUrl.data.url}</span>? {deletionConsequence(clientUrl, otherWebhooks)}
        </Confirmation>
      )}
      {editing && (
        <form
          noValidate
          onSubmit={async (event) => {
            event.preventDefault();
            const changed = await updating.run();
            if (changed) {
              setTested(undefined);
              setEditing(false);
              setValidationToken("");
              onChanged(changed);
            }
          }}
        >
          <ErrorAlert error={update.error} extra={update.error ? unplacedFieldErrors(update.error, URL_FIELDS) : []} />
          <Field label="URL nueva" required type="url" name="url" autocomplete="off" value={url} onValue={setUrl} error={update.error?.fieldErrors.url} />
          <Field
            label="Token de validación nuevo (opcional)"
            name="validationToken"
            autocomplete="off"
            value={validationToken}
            onValue={setValidationToken}
            error={update.error?.fieldErrors.validationToken}
          />
          <button type="submit" disabled={update.busy}>
            Guardar la URL
          </button>
        </form>
      )}
    </li>
  );
}

function SubscriptionsSection() {
  const current = useResource(() => Promise.all([adminApi.webhooks.listWebhookEvents(), adminApi.webhooks.getWebhookSubscriptions()]), []);
  return (
    <section class="panel" aria-labelledby="subscriptions-title">
      <h2 id="subscriptions-title">Eventos suscriptos</h2>
      <p>Cobro envía a tu webhook solo los eventos marcados.</p>
      <Loaded resource={current}>{([catalog, subscription]) => <SubscriptionsForm catalog={catalog} enabled={subscription.enabledEvents} />}</Loaded>
    </section>
  );
}

function SubscriptionsForm({ catalog, enabled }: { catalog: WebhookEventCatalogItem[]; enabled: string[] }) {
  const [chosen, setChosen] = useState(() => new Set(enabled));
  const [saved, setSaved] = useState(false);
  const save = useAction(() => adminApi.webhooks.replaceWebhookSubscriptions({ webhookSubscriptionUpdate: { enabledEvents: chosen } }));
  const toggle = (event: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(event);
    else next.delete(event);
    setChosen(next);
    setSaved(false);
  };
  return (
    <form
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        const stored = await save.run();
        if (stored) {
          setChosen(new Set(stored.enabledEvents));
          setSaved(true);
        }
      }}
    >
      <ErrorAlert error={save.error} extra={save.error ? Object.values(save.error.fieldErrors) : []} />
      <fieldset class="checks">
        <legend class="visually-hidden">Eventos</legend>
        {catalog.map((item) => (
          <label key={item.event} class="check">
            <input
              type="checkbox"
              name="enabledEvents"
              value={item.event}
              checked={chosen.has(item.event)}
              onChange={(event) => toggle(item.event, event.currentTarget.checked)}
            />
            <span>
              <strong>{item.label}</strong> <span class="mono">{item.event}</span>
              <br />
              <span class="muted">{item.description}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {saved && <Notice>Suscripciones guardadas.</Notice>}
      <button type="submit" disabled={save.busy}>
        Guardar las suscripciones
      </button>
    </form>
  );
}

function SigningSecretSection() {
  const [secret, setSecret] = useState<WebhookSigningSecret | undefined>(undefined);
  const [missing, setMissing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState(false);
  // 404 means the integration has no signing secret yet: the page offers to create one.
  const reveal = useAction(() =>
    adminApi.webhooks.getWebhookSigningSecret().catch((error: unknown) => (httpStatusOf(error) === 404 ? null : Promise.reject(error))),
  );
  const rotate = useAction(() => adminApi.webhooks.rotateWebhookSigningSecret());
  const doRotate = async () => {
    const answer = await rotate.run();
    setConfirming(false);
    if (answer) {
      setSecret(answer);
      setMissing(false);
      setRotated(true);
    }
  };
  return (
    <section class="panel" aria-labelledby="signing-secret-title">
      <h2 id="signing-secret-title">Secreto de firma</h2>
      <p>
        Con este secreto verificás la firma de cada evento que recibís: X-Service-Signature con el SDK, o webhook-signature con una librería de Standard
        Webhooks.
      </p>
      <ErrorAlert error={reveal.error ?? rotate.error} />
      {rotated && <Notice>Secreto rotado: desde ahora los eventos se firman con el secreto nuevo.</Notice>}
      {secret !== undefined ? (
        <div class="secret">
          <p class="secret-label">Secreto de firma</p>
          <code class="secret-value" data-secret="webhookSigningSecret">
            {secret.webhookSigningSecret}
          </code>
          {secret.scheme === "legacy" && (
            // A secret issued before Standard Webhooks keying: it keeps working, but rotating is recommended.
            <div class="alert alert-warn" role="note" data-testid="legacy-secret">
              Este secreto tiene el formato anterior: las librerías de Standard Webhooks no lo aceptan con su constructor por defecto (webhook-signature está
              firmada con el secreto como clave cruda). Te recomendamos rotarlo: el nuevo sirve igual para X-Service-Signature y para webhook-signature.
            </div>
          )}
          <button
            type="button"
            class="button-secondary"
            onClick={() => {
              setSecret(undefined);
              setRotated(false);
            }}
          >
            Ocultar
          </button>
        </div>
      ) : missing ? (
        <Empty>Tu integración todavía no tiene secreto de firma.</Empty>
      ) : (
        <button
          type="button"
          class="button-secondary"
          disabled={reveal.busy}
          onClick={async () => {
            const answer = await reveal.run();
            if (answer === null) setMissing(true);
            else if (answer) setSecret(answer);
          }}
        >
          Mostrar el secreto
        </button>
      )}
      {confirming ? (
        <Confirmation
          label="Confirmar la rotación"
          confirmLabel="Sí, rotar el secreto"
          busy={rotate.busy}
          onConfirm={() => void doRotate()}
          onCancel={() => setConfirming(false)}
        >
          El secreto actual deja de firmar en el acto, también en los reintentos pendientes. ¿Rotarlo?
        </Confirmation>
      ) : (
        <button type="button" onClick={() => setConfirming(true)}>
          {missing ? "Crear el secreto" : "Rotar el secreto"}
        </button>
      )}
    </section>
  );
}

function TestWebhookSection() {
  const [reason, setReason] = useState<UnmatchedReason>("no_pending");
  const [tenantKey, setTenantKey] = useState("");
  const [result, setResult] = useState<TestWebhookResult | undefined>(undefined);
  const send = useAction(() =>
    adminApi.webhooks.sendTestWebhook({
      testWebhookRequest: { event: "payment.unmatched", reason, ...(tenantKey.trim() ? { tenantKey: tenantKey.trim() } : {}) },
    }),
  );
  return (
    <section class="panel" aria-labelledby="test-webhook-title">
      <h2 id="test-webhook-title">Webhook de prueba</h2>
      <p>Solo en el Sandbox: envía un evento payment.unmatched firmado (con test: true) por las mismas reglas que los eventos reales.</p>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setResult(await send.run());
        }}
      >
        <ErrorAlert error={send.error} extra={send.error ? unplacedFieldErrors(send.error, ["reason", "tenantKey"]) : []} />
        <SelectField
          label="Motivo del pago sin imputar"
          required
          name="reason"
          value={reason}
          onValue={(value) => setReason(value as UnmatchedReason)}
          options={Object.entries(UNMATCHED_REASON_LABELS).map(([value, label]) => ({ value, label: `${value}: ${label}` }))}
          error={send.error?.fieldErrors.reason}
        />
        <Field
          label="Sucursal (tenantKey, opcional)"
          name="tenantKey"
          autocomplete="off"
          hint="Para probar el webhook de una sucursal."
          value={tenantKey}
          onValue={setTenantKey}
          error={send.error?.fieldErrors.tenantKey}
        />
        <button type="submit" disabled={send.busy}>
          Enviar el webhook de prueba
        </button>
      </form>
      {result && (
        <div class={result.delivered ? "alert alert-ok" : "alert alert-error"} role="status" data-testid="test-webhook-result">
          <p>
            <span class={`badge badge-${result.delivered ? "delivered" : "failed"}`} data-status={result.status}>
              {TEST_WEBHOOK_STATUS_LABELS[result.status]}
            </span>
          </p>
          <p>{result.message}</p>
          {result.targetUrl && (
            <p>
              Destino: <span class="mono">{result.targetUrl}</span>
              {result.responseStatus !== undefined && ` (respondió HTTP ${result.responseStatus})`}
            </p>
          )}
        </div>
      )}
    </section>
  );
}
