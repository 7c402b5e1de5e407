// `npm run merchants:import -- <file.csv>`: creates or updates many merchant accounts from a file the
// payment provider exported, through the same use case as `PUT /integration-admin/merchant-accounts/
// {providerMerchantId}`, in the configured database (DATABASE_URL, or the embedded one in COBRO_DATA_DIR).
// The file is CSV (RFC 4180, UTF-8, comma-separated) with a header row naming the columns
// providerMerchantId, email, legalName, cuit, tradeName, status (in any order). Each row is checked
// against the contract's schema, then provisioned on its own: one line per row says created, updated,
// unchanged or refused (with the reason), so running the same file twice answers "unchanged" for every
// row the first run took. New active accounts are invited by email (COBRO_SMTP_URL, COBRO_MAIL_FROM);
// without a mail server they are refused, as the API refuses them in Production. Exit status 1 when a
// row was refused.
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { CobroStartupError } from "../db/errors.ts";
import { systemClock } from "../domain/clock.ts";
import { DomainError } from "../domain/errors.ts";
import { SmtpEmailSender } from "../domain/outbound/smtp-email-sender.ts";
import { provisionMerchantAccount, sendInvitation, type ProvidedMerchantAccount } from "../domain/merchants/merchant-provisioning.ts";
import { fail, withConfiguredDatabase } from "./operator-database.ts";
import { adminSchemas, readFileOrFail } from "./contract-schemas.ts";
import { parseCsv } from "./csv.ts";

const USAGE = "usage: npm run merchants:import -- <file.csv>";
const COLUMNS = ["providerMerchantId", "email", "legalName", "cuit", "tradeName", "status"] as const;

const file = process.argv[2];
if (!file || process.argv.length > 3) fail(USAGE);
const text = readFileOrFail(file);

// The contract's own schemas judge each row, as the API's validation would judge the call.
const schema = adminSchemas();
const validBody = schema("MerchantAccountProvision");
const validId = schema("ProviderMerchantId");

const [header, ...rows] = parseCsv(text);
if (!header) fail(`${file} is empty: its first line names the columns ${COLUMNS.join(", ")}`);
const missing = COLUMNS.filter((column) => !header.includes(column));
if (missing.length > 0) fail(`${file} lacks the column(s) ${missing.join(", ")} (the first line names the columns ${COLUMNS.join(", ")})`);

function reasonOf(validate: typeof validBody, what: string): string {
  const error = validate.errors?.[0];
  return `${what}${error?.instancePath ? ` ${error.instancePath.slice(1)}` : ""} ${error?.message ?? "is not valid"}`;
}

try {
  const config = loadConfig(process.env, []);
  const smtp = config.notifications.email;
  const mail = smtp ? new SmtpEmailSender({ smtpUrl: smtp.smtpUrl, from: smtp.from }) : undefined;
  const counts = { created: 0, updated: 0, unchanged: 0, refused: 0 };
  try {
    await withConfiguredDatabase(config, async (db) => {
      for (const [index, row] of rows.entries()) {
        const line = index + 2;
        const value = (column: (typeof COLUMNS)[number]) => (row[header.indexOf(column)] ?? "").trim();
        const id = value("providerMerchantId");
        const say = (outcome: string) => process.stdout.write(`line ${line} ${id || "(no providerMerchantId)"}: ${outcome}\n`);
        const body = { email: value("email"), legalName: value("legalName"), cuit: value("cuit"), tradeName: value("tradeName"), status: value("status") };
        if (!validId(id)) {
          counts.refused++;
          say(`refused: ${reasonOf(validId, "providerMerchantId")}`);
          continue;
        }
        if (!validBody(body)) {
          counts.refused++;
          say(`refused: ${reasonOf(validBody, "the row's")}`);
          continue;
        }
        try {
          const outcome = await provisionMerchantAccount(db, mail, id, body as ProvidedMerchantAccount, systemClock.now());
          let invited = "";
          if (outcome.invitation) {
            const mailed = await sendInvitation(db, mail!, systemClock, outcome.invitation, config.publicUrls.auth);
            invited = mailed.sent ? " (invitation sent)" : ` (invitation not accepted by the mail server: ${mailed.reason}; running the file again resends it)`;
          }
          counts[outcome.result]++;
          say(`${outcome.result}${invited}`);
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          counts.refused++;
          say(`refused: ${error.message}`);
        }
      }
    });
  } finally {
    await mail?.close();
  }
  process.stdout.write(`${rows.length} rows: ${counts.created} created, ${counts.updated} updated, ${counts.unchanged} unchanged, ${counts.refused} refused\n`);
  if (counts.refused > 0) process.exitCode = 1;
} catch (error) {
  if (error instanceof ConfigError || error instanceof CobroStartupError) fail(error.message);
  throw error;
}
