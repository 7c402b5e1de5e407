// `npm run platform-admin:create -- --email <address> [--name <name>]`: creates a platform admin in the
// configured database (DATABASE_URL, or the embedded one in COBRO_DATA_DIR), brought to the latest schema
// first. The admin gets a temporary password (7 days, changed at the first sign-in): mailed in the welcome
// email when SMTP is configured (COBRO_SMTP_URL, COBRO_MAIL_FROM), else printed here, once. This is how a
// Production deployment gets its first platform admin.
import { parseArgs } from "node:util";
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { CobroStartupError } from "../db/errors.ts";
import { systemClock } from "../domain/clock.ts";
import { DomainError } from "../domain/errors.ts";
import { createAdminWithTemporaryPassword, sendWelcomeEmail, TEMPORARY_PASSWORD_DAYS, type AdminWelcome } from "../domain/integration-clients/admin-welcome.ts";
import { SmtpEmailSender } from "../domain/outbound/smtp-email-sender.ts";
import { portalUrl } from "../domain/outbound/account-email.ts";
import { fail, withConfiguredDatabase } from "./operator-database.ts";

const USAGE = "usage: npm run platform-admin:create -- --email <address> [--name <name>]";

let options: { email?: string; name?: string };
try {
  ({ values: options } = parseArgs({ options: { email: { type: "string" }, name: { type: "string" } }, strict: true }));
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`);
}
const email = options.email?.trim();
if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) fail(`--email must be an email address\n${USAGE}`);

try {
  const config = loadConfig(process.env, []);
  await withConfiguredDatabase(config, async (db) => {
    const welcome = await createAdminWithTemporaryPassword(
      db,
      { email, name: options.name ?? null, role: "PLATFORM_ADMIN", integrationClientId: null },
      systemClock.now(),
    );
    const signInUrl = portalUrl(config.publicUrls.admin);
    const smtp = config.notifications.email;
    if (!smtp) {
      printTemporaryPassword(welcome, signInUrl, "no COBRO_SMTP_URL is configured, so no welcome email was sent");
    } else {
      const mail = new SmtpEmailSender({ smtpUrl: smtp.smtpUrl, from: smtp.from });
      try {
        const mailed = await sendWelcomeEmail(db, mail, systemClock, welcome, config.publicUrls.admin);
        if (mailed.sent)
          process.stdout.write(`platform admin ${email} created; the welcome email with the temporary password was sent (sign in at ${signInUrl})\n`);
        // The admin exists: without the password here, nobody could ever sign in with it.
        else printTemporaryPassword(welcome, signInUrl, `the mail server did not accept the welcome email (${mailed.reason})`);
      } finally {
        await mail.close();
      }
    }
  });
} catch (error) {
  if (error instanceof DomainError && error.code === "AdminEmailAlreadyExistsError") fail(`an admin with email ${email} already exists`);
  if (error instanceof ConfigError || error instanceof CobroStartupError) fail(error.message);
  throw error;
}

function printTemporaryPassword(welcome: AdminWelcome, signInUrl: string, why: string): void {
  process.stdout.write(
    [
      `platform admin ${welcome.email} created; ${why}.`,
      `Sign in at ${signInUrl} (POST, JSON {email, password}) and change the password first.`,
      `Temporary password (shown only now, valid ${TEMPORARY_PASSWORD_DAYS} days): ${welcome.temporaryPassword}`,
      "",
    ].join("\n"),
  );
}
