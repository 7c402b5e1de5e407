// A list typed one item per line (URLs, origins) in a textarea. The API names a wrong item by its index
// (`logoutUrls[2]`): the error under the field says which line it is, with what was typed there.
import { useId } from "preact/hooks";
import type { ApiError } from "../api-error.ts";
import { RequiredMark } from "./field.tsx";

/**
 * The items of a one-per-line text: each line trimmed, blank lines and repeats left out (the lists are
 * sets), so that the API's index of an item is its place here.
 */
export function linesOf(text: string): string[] {
  return [
    ...new Set(
      text
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== ""),
    ),
  ];
}

/** Whether the API's field is the list `name` itself or one of its items (`name[2]`). */
export function isListField(field: string, name: string): boolean {
  return field === name || new RegExp(`^${name}\\[\\d+\\]$`).test(field);
}

/** The API's complaints about the list `name` and its items, an item's named by its line. */
export function lineProblems(error: ApiError | undefined, name: string, lines: string[]): string[] {
  if (!error) return [];
  return Object.entries(error.fieldErrors)
    .filter(([field]) => isListField(field, name))
    .map(([field, message]) => {
      const index = /\[(\d+)\]$/.exec(field)?.[1];
      return index === undefined ? message : `Línea ${Number(index) + 1} (${lines[Number(index)] ?? ""}): ${message}`;
    });
}

/** The field errors of a form that neither its fields nor its lists show, for the general box. */
export function errorsOutside(error: ApiError, fields: readonly string[], lists: readonly string[]): string[] {
  const outside = Object.entries(error.fieldErrors).filter(([field]) => !fields.includes(field) && !lists.some((name) => isListField(field, name)));
  return [...new Set(outside.map(([, message]) => message))];
}

export interface LinesFieldProps {
  label: string;
  /** The API's name of the list, for the form's data. */
  name: string;
  value: string;
  onValue: (value: string) => void;
  hint: string;
  /** What `lineProblems` found. */
  problems: string[];
  required?: boolean;
  rows?: number;
  /** The textarea's id (its hint and error take it as their prefix); default a generated one. */
  id?: string;
}

export function LinesField({ label, name, value, onValue, hint, problems, required, rows = 3, id: fixedId }: LinesFieldProps) {
  const generatedId = useId();
  const id = fixedId ?? generatedId;
  const invalid = problems.length > 0;
  return (
    <div class={invalid ? "field field-invalid" : "field"}>
      <div class="field-label">
        <label for={id}>{label}</label>
        <RequiredMark required={required} />
      </div>
      <textarea
        id={id}
        name={name}
        rows={rows}
        required={required}
        autocomplete="off"
        spellcheck={false}
        value={value}
        aria-invalid={invalid ? "true" : undefined}
        aria-describedby={invalid ? `${id}-hint ${id}-error` : `${id}-hint`}
        onInput={(event) => onValue(event.currentTarget.value)}
      />
      <p class="field-hint" id={`${id}-hint`}>
        {hint}
      </p>
      {invalid && (
        <div class="field-error" id={`${id}-error`}>
          {problems.map((problem) => (
            <p key={problem}>{problem}</p>
          ))}
        </div>
      )}
    </div>
  );
}
