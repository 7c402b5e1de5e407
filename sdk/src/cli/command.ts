// What every command shares: its options (node:util parseArgs), --profile, --json, --help, and the
// API addresses; `run` gets the parsed values, the output and the session of the profile.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { checkProfileName } from "./config.js";
import { CliError, Output } from "./output.js";
import { Session } from "./session.js";

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | string[] | undefined>;

export interface Context {
  values: Values;
  positionals: string[];
  out: Output;
  profile: string;
  session: Session;
}

export interface Command {
  /** The words that name it: `["clock", "advance"]`. */
  name: string[];
  summary: string;
  /** What follows the name in the usage line. */
  usage?: string;
  /** Longer help: what it does, the defaults. */
  details?: string;
  options?: Options;
  /** Descriptions of the options, by name. */
  optionHelp?: Record<string, string>;
  positionals?: boolean;
  run(context: Context): Promise<void>;
}

export const COMMON_OPTIONS: Options = {
  profile: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  "base-url": { type: "string" },
  "admin-url": { type: "string" },
  "auth-url": { type: "string" },
  "integration-url": { type: "string" },
};

export const COMMON_HELP: Record<string, string> = {
  profile: "the stored sign-in to use (default: $COBRO_PROFILE or `default`)",
  json: "print one JSON document (the API's own fields) instead of a table",
  help: "show this help",
  "base-url": "one address that serves all three APIs (a proxy); for APIs on their own ports, the three below",
  "admin-url": "the Admin API (default http://localhost:3002, or the profile's)",
  "auth-url": "the Auth API (default http://localhost:3001, or the profile's)",
  "integration-url": "the Integration API (default http://localhost:3000, or the profile's)",
};

export function helpOf(command: Command): string {
  const options = { ...command.options, ...COMMON_OPTIONS };
  const help = { ...command.optionHelp, ...COMMON_HELP };
  const lines = [`Usage: cobro ${command.name.join(" ")}${command.usage ? ` ${command.usage}` : ""} [options]`, "", command.summary];
  if (command.details) lines.push("", command.details);
  lines.push("", "Options:");
  const flags = Object.entries(options).map(([name, option]) => [
    `${option.short ? `-${option.short}, ` : "    "}--${name}${option.type === "string" ? " VALUE" : ""}`,
    help[name] ?? "",
  ]);
  const width = Math.max(...flags.map(([flag]) => flag!.length));
  for (const [flag, description] of flags) lines.push(`  ${flag!.padEnd(width)}  ${description}`);
  return `${lines.join("\n")}\n`;
}

export function parseCommand(command: Command, args: string[]): { values: Values; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options: { ...command.options, ...COMMON_OPTIONS }, allowPositionals: command.positionals ?? false, strict: true });
    return { values: parsed.values as Values, positionals: parsed.positionals };
  } catch (error) {
    throw new CliError("usage", `${(error as Error).message.split("\n")[0]} (see cobro ${command.name.join(" ")} --help)`);
  }
}

export function contextOf(values: Values, positionals: string[]): Context {
  const profile = checkProfileName((values.profile as string | undefined) ?? process.env.COBRO_PROFILE ?? "default");
  const out = new Output(values.json === true);
  return { values, positionals, out, profile, session: new Session(profile, values) };
}

/** A required string option. */
export function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== "string" || value === "") throw new CliError("usage", `--${name} is required`);
  return value;
}

/** An option that takes one of a few values, or undefined when not given. */
export function oneOf<T extends string>(values: Values, name: string, allowed: readonly T[]): T | undefined {
  const value = values[name] as string | undefined;
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new CliError("usage", `--${name} is one of ${allowed.join(", ")}`);
  return value as T;
}

/** A positive amount in pesos with at most 2 decimals. */
export function amountOf(value: string | undefined, name = "amount"): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+(\.\d{1,2})?$/.test(value) || Number(value) <= 0) throw new CliError("usage", `--${name} must be a positive amount with at most 2 decimals`);
  return Number(value);
}

// biome-ignore lint/suspicious/noExplicitAny: the API's JSON exactly as it answered (printed with --json, read by name otherwise).
export type ApiJson = any;

/** The API's own JSON of a generated client's `…Raw` call: what --json prints, with the contract's field names. */
export async function apiJson(response: Promise<{ raw: Response }>): Promise<ApiJson> {
  return (await response).raw.json();
}

/** A `YYYY-MM-DD` calendar day `days` after `day`. */
export function daysAfter(day: string, days: number): string {
  const [year, month, date] = day.split("-").map(Number);
  return new Date(Date.UTC(year!, month! - 1, date! + days)).toISOString().slice(0, 10);
}

export function integerOf(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new CliError("usage", `--${name} must be a whole number`);
  return Number(value);
}
