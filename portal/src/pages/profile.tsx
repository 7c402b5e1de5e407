// The integration's profile: its data (name, company, contact, description, type), the logo shown on
// the authorization screen, the OAuth client secret's rotation (the new secret shown once), and its admins.
import { useState } from "preact/hooks";
import type { IntegrationClientDetail, RotatedClientSecret } from "@cobro/sdk/admin";
import { adminApi } from "../api.ts";
import { unplacedFieldErrors, type ApiError } from "../api-error.ts";
import { Field } from "../components/field.tsx";
import { type ClientField, type ClientFormData, clientUpdateOf, IntegrationClientForm } from "../components/integration-client-form.tsx";
import { Empty, ErrorAlert, Loaded, Notice } from "../components/feedback.tsx";
import { SecretOnce } from "../components/secret-once.tsx";
import { useAction, useResource } from "../components/use-resource.ts";
import { formatDate, formatDateTime } from "../format.ts";
import { integrationChanged } from "../integration-type.ts";
import { CLIENT_ADMIN_STATUS_LABELS } from "../status-labels.ts";
import { TableScroll } from "../components/table-scroll.tsx";

export function Profile() {
  const integration = useResource(() => adminApi.myIntegration.getMyIntegration(), []);
  return (
    <>
      <h1>Perfil de la integración</h1>
      <Loaded resource={integration}>
        {(detail) => (
          <>
            <ProfileSection detail={detail} onSaved={integration.reload} />
            <LogoSection logoUrl={detail.logoUrl} onUploaded={integration.reload} />
            <ClientSecretSection providerClientId={detail.providerClientId} />
            <AdminsSection />
          </>
        )}
      </Loaded>
    </>
  );
}

/** What the integration's admin edits of its own client (the logo has its own section, with an upload). */
const PROFILE_FIELDS = ["description", "type"] as const satisfies readonly ClientField[];

function ProfileSection({ detail, onSaved }: { detail: IntegrationClientDetail; onSaved: () => void }) {
  const save = useAction((data: ClientFormData) =>
    adminApi.myIntegration.updateMyIntegration({ integrationClientUpdate: clientUpdateOf(data, PROFILE_FIELDS) }),
  );
  return (
    <section class="panel" aria-labelledby="profile-title">
      <h2 id="profile-title">Datos</h2>
      <dl class="facts">
        <dt>
          ID de cliente <span class="muted mono">(clientId)</span>
        </dt>
        <dd class="mono">{detail.providerClientId}</dd>
        <dt>Creada</dt>
        <dd>{formatDateTime(detail.createDate)}</dd>
      </dl>
      <IntegrationClientForm
        mode="edit"
        fields={PROFILE_FIELDS}
        client={detail}
        action={save}
        submitLabel="Guardar los datos"
        onDone={(updated) => {
          if (updated.type !== detail.type) integrationChanged();
          onSaved();
        }}
      />
    </section>
  );
}

const LOGO_TYPES = ["image/png", "image/jpeg", "image/webp"];
const MAX_LOGO_BYTES = 5 * 1024 * 1024;

/** What went wrong with a logo, in words (the API's status says which case it is). */
function logoProblem(error: ApiError): string {
  if (error.status === 413) return "La imagen pesa más de 5 MB: elegí una más liviana.";
  if (error.status === 415) return "El archivo no es una imagen PNG, JPEG o WEBP (un SVG tampoco se acepta).";
  if (error.status === 400) return "No se pudo leer la imagen, o tiene más de 4096 × 4096 píxeles.";
  return error.message;
}

/**
 * A logo stored by Cobro lives on the Auth API host; the Admin host forwards it, so the page shows it
 * from its own origin (its CSP allows no other). Any other address is only linked.
 */
function sameOriginLogo(logoUrl: string): string | undefined {
  const { pathname } = new URL(logoUrl);
  return /^\/integration\/oauth2\/logos\/[^/]+$/.test(pathname) ? `/portal/auth-api${pathname}` : undefined;
}

function readAsDataUrl(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error("the file could not be read"));
    reader.readAsDataURL(file);
  });
}

function LogoSection({ logoUrl, onUploaded }: { logoUrl: string | null; onUploaded: () => void }) {
  const [file, setFile] = useState<File | undefined>(undefined);
  const [preview, setPreview] = useState<string | undefined>(undefined);
  const [localProblem, setLocalProblem] = useState<string | undefined>(undefined);
  const [uploaded, setUploaded] = useState(false);
  // The SDK declares image/png; the file's own type goes instead (the API judges the bytes anyway).
  const upload = useAction((chosen: File) =>
    adminApi.myIntegration.uploadLogo({ body: chosen }, async ({ init }) => ({
      headers: { ...(init.headers as Record<string, string>), "Content-Type": chosen.type || "image/png" },
    })),
  );
  const problem = localProblem ?? (upload.error ? logoProblem(upload.error) : undefined);
  return (
    <section class="panel" aria-labelledby="logo-title">
      <h2 id="logo-title">Logo</h2>
      <p>Se muestra en la pantalla en la que un comercio autoriza a tu integración. PNG, JPEG o WEBP, hasta 5 MB; Cobro lo lleva a 512 px.</p>
      {preview ? (
        <img class="logo-preview" src={preview} alt="El logo elegido" />
      ) : logoUrl ? (
        <>
          {sameOriginLogo(logoUrl) && <img class="logo-preview" src={sameOriginLogo(logoUrl)} alt="El logo actual" />}
          <p>
            Dirección pública:{" "}
            <a href={logoUrl} target="_blank" rel="noreferrer" class="mono" data-testid="logo-url">
              {logoUrl}
            </a>
          </p>
        </>
      ) : (
        <p class="muted">Tu integración todavía no tiene logo.</p>
      )}
      <form
        noValidate
        onSubmit={async (event) => {
          event.preventDefault();
          setUploaded(false);
          if (!file) return setLocalProblem("Elegí una imagen.");
          if (file.size > MAX_LOGO_BYTES) return setLocalProblem("La imagen pesa más de 5 MB: elegí una más liviana.");
          if (await upload.run(file)) {
            setUploaded(true);
            onUploaded();
          }
        }}
      >
        {upload.error && upload.error.status !== 400 && upload.error.status !== 413 && upload.error.status !== 415 && <ErrorAlert error={upload.error} />}
        <div class={problem ? "field field-invalid" : "field"}>
          <label for="logo-file">Imagen</label>
          {/* The browser's own file button speaks the browser's language: the input is hidden, and a
              Spanish button (a second label of it) with the chosen file's name stands in for it. */}
          <input
            id="logo-file"
            class="visually-hidden file-input"
            type="file"
            name="logo"
            accept={LOGO_TYPES.join(",")}
            aria-invalid={problem ? "true" : undefined}
            aria-describedby={problem ? "logo-file-error" : undefined}
            onChange={async (event) => {
              const chosen = event.currentTarget.files?.[0];
              setFile(chosen);
              setLocalProblem(undefined);
              upload.clearError();
              setUploaded(false);
              setPreview(chosen && LOGO_TYPES.includes(chosen.type) && chosen.size <= MAX_LOGO_BYTES ? await readAsDataUrl(chosen) : undefined);
            }}
          />
          <div class="file-picker" aria-hidden="true">
            <label for="logo-file" class="file-button">
              Elegir una imagen
            </label>
            <span class="muted" data-testid="logo-file-name">
              {file ? file.name : "Ningún archivo elegido"}
            </span>
          </div>
          {problem && (
            <p class="field-error" id="logo-file-error">
              {problem}
            </p>
          )}
        </div>
        {uploaded && <Notice>Logo subido.</Notice>}
        <button type="submit" disabled={upload.busy}>
          Subir el logo
        </button>
      </form>
    </section>
  );
}

function ClientSecretSection({ providerClientId }: { providerClientId: string }) {
  const [grace, setGrace] = useState("");
  const [graceProblem, setGraceProblem] = useState<string | undefined>(undefined);
  const [confirming, setConfirming] = useState(false);
  const [rotated, setRotated] = useState<RotatedClientSecret | undefined>(undefined);
  const rotate = useAction((graceSeconds: number | undefined) =>
    adminApi.myIntegration.rotateClientSecret(graceSeconds === undefined ? {} : { clientSecretRotation: { graceSeconds } }),
  );
  const graceSeconds = (): number | undefined | "invalid" => {
    const trimmed = grace.trim();
    if (trimmed === "") return undefined;
    const minutes = Number(trimmed);
    if (!/^\d+$/.test(trimmed) || minutes > 1440) return "invalid";
    return minutes * 60;
  };
  return (
    <section class="panel" aria-labelledby="client-secret-title">
      <h2 id="client-secret-title">Secreto del cliente</h2>
      <p>
        El secreto (<span class="mono">clientSecret</span>) con el que tu servidor (ID de cliente <span class="mono">{providerClientId}</span>) pide tokens. Al
        rotarlo, el anterior deja de funcionar en el acto o al terminar el período de gracia.
      </p>
      {rotated ? (
        <>
          {rotated.previousSecretExpiresAt && <Notice>El secreto anterior funciona hasta el {formatDateTime(rotated.previousSecretExpiresAt)}.</Notice>}
          <SecretOnce
            title="Secreto del cliente nuevo"
            secrets={[{ label: "Secreto del cliente", name: "clientSecret", value: rotated.clientSecret }]}
            onDone={() => setRotated(undefined)}
          />
        </>
      ) : (
        <form
          noValidate
          onSubmit={async (event) => {
            event.preventDefault();
            const seconds = graceSeconds();
            setGraceProblem(seconds === "invalid" ? "Ingresá minutos enteros, de 0 a 1440 (un día)." : undefined);
            if (seconds === "invalid") return;
            if (!confirming) return setConfirming(true);
            const answer = await rotate.run(seconds);
            setConfirming(false);
            if (answer) {
              setRotated(answer);
              setGrace("");
            }
          }}
        >
          <ErrorAlert error={rotate.error} extra={rotate.error ? unplacedFieldErrors(rotate.error, ["graceSeconds"]) : []} />
          <Field
            label="Período de gracia (minutos, opcional)"
            name="graceMinutes"
            inputMode="numeric"
            autocomplete="off"
            hint="Durante ese tiempo funcionan los dos secretos. Vacío: el anterior deja de funcionar ya."
            value={grace}
            onValue={(value) => {
              setGrace(value);
              setConfirming(false);
            }}
            error={graceProblem ?? rotate.error?.fieldErrors.graceSeconds}
          />
          {confirming && (
            <div class="confirm" role="group" aria-label="Confirmar la rotación">
              <p>
                {graceSeconds() ? "El secreto actual dejará de funcionar al terminar el período de gracia." : "El secreto actual deja de funcionar en el acto."}{" "}
                ¿Rotarlo?
              </p>
              <button type="button" class="button-secondary" onClick={() => setConfirming(false)}>
                Cancelar
              </button>
            </div>
          )}
          <button type="submit" class={confirming ? "button-danger" : undefined} disabled={rotate.busy}>
            {confirming ? "Sí, rotar el secreto del cliente" : "Rotar el secreto del cliente"}
          </button>
        </form>
      )}
    </section>
  );
}

/** Who administers the integration (a platform admin adds admins and resends their welcome). */
function AdminsSection() {
  const admins = useResource(() => adminApi.myIntegration.listMyIntegrationAdmins(), []);
  return (
    <section class="panel" aria-labelledby="admins-title">
      <h2 id="admins-title">Administradores</h2>
      <Loaded resource={admins} label="Cargando los administradores">
        {(list) =>
          list.items.length === 0 ? (
            <Empty>No hay administradores.</Empty>
          ) : (
            <TableScroll label="administradores">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Estado</th>
                    <th scope="col">Invitado</th>
                  </tr>
                </thead>
                <tbody>
                  {list.items.map((admin) => (
                    <tr key={admin.integrationClientAdminId}>
                      <td>{admin.email}</td>
                      <td>{CLIENT_ADMIN_STATUS_LABELS[admin.status]}</td>
                      <td>{formatDate(admin.invitedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </Loaded>
      <p class="muted">Para sumar un administrador, pedíselo al equipo de la plataforma.</p>
    </section>
  );
}
