// A labelled form field with its hint and its error under it (tied with aria-describedby). A required
// field is marked after its label, and a required field left blank says so, whatever rule the API named
// for the empty text (a pattern, a minimum length).
import type { InputHTMLAttributes, PartialInputHTMLAttributes, PartialSelectHTMLAttributes, SelectHTMLAttributes } from "preact";
import { useId } from "preact/hooks";

type InputProps = Omit<PartialInputHTMLAttributes<HTMLInputElement>, "id" | "value" | "onInput" | "label" | "role" | "type">;

export interface FieldProps extends InputProps {
  label: string;
  type?: "text" | "email" | "password" | "tel" | "url" | "date" | "time";
  value: string;
  onValue: (value: string) => void;
  error?: string;
  hint?: string;
}

/**
 * The mark after a required field's label, outside the <label> so that the field's name stays its label;
 * hidden from assistive technology, which hears the input's own `required` ("obligatorio") instead.
 */
export function RequiredMark({ required }: { required: boolean | undefined }) {
  return required ? (
    <span class="required-mark" aria-hidden="true" title="Obligatorio">
      *
    </span>
  ) : null;
}

/** What a field's error says: "complete it" for a required field left blank, else the API's rule in words. */
function shownError(error: string | undefined, required: unknown, value: string): string | undefined {
  return error && required && value.trim() === "" ? "Completá este campo." : error;
}

export function Field({ label, type = "text", value, onValue, error: apiError, hint, ...input }: FieldProps) {
  const id = useId();
  const error = shownError(apiError, input.required, value);
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
      <div class="field-label">
        <label for={id}>{label}</label>
        <RequiredMark required={Boolean(input.required)} />
      </div>
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
      <div class="field-label">
        <label for={id}>{label}</label>
        <RequiredMark required={Boolean(select.required)} />
      </div>
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
