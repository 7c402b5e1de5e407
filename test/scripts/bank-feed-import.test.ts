// `npm run bank-feed:import -- file.csv` as an operator runs it: its own process, sending a bank's file to
// a live service's bank feed in signed pages. A line per page and the totals; the same file again is all
// duplicates; a bad line named, with nothing sent; a transfer the database refuses named, exit status 1.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { beforeEach, expect, it } from "vitest";
import { chargeBody } from "../helpers/charges.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { cobroEnv, ROOT, runScript } from "../../scripts/cobro-process.ts";

const SCRIPT = join(ROOT, "scripts", "bank-feed-import.ts");
const SECRET = "bank-feed-secret-for-tests-0123456789";
const NOBODYS_CVU = "0000253200000099999995";
const HEADER = "transactionId,amount,receivingCvu,senderCuil,senderCvu,senderName,operatedAt";

const t = serviceForFile({ env: { COBRO_BANK_FEED_SECRET: SECRET } });

// The script signs with the machine's time, as the bank does: the service's clock reads the same.
beforeEach(() => t.clock.set(new Date()));

function importFile(content: string, args: string[] = [], env: Record<string, string> = {}) {
  const path = join(mkdtempSync(join(tmpdir(), "cobro-bank-feed-")), "extracto.csv");
  writeFileSync(path, content);
  return runScript(SCRIPT, [...args, path], cobroEnv({ COBRO_BANK_FEED_SECRET: SECRET, COBRO_ADMIN_URL: t.adminUrl, ...env }));
}

const recorded = async (transactionIds: string[]) =>
  Number(
    (
      await t.database.db
        .selectFrom("transfers")
        .select((eb) => eb.fn.countAll<string>().as("n"))
        .where("transaction_id", "in", transactionIds)
        .executeTakeFirstOrThrow()
    ).n,
  );

async function twoCharges() {
  const m = await linkedMerchant(t);
  const create = async (amount: number) =>
    (await m.call("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("FILE"), customer: { name: "Ana" }, amount }))).json;
  return { whole: await create(500), split: await create(1000) };
}

it("sends the file in signed pages, a line per page and the totals; the same file again answers every transfer duplicate", async () => {
  const { whole, split } = await twoCharges();
  const ids = [uniqueRef("F"), uniqueRef("F"), uniqueRef("F"), uniqueRef("F")];
  const file = [
    HEADER,
    `${ids[0]},500,${whole.CVU},20301234563,,"Pérez, Juan",2026-12-09T14:32:10-03:00`,
    `${ids[1]},400.00,${split.CVU},,,,2026-12-09T14:33:00-03:00`,
    `${ids[2]},77.5,${NOBODYS_CVU},,,María,2026-12-09T14:34:00-03:00`,
    `${ids[0]},500,${whole.CVU},20301234563,,"Pérez, Juan",2026-12-09T14:32:10-03:00`,
    `${ids[3]},600,${split.CVU},,,,2026-12-09T14:35:00-03:00`,
    "",
  ].join("\r\n");

  const first = await importFile(file, ["--page-size", "2"]);
  expect(first.stderr).toBe("");
  expect(first.stdout).toBe(
    [
      "page 1/3 (lines 2-3): 2 recorded (2 matched, 0 unmatched), 0 duplicate, 0 failed",
      "page 2/3 (lines 4-5): 1 recorded (0 matched, 1 unmatched), 1 duplicate, 0 failed",
      "page 3/3 (lines 6-6): 1 recorded (1 matched, 0 unmatched), 0 duplicate, 0 failed",
      "5 transfers: 4 recorded (3 matched, 1 unmatched), 1 duplicate, 0 failed",
      "",
    ].join("\n"),
  );
  expect(first.code).toBe(0);
  const charges = await t.database.db
    .selectFrom("charges")
    .select(["id", "state", "paid_cents"])
    .where("id", "in", [whole.paymentRequestId, split.paymentRequestId])
    .execute();
  expect(charges).toEqual(
    expect.arrayContaining([
      { id: whole.paymentRequestId, state: "total_payment", paid_cents: 50000 },
      { id: split.paymentRequestId, state: "total_payment", paid_cents: 100000 },
    ]),
  );

  const again = await importFile(file);
  expect(again.stdout).toBe(
    [
      "page 1/1 (lines 2-6): 0 recorded (0 matched, 0 unmatched), 5 duplicate, 0 failed",
      "5 transfers: 0 recorded (0 matched, 0 unmatched), 5 duplicate, 0 failed",
      "",
    ].join("\n"),
  );
  expect(again.code).toBe(0);
});

it("names each bad line with its reason and sends nothing", async () => {
  const ok = uniqueRef("F");
  const file = [
    HEADER,
    `${ok},10,${NOBODYS_CVU},,,,2026-12-09T14:32:10-03:00`,
    `${uniqueRef("F")},10.505,${NOBODYS_CVU},,,,2026-12-09T14:32:10-03:00`,
    `${uniqueRef("F")},10,12345,,,,2026-12-09T14:32:10-03:00`,
    `${uniqueRef("F")},10,${NOBODYS_CVU},,,,ayer`,
    `${uniqueRef("F")},10,${NOBODYS_CVU}`,
  ].join("\n");
  const run = await importFile(file);
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr.split("\n").filter(Boolean)).toEqual([
    'line 3: amount "10.505" is not pesos with at most 2 decimals and a dot (1500.50)',
    expect.stringMatching(/^line 4: receivingCvu must match pattern/),
    expect.stringMatching(/^line 5: operatedAt must match format "date-time"/),
    "line 6: it has 3 fields, the first line names 7",
    expect.stringMatching(/^cobro: .*extracto\.csv: 4 bad line\(s\), nothing sent$/),
  ]);
  expect(await recorded([ok])).toBe(0);
});

it("a header that lacks a required column, or names an unknown one, is refused before anything is sent", async () => {
  const lacking = await importFile("transactionId,amount,operatedAt\nX,1,2026-12-09T14:32:10-03:00\n");
  expect(lacking.code).toBe(1);
  expect(lacking.stderr).toMatch(/line 1 lacks the column\(s\) receivingCvu/);
  const unknown = await importFile(`${HEADER},monto\n`);
  expect(unknown.code).toBe(1);
  expect(unknown.stderr).toMatch(/line 1 names unknown column\(s\) monto/);
});

it("a transfer the database refuses is named by its line; the others are recorded; exit status 1", async () => {
  await sql`
    create or replace function refuse_test_transfer() returns trigger language plpgsql as $$
    begin
      if new.transaction_id like 'REFUSED-%' then raise exception 'refused for the test' using errcode = '23514'; end if;
      return new;
    end $$`.execute(t.database.db);
  await sql`create trigger refuse_test_transfer before insert on transfers for each row execute function refuse_test_transfer()`.execute(t.database.db);
  try {
    const ok = uniqueRef("F");
    const refused = uniqueRef("REFUSED");
    const run = await importFile(
      [HEADER, `${ok},10,${NOBODYS_CVU},,,,2026-12-09T14:32:10-03:00`, `${refused},10,${NOBODYS_CVU},,,,2026-12-09T14:32:10-03:00`].join("\n"),
    );
    expect(run.code).toBe(1);
    expect(run.stdout.split("\n").filter(Boolean)).toEqual([
      "page 1/1 (lines 2-3): 1 recorded (0 matched, 1 unmatched), 0 duplicate, 1 failed",
      expect.stringMatching(new RegExp(`^  line 3 ${refused}: failed: InternalError: .* \\(id [0-9a-f-]{36}\\)$`)),
      "2 transfers: 1 recorded (0 matched, 1 unmatched), 0 duplicate, 1 failed",
    ]);
    expect(await recorded([ok, refused])).toBe(1);
  } finally {
    await sql`drop trigger if exists refuse_test_transfer on transfers`.execute(t.database.db);
  }
});

it("a page the service refuses (another secret) stops the import, exit status 1", async () => {
  const run = await importFile([HEADER, `${uniqueRef("F")},10,${NOBODYS_CVU},,,,2026-12-09T14:32:10-03:00`].join("\n"), [], {
    COBRO_BANK_FEED_SECRET: "another-secret-entirely-000000000",
  });
  expect(run.code).toBe(1);
  expect(run.stdout).toMatch(/^page 1\/1 \(lines 2-2\): refused, 401 BankFeedSignatureError: /);
  expect(run.stdout).toMatch(/\n1 transfer, not all sent: 0 recorded/);
});

it("--help says what it reads; without the secret it refuses to start", async () => {
  const help = await runScript(SCRIPT, ["--help"], cobroEnv());
  expect(help.code).toBe(0);
  expect(help.stdout).toContain("COBRO_BANK_FEED_SECRET");
  expect(help.stdout).toContain("COBRO_ADMIN_URL");
  const noSecret = await runScript(SCRIPT, ["file.csv"], cobroEnv());
  expect(noSecret.code).toBe(1);
  expect(noSecret.stderr).toContain("COBRO_BANK_FEED_SECRET is not set");
});
