// `npm run bank-feed:import -- <file.csv>`: feeds a bank's file of received transfers to a running Cobro
// through the bank feed's pages (`POST /internal/bank-feed/transfers/batch` on the Admin API), signed with
// the bank feed's secret as the bank integration signs. Every line is checked first (nothing is sent when
// one is bad); then pages of 500 are sent in the file's order, each summed up on a line; a transfer sent
// twice has one effect, so the same file run again answers every transfer duplicate.
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { bankFeedSignature } from "../domain/reconciliation/bank-feed.ts";
import type { components } from "../generated/types/admin.ts";
import { adminSchemas, readFileOrFail } from "./contract-schemas.ts";
import { parseCsvLines } from "./csv.ts";
import { fail } from "./operator-database.ts";

type Transfer = components["schemas"]["BankFeedTransfer"];
type PageResult = components["schemas"]["BankFeedPageResult"];

const PAGE_PATH = "/internal/bank-feed/transfers/batch";
const MAX_PAGE = 1000;
const COLUMNS = ["transactionId", "amount", "receivingCvu", "senderCuil", "senderCvu", "senderName", "operatedAt"] as const;
const REQUIRED: readonly string[] = ["transactionId", "amount", "receivingCvu", "operatedAt"];

const HELP = `usage: npm run bank-feed:import -- [--page-size <n>] <file.csv>

Sends a bank's file of received transfers to Cobro's bank feed (POST ${PAGE_PATH} on the
Admin API), in pages of 500 (--page-size: 1 to ${MAX_PAGE}), signed with the bank feed's secret.

The file: CSV (RFC 4180, UTF-8), its first line naming the columns, in any order:
  ${COLUMNS.join(",")}
transactionId, amount (pesos, up to 2 decimals, a dot: 1500.50), receivingCvu (22 digits) and operatedAt
(ISO 8601 with its offset: 2026-12-09T14:32:10-03:00) are required; senderCuil, senderCvu and senderName
may be empty. One line per transfer. Every line is checked before anything is sent: a bad line is
named with the reason, and nothing is sent.

It prints a line per page and the totals (recorded, duplicate, matched, unmatched, failed); it exits 1 if
any transfer failed or a page was refused (run it again: a transfer already recorded answers duplicate).

Environment (read as the service reads it):
  COBRO_BANK_FEED_SECRET  the secret shared with the bank integration (required)
  COBRO_ADMIN_URL         the Admin API's origin (default http://localhost:<ADMIN_PORT>, ADMIN_PORT default 3002)
`;

const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  process.stdout.write(HELP);
  process.exit(0);
}
let pageSize = 500;
const files: string[] = [];
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  if (arg === "--page-size") {
    pageSize = Number(args[++i]);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) fail(`--page-size must be a whole number from 1 to ${MAX_PAGE}`);
  } else if (arg.startsWith("-")) fail(`unknown option ${arg}\n${HELP}`);
  else files.push(arg);
}
if (files.length !== 1) fail(`name one file\n${HELP}`);
const file = files[0]!;

let secret: string | undefined;
let adminUrl: string;
try {
  const config = loadConfig(process.env, []);
  secret = config.bankFeedSecret;
  adminUrl = config.publicUrls.admin;
} catch (error) {
  if (error instanceof ConfigError) fail(error.message);
  throw error;
}
if (!secret) fail("COBRO_BANK_FEED_SECRET is not set: the bank feed's pages are signed with it (see --help)");

const text = readFileOrFail(file);

// The contract's own schema judges each line, as the API's validation would judge the transfer.
const validTransfer = adminSchemas()("BankFeedTransfer");

const [header, ...records] = parseCsvLines(text);
if (!header) fail(`${file} is empty: its first line names the columns ${COLUMNS.join(",")}`);
const columns = header.fields.map((name) => name.trim());
const unknown = columns.filter((name) => !(COLUMNS as readonly string[]).includes(name));
if (unknown.length > 0) fail(`${file}: line 1 names unknown column(s) ${unknown.join(", ")} (the columns are ${COLUMNS.join(",")})`);
const missing = REQUIRED.filter((name) => !columns.includes(name));
if (missing.length > 0) fail(`${file}: line 1 lacks the column(s) ${missing.join(", ")} (the columns are ${COLUMNS.join(",")})`);
if (records.length === 0) fail(`${file} has no transfers: one line per transfer after the first`);

/** The line's transfer, or why it is not one. */
function transferOf(fields: string[]): Transfer | string {
  if (fields.length !== columns.length) return `it has ${fields.length} fields, the first line names ${columns.length}`;
  const value = (name: string) => (fields[columns.indexOf(name)] ?? "").trim();
  const amount = value("amount");
  if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(amount)) return `amount "${amount}" is not pesos with at most 2 decimals and a dot (1500.50)`;
  const transfer: Record<string, unknown> = { transactionId: value("transactionId"), amount: Number(amount), receivingCvu: value("receivingCvu") };
  for (const name of ["senderCuil", "senderCvu", "senderName"]) if (value(name) !== "") transfer[name] = value(name);
  transfer.operatedAt = value("operatedAt");
  if (validTransfer(transfer)) return transfer as Transfer;
  const error = validTransfer.errors?.[0];
  const field = error?.instancePath ? error.instancePath.slice(1) : "the transfer";
  return `${field} ${error?.message ?? "is not valid"}`;
}

const transfers: { line: number; transfer: Transfer }[] = [];
const bad: string[] = [];
for (const record of records) {
  const outcome = transferOf(record.fields);
  if (typeof outcome === "string") bad.push(`line ${record.line}: ${outcome}`);
  else transfers.push({ line: record.line, transfer: outcome });
}
if (bad.length > 0) {
  process.stderr.write(`${bad.join("\n")}\n`);
  fail(`${file}: ${bad.length} bad line(s), nothing sent`);
}

const totals = { recorded: 0, duplicate: 0, matched: 0, unmatched: 0, failed: 0 };
const pages = Math.ceil(transfers.length / pageSize);
const summary = (c: typeof totals) => `${c.recorded} recorded (${c.matched} matched, ${c.unmatched} unmatched), ${c.duplicate} duplicate, ${c.failed} failed`;
let refused = false;
for (let page = 0; page < pages; page++) {
  const slice = transfers.slice(page * pageSize, (page + 1) * pageSize);
  const lines = `lines ${slice[0]!.line}-${slice.at(-1)!.line}`;
  const raw = JSON.stringify({ transfers: slice.map((item) => item.transfer) });
  let status: number;
  let answer: string;
  try {
    const response = await fetch(`${adminUrl}${PAGE_PATH}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bank-feed-signature": bankFeedSignature(secret, raw, new Date()) },
      body: raw,
    });
    status = response.status;
    answer = await response.text();
  } catch (error) {
    process.stdout.write(`page ${page + 1}/${pages} (${lines}): not sent: ${(error as Error).message} (${adminUrl})\n`);
    refused = true;
    break;
  }
  if (status !== 200) {
    let reason = answer;
    try {
      const body = JSON.parse(answer) as { code?: string; message?: string };
      reason = `${body.code ?? ""}: ${body.message ?? answer}`;
    } catch {}
    process.stdout.write(`page ${page + 1}/${pages} (${lines}): refused, ${status} ${reason}\n`);
    refused = true;
    break;
  }
  const result = JSON.parse(answer) as PageResult;
  for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += result[key];
  process.stdout.write(`page ${page + 1}/${pages} (${lines}): ${summary(result)}\n`);
  for (const item of result.results) {
    if (item.outcome !== "failed") continue;
    const { code, message, id } = item.error ?? { code: "", message: "", id: "" };
    process.stdout.write(`  line ${slice[item.index]!.line} ${item.transactionId}: failed: ${code}: ${message} (id ${id})\n`);
  }
}
process.stdout.write(`${transfers.length} transfer${transfers.length === 1 ? "" : "s"}${refused ? ", not all sent" : ""}: ${summary(totals)}\n`);
if (refused || totals.failed > 0) process.exitCode = 1;
