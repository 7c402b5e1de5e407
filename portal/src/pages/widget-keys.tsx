// The checkout widget's keys: the publishable key, the secret key (its last four digits; the whole key
// is shown once, when it is rotated) and the origins allowed to read a checkout from a browser.
import { useState } from "preact/hooks";
import type { ApiKeysView, RotatedSecretKey } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { errorsOutside, LinesField, lineProblems, linesOf } from "../components/lines-field.tsx";
import { SecretOnce } from "../components/secret-once.tsx";
import { useAction, useResource } from "../components/use-resource.ts";

export function WidgetKeys() {
  const keys = useResource(() => adminApi.apiKeys.getApiKeys(), []);
  return (
    <>
      <h1>Claves del widget</h1>
      <p>El widget de cobro usa la clave publicable en el navegador; tu servidor crea los cobros con la clave secreta.</p>
      <Loaded resource={keys}>
        {(view) => (
          <>
            <KeysSection view={view} onChanged={keys.reload} />
            <AllowedOriginsSection origins={view.allowedOrigins} onChanged={keys.reload} />
          </>
        )}
      </Loaded>
    </>
  );
}

function KeysSection({ view, onChanged }: { view: ApiKeysView; onChanged: () => void }) {
  const [rotated, setRotated] = useState<RotatedSecretKey | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const create = useAction(() => adminApi.apiKeys.createApiKeys());
  const rotate = useAction(() => adminApi.apiKeys.rotateApiSecretKey());
  return (
    <section class="panel" aria-labelledby="keys-title">
      <h2 id="keys-title">Claves</h2>
      <ErrorAlert error={create.error ?? rotate.error} />
      {!view.hasKeys ? (
        <>
          <Empty>Tu integración todavía no tiene claves del widget.</Empty>
          <button type="button" disabled={create.busy} onClick={async () => (await create.run()) && onChanged()}>
            Crear la clave publicable
          </button>
        </>
      ) : (
        <>
          <dl class="facts">
            <dt>Clave publicable</dt>
            <dd class="mono" data-testid="publishable-key">
              {view.publishableKey}
            </dd>
            <dt>Clave secreta</dt>
            <dd data-testid="secret-key">{view.hasSecretKey ? <span class="mono">…{view.secretKeyLast4}</span> : "Todavía no creada"}</dd>
          </dl>
          {rotated ? (
            <SecretOnce title="Clave secreta nueva" secrets={[{ label: "secretKey", value: rotated.secretKey }]} onDone={() => setRotated(undefined)} />
          ) : confirming ? (
            <div class="confirm" role="group" aria-label="Confirmar la clave secreta nueva">
              <p>La clave secreta actual deja de funcionar en el acto. ¿Crear una nueva?</p>
              <button
                type="button"
                class="button-danger"
                disabled={rotate.busy}
                onClick={async () => {
                  const answer = await rotate.run();
                  setConfirming(false);
                  if (answer) {
                    setRotated(answer);
                    onChanged();
                  }
                }}
              >
                Sí, crear la clave nueva
              </button>
              <button type="button" class="button-secondary" onClick={() => setConfirming(false)}>
                Cancelar
              </button>
            </div>
          ) : (
            <button
              type="button"
              onClick={() => {
                if (view.hasSecretKey) {
                  setConfirming(true);
                  return;
                }
                void rotate.run().then((answer) => {
                  if (!answer) return;
                  setRotated(answer);
                  onChanged();
                });
              }}
            >
              {view.hasSecretKey ? "Rotar la clave secreta" : "Crear la clave secreta"}
            </button>
          )}
        </>
      )}
    </section>
  );
}

function AllowedOriginsSection({ origins, onChanged }: { origins: string[]; onChanged: () => void }) {
  const [text, setText] = useState(origins.join("\n"));
  const [saved, setSaved] = useState(false);
  const lines = linesOf(text);
  const save = useAction(() => adminApi.apiKeys.replaceAllowedOrigins({ allowedOriginsUpdate: { allowedOrigins: new Set(lines) } }));
  const problems = lineProblems(save.error, "allowedOrigins", lines);
  return (
    <section class="panel" aria-labelledby="origins-title">
      <h2 id="origins-title">Orígenes permitidos</h2>
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setSaved(false);
          if (await save.run()) {
            setSaved(true);
            onChanged();
          }
        }}
      >
        <ErrorAlert error={save.error} extra={save.error ? errorsOutside(save.error, [], ["allowedOrigins"]) : []} />
        <LinesField
          id="allowed-origins"
          label="Orígenes"
          name="allowedOrigins"
          rows={4}
          value={text}
          onValue={setText}
          hint="Uno por línea, como los envía el navegador: https://tienda.example.com (sin barra final ni puerto por defecto). Sin ninguno, cualquier página puede leer el cobro."
          problems={problems}
        />
        {saved && <Notice>Orígenes guardados.</Notice>}
        <button type="submit" disabled={save.busy}>
          Guardar los orígenes
        </button>
      </form>
    </section>
  );
}
