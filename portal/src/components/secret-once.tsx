// A secret the API shows only once (a client secret, test tokens): shown in full with a copy button,
// until the admin says it is saved. It is kept in this component's state only, so leaving the page
// forgets it too.
import { useState } from "preact/hooks";

export interface SecretOnceProps {
  title: string;
  /** `label` in Spanish; `name`, the API's name for it, shown small beside it for the integrator's code. */
  secrets: Array<{ label: string; name?: string; value: string }>;
  onDone: () => void;
}

export function SecretOnce({ title, secrets, onDone }: SecretOnceProps) {
  const [copied, setCopied] = useState<string | undefined>(undefined);
  const copy = async (label: string, value: string) => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied(label);
    } catch {
      setCopied(undefined); // no clipboard permission: the text is there to select
    }
  };
  return (
    <section class="secret-once" aria-labelledby="secret-once-title">
      <h2 id="secret-once-title">{title}</h2>
      <p class="secret-warning">Se muestra una sola vez: copialo y guardalo en un lugar seguro ahora. Cobro no lo puede volver a mostrar.</p>
      {secrets.map(({ label, name, value }) => (
        <div class="secret" key={label}>
          <p class="secret-label">
            {label}
            {name && <span class="muted mono"> ({name})</span>}
          </p>
          <code class="secret-value" data-secret={name ?? label}>
            {value}
          </code>
          <button type="button" class="button-secondary" onClick={() => void copy(label, value)}>
            Copiar
          </button>
          {copied === label && <span role="status"> Copiado.</span>}
        </div>
      ))}
      <button type="button" onClick={onDone}>
        Ya lo guardé
      </button>
    </section>
  );
}
