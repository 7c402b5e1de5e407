// How the CLI writes: one JSON document with --json; otherwise tables and lines, coloured only on a
// terminal (and never with NO_COLOR). Errors are one line on stderr with the API's `code`.
import { errorBodyOf, errorCodeOf, httpStatusOf, isNoAnswerError, isResponseError } from "../errors.js";

/** A failure to report as `error <code>: <message>`; `status` is the API's HTTP status, when it answered. */
export class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** The CliError of anything a command threw: the API's error body, no answer, or a bug. */
export async function toCliError(error: unknown): Promise<CliError> {
  if (error instanceof CliError) return error;
  if (isResponseError(error)) {
    const status = httpStatusOf(error);
    const body = (await errorBodyOf(error)) as { message?: unknown; error_description?: unknown } | undefined;
    const message = typeof body?.message === "string" ? body.message : typeof body?.error_description === "string" ? body.error_description : `HTTP ${status}`;
    return new CliError(errorCodeOf(body) ?? `HTTP_${status}`, message, status);
  }
  if (isNoAnswerError(error)) {
    const cause = (error as { cause?: { message?: string; cause?: { code?: string } } }).cause;
    return new CliError("no_answer", `no answer from the API (${cause?.cause?.code ?? cause?.message ?? (error as Error).message})`);
  }
  return new CliError("internal", error instanceof Error ? error.message : String(error));
}

const CODES = { bold: 1, dim: 2, red: 31, green: 32, yellow: 33, cyan: 36 } as const;
export type Colour = keyof typeof CODES;

export class Output {
  readonly colour: boolean;
  constructor(
    readonly json: boolean,
    private readonly stdout: NodeJS.WriteStream = process.stdout,
    private readonly stderr: NodeJS.WriteStream = process.stderr,
  ) {
    this.colour = !json && stdout.isTTY === true && !process.env.NO_COLOR;
  }

  paint(text: string, colour: Colour): string {
    return this.colour ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
  }

  line(text = ""): void {
    this.stdout.write(`${text}\n`);
  }

  /** Progress and notes: stderr, so that stdout stays the command's result. */
  note(text: string): void {
    this.stderr.write(`${text}\n`);
  }

  document(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** One line of a stream of JSON documents (`listen --json`). */
  jsonLine(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value)}\n`);
  }

  /** Aligned columns under a header; `rows` are already text. */
  table(columns: string[], rows: string[][]): void {
    if (rows.length === 0) {
      this.line(this.paint("(none)", "dim"));
      return;
    }
    const widths = columns.map((column, i) => Math.max(column.length, ...rows.map((row) => (row[i] ?? "").length)));
    const format = (cells: string[]) =>
      cells
        .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
        .join("  ")
        .trimEnd();
    this.line(this.paint(format(columns), "bold"));
    for (const row of rows) this.line(format(row));
  }

  /** Label and value pairs, one a line. */
  fields(pairs: Array<[string, unknown]>): void {
    const width = Math.max(...pairs.map(([label]) => label.length));
    for (const [label, value] of pairs) if (value !== undefined && value !== null) this.line(`${this.paint(label.padEnd(width), "bold")}  ${text(value)}`);
  }

  error(error: CliError): void {
    this.stderr.write(`${this.stderr.isTTY && !process.env.NO_COLOR ? "\u001b[31merror\u001b[0m" : "error"} ${error.code}: ${error.message}\n`);
  }
}

export function text(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (Array.isArray(value)) return value.map(text).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}
