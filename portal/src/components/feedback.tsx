// What a page says while it waits, when it has nothing to show, when something went wrong, and before a
// step that cannot be undone.
import type { ComponentChildren } from "preact";
import type { ApiError } from "../api-error.ts";
import type { Resource } from "./use-resource.ts";

export function Loading({ label = "Cargando…" }: { label?: string }) {
  return (
    <p class="loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/** The error of a whole request (a field's own error goes under the field). */
export function ErrorAlert({ error, extra = [] }: { error: ApiError | undefined; extra?: string[] }) {
  if (!error) return null;
  return (
    <div class="alert alert-error" role="alert" data-code={error.code}>
      <p>{error.message}</p>
      {extra.length > 0 && (
        <ul>
          {extra.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A success or a piece of news, announced to screen readers. */
export function Notice({ children }: { children: ComponentChildren }) {
  return (
    <div class="alert alert-ok" role="status">
      {children}
    </div>
  );
}

/** Renders a resource: its loading state, its error with a retry button, or `children(data)`. */
export function Loaded<T>({ resource, label, children }: { resource: Resource<T>; label?: string; children: (data: T) => ComponentChildren }) {
  if (resource.status === "loading") return <Loading label={label} />;
  if (resource.status === "failed") {
    return (
      <div>
        <ErrorAlert error={resource.error} />
        <button type="button" class="button-secondary" onClick={resource.reload}>
          Reintentar
        </button>
      </div>
    );
  }
  return <>{children(resource.data)}</>;
}

/** The question asked before a step that cannot be undone: the step's button (off while it runs), a way back, and the step's error. */
export function Confirmation({
  label,
  children,
  confirmLabel,
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  label: string;
  children: ComponentChildren;
  confirmLabel: string;
  busy: boolean;
  error?: ApiError;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: a question and two buttons, outside any form: a <fieldset> would bring a form's border and min-width to undo
    <div class="confirm" role="group" aria-label={label}>
      <p>{children}</p>
      <ErrorAlert error={error} />
      <button type="button" class="button-danger" disabled={busy} onClick={onConfirm}>
        {confirmLabel}
      </button>
      <button type="button" class="button-secondary" onClick={onCancel}>
        Cancelar
      </button>
    </div>
  );
}
