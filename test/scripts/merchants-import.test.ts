// `npm run merchants:import -- file.csv` as an operator runs it: its own process, against the database a
// running Production uses, with a real SMTP server on loopback. A line per row, the invitations mailed
// once, and the same file run twice answering "unchanged" for every row it took.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { cobroEnv, ROOT, runScript } from "../../scripts/cobro-process.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";

const SCRIPT = join(ROOT, "scripts", "merchants-import.ts");

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.close();
});

const t = serviceForFile({ env: { SERVICE_ENV: "production" }, parts: ["admin"] });

function importFile(content: string, withMail = true) {
  const path = join(mkdtempSync(join(tmpdir(), "cobro-import-")), "comercios.csv");
  writeFileSync(path, content);
  return runScript(
    SCRIPT,
    [path],
    cobroEnv({
      DATABASE_URL: t.database.connectionString,
      SERVICE_ENV: "production",
      COBRO_AUTH_URL: "https://auth.cobro.example",
      ...(withMail ? { COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <cuentas@cobro.example>" } : {}),
    }),
  );
}

const FILE = [
  "providerMerchantId,email,legalName,cuit,tradeName,status",
  'w-001,espiga@example.com,"La Espiga, S.R.L.",30712345671,Panadería La Espiga,active',
  "w-002,kiosco@example.com,Kiosco Central S.A.,30712345671,Kiosco Central,suspended",
  "w-003,mal-cuit@example.com,Mal CUIT S.A.,30712345672,Mal CUIT,active",
  "w-004,no-es-un-email,Otro S.A.,30712345671,Otro,active",
  "w 005,espacio@example.com,Espacio S.A.,30712345671,Espacio,active",
  "w-006,espiga@example.com,Repetido S.A.,30712345671,Repetido,active",
  "",
].join("\r\n");

it("upserts each row and prints what it did; the same file again is unchanged, and invites nobody twice", async () => {
  const first = await importFile(FILE);
  expect(first.stdout.split("\n").filter(Boolean)).toEqual([
    "line 2 w-001: created (invitation sent)",
    "line 3 w-002: created",
    expect.stringMatching(/^line 4 w-003: refused: cuit must be a valid CUIT/),
    expect.stringMatching(/^line 5 w-004: refused: the row's email must match format "email"/),
    expect.stringMatching(/^line 6 w 005: refused: providerMerchantId must match pattern/),
    "line 7 w-006: refused: Another merchant account already has the email espiga@example.com",
    "6 rows: 2 created, 0 updated, 0 unchanged, 4 refused",
  ]);
  expect(first.code).toBe(1);
  const [invitation] = await smtp.waitFor("espiga@example.com");
  expect(invitation!.text).toContain("Elegí tu contraseña en: https://auth.cobro.example/integration/merchant/password-reset/page?token=");
  const stored = await t.database.db
    .selectFrom("merchant_accounts")
    .select(["account_holder_name", "status"])
    .where("provider_merchant_id", "=", "w-001")
    .execute();
  expect(stored).toEqual([{ account_holder_name: "La Espiga, S.R.L.", status: "active" }]);

  const second = await importFile(FILE);
  const lines = second.stdout.split("\n").filter(Boolean);
  expect(lines.slice(0, 2)).toEqual(["line 2 w-001: unchanged", "line 3 w-002: unchanged"]);
  expect(lines.at(-1)).toBe("6 rows: 0 created, 0 updated, 2 unchanged, 4 refused");
  expect(smtp.to("espiga@example.com")).toHaveLength(1);

  const valid = FILE.split("\r\n").slice(0, 3).join("\n");
  const clean = await importFile(valid);
  expect(clean.code, clean.stderr).toBe(0);
  expect(clean.stdout).toBe("line 2 w-001: unchanged\nline 3 w-002: unchanged\n2 rows: 0 created, 0 updated, 2 unchanged, 0 refused\n");
});

it("refuses a new active account without a mail server, and updates the others", async () => {
  const result = await importFile(
    [
      "status,providerMerchantId,email,legalName,cuit,tradeName",
      "active,w-101,sin-correo@example.com,Sin Correo S.A.,30712345671,Sin Correo",
      "suspended,w-102,suspendida@example.com,Suspendida S.A.,30712345671,Suspendida",
    ].join("\n"),
    false,
  );
  expect(result.stdout).toMatch(/^line 2 w-101: refused: This deployment has no mail server configured/m);
  expect(result.stdout).toContain("line 3 w-102: created\n");
  expect(result.code).toBe(1);
});

it("names the missing columns, and an unreadable file, in one line", async () => {
  const result = await importFile("providerMerchantId,email\nw-1,a@example.com\n");
  expect(result.code).toBe(1);
  expect(result.stderr).toMatch(/^cobro: \S+comercios\.csv lacks the column\(s\) legalName, cuit, tradeName, status \(the first line names the columns/);
  const missing = await runScript(SCRIPT, ["/nonexistent/comercios.csv"], cobroEnv({ DATABASE_URL: t.database.connectionString }));
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/^cobro: cannot read \/nonexistent\/comercios\.csv: /);
});
