// A labelled form field with its hint and its error under it (tied with aria-describedby).
import type { InputHTMLAttributes, PartialInputHTMLAttributes, PartialSelectHTMLAttributes, SelectHTMLAttributes } from "preact";
import { useId } from "preact/hooks";

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onInput" | "label" | "role" | "type">;

export interface FieldProps extends InputProps {
  label: string;
  type?: "text" | "email" | "password" | "tel" | "url" | "date";
  value: string;
  onValue: (value: string) => void;
  error?: string;
  hint?: string;
}

export function Field({ label, type = "text", value, onValue, error, hint, ...input }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  // Preact types <input> per `type` (a discriminated union); the props here are checked by FieldProps.
  const attributes = {
    ...input,
    type,
    id,
    value,
    onInput: (event: Event) => onValue((event.currentTarget as HTMLInputElement).value),
    "aria-invalid": error ? "true" : undefined,
    "aria-describedby": describedBy,
  } as InputHTMLAttributes<HTMLInputElement>;
  return (
    <div class={error ? "field field-invalid" : "field"}>
      <label for={id}>{label}</label>
      <input {...attributes} />
      {hint && (
        <p class="field-hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

export interface SelectFieldProps extends Omit<PartialSelectHTMLAttributes<HTMLSelectElement>, "id" | "value" | "onChange" | "label" | "role"> {
  label: string;
  value: string;
  onValue: (value: string) => void;
  options: Array<{ value: string; label: string }>;
  error?: string;
}

export function SelectField({ label, value, onValue, options, error, ...select }: SelectFieldProps) {
  const id = useId();
  const errorId = error ? `${id}-error` : undefined;
  const attributes = {
    ...select,
    id,
    value,
    onChange: (event: Event) => onValue((event.currentTarget as HTMLSelectElement).value),
    "aria-invalid": error ? "true" : undefined,
    "aria-describedby": errorId,
  } as SelectHTMLAttributes<HTMLSelectElement>;
  return (
    <div class={error ? "field field-invalid" : "field"}>
      <label for={id}>{label}</label>
      <select {...attributes}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}
