// The hot paths' statements are compiled once (db/compiled-statement.ts): a run must send PostgreSQL exactly
// what the Kysely builder would have sent for the same values, and give the same rows and the same errors.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { CompiledStatement } from "../../db/compiled-statement.ts";
import { chargeByReference, chargeByReferenceQuery, joiningCreate, joiningCreateQuery, type JoiningCreateInput } from "../../domain/charges/charges.ts";
import { adminCheck, adminCheckQuery, grantCheck, grantCheckQuery, merchantCheck, merchantCheckQuery } from "../../domain/sign-in/authentication.ts";
import { chargeBody } from "../helpers/charges.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let m: Awaited<ReturnType<typeof linkedMerchant>>;
const db = () => t.database.db;

beforeAll(async () => {
  m = await linkedMerchant(t);
});

/** A create's input with every kind of value a column takes (nulls, dates, JSON text, an array). */
function createInput(ids: { integrationClientId: string; merchantAccountId: string }, changes: Partial<JoiningCreateInput> = {}): JoiningCreateInput {
  const now = new Date("2026-11-22T15:00:00Z");
  const payerKey = `${Math.floor(Math.random() * 9e7) + 1e7}`;
  return {
    id: randomUUID(),
    integration_client_id: ids.integrationClientId,
    merchant_account_id: ids.merchantAccountId,
    reference_id: uniqueRef("COMPILED"),
    type: "standard",
    kind: "standard",
    state: "pending",
    amount_cents: 150_050,
    surcharge_cents: 15_005,
    due_dates: ["2026-12-10", "2026-12-20"],
    first_due_at: new Date("2026-12-11T03:00:00Z"),
    description: "Cuota de diciembre",
    final_due_at: new Date("2026-12-21T03:00:00Z"),
    surcharge: JSON.stringify({ type: "percentage", value: 10 }),
    send_whatsapp_notification: false,
    send_email_notification: false,
    send_whatsapp_payment_confirmation: null,
    reminder_notification_date: null,
    deferred_initial_notification_date: "2026-11-25",
    conciliation_type: "cuil",
    customer_name: "Juan Pérez",
    customer_tax_document: `20${payerKey}3`,
    customer_email: null,
    customer_phone: JSON.stringify({ countryCode: "+54", number: "91123456789" }),
    webhook_url: null,
    metadata: JSON.stringify({ orderId: "A-1001" }),
    expires_in_minutes: null,
    batch_id: null,
    created_at: now,
    updated_at: now,
    payer_key: payerKey,
    payer_keys: [payerKey],
    ...changes,
  } as JoiningCreateInput;
}

async function chargeOfMerchant() {
  const created = await m.call("POST", "/payment-request", chargeBody({ conciliationType: "cuil", customer: { name: "Ana", taxDocument: "20301234563" } }));
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return db()
    .selectFrom("charges")
    .select(["integration_client_id as integrationClientId", "merchant_account_id as merchantAccountId", "reference_id as referenceId"])
    .where("id", "=", created.json.paymentRequestId)
    .executeTakeFirstOrThrow();
}

const errorOf = (run: () => Promise<unknown>) =>
  run().then(
    () => undefined,
    (error: unknown) => {
      const { message, code, constraint } = error as { message: string; code?: string; constraint?: string };
      return { kind: (error as object).constructor.name, message, code, constraint };
    },
  );

describe("a compiled statement sends what the builder would", () => {
  it("the same text and parameters for the create, a GET and the token checks", async () => {
    const ids = await chargeOfMerchant();
    for (const input of [
      createInput(ids),
      createInput(ids, {
        amount_cents: null,
        state: "draft",
        kind: "draft",
        surcharge: null,
        customer_phone: null,
        metadata: null,
        webhook_url: "https://example.com/h",
      }),
      createInput(ids, { batch_id: randomUUID(), expires_in_minutes: 15, type: "checkout", send_whatsapp_payment_confirmation: true }),
    ]) {
      const built = joiningCreateQuery(db(), input).compile();
      expect(joiningCreate.sql).toBe(built.sql);
      expect(joiningCreate.parameters(input)).toEqual(built.parameters);
    }
    const statements = [
      [chargeByReference, chargeByReferenceQuery, ids],
      [merchantCheck, merchantCheckQuery, { aud: "provider-client", sub: randomUUID(), sid: randomUUID() }],
      [grantCheck, grantCheckQuery, { sid: randomUUID(), sub: randomUUID() }],
      [adminCheck, adminCheckQuery, { sid: randomUUID(), sub: randomUUID() }],
    ] as const;
    for (const [statement, query, input] of statements) {
      const built = (query as (db: unknown, input: unknown) => { compile(): { sql: string; parameters: readonly unknown[] } })(db(), input).compile();
      expect(statement.sql).toBe(built.sql);
      expect((statement as CompiledStatement<Record<string, unknown>, unknown>).parameters(input)).toEqual(built.parameters);
    }
  });

  it("refuses a query that writes a value into its text, makes it into another value, or leaves one out", () => {
    expect(
      () => new CompiledStatement(["name"], (db, input: { name: string }) => db.selectFrom("charges").select(sql.raw<string>(`'${input.name}'`).as("x"))),
    ).toThrow(/placeholder was written/);
    expect(
      () =>
        new CompiledStatement(["id"], (db, input: { id: string }) =>
          db
            .selectFrom("charges")
            .select("id")
            .where("id", "=", input.id)
            .where(sql<boolean>`reference_id = any(${[input.id]}::text[])`),
        ),
    ).toThrow(/made into another value/);
    expect(
      () =>
        new CompiledStatement(["id", "unused"], (db, input: { id: string; unused: string }) =>
          db.selectFrom("charges").select("id").where("id", "=", input.id),
        ),
    ).toThrow(/does not use unused/);
  });
});

describe("a compiled statement answers as the builder", () => {
  it("a GET by reference: the same row, and nothing for an unknown reference", async () => {
    const ids = await chargeOfMerchant();
    const row = await chargeByReference.executeTakeFirst(db(), ids);
    expect(row).toBeDefined();
    expect(row).toEqual(await chargeByReferenceQuery(db(), ids).executeTakeFirst());
    const unknown = { ...ids, referenceId: uniqueRef("NONE") };
    expect(await chargeByReference.executeTakeFirst(db(), unknown)).toBeUndefined();
  });

  it("the token checks: the same rows for the merchant's grant and an admin's session", async () => {
    const { integrationClientId, merchantAccountId } = await chargeOfMerchant();
    const grant = await db()
      .selectFrom("oauth_grants as g")
      .innerJoin("integration_clients as c", "c.id", "g.integration_client_id")
      .select(["g.id", "c.provider_client_id"])
      .where("g.merchant_account_id", "=", merchantAccountId)
      .where("g.integration_client_id", "=", integrationClientId)
      .executeTakeFirstOrThrow();
    const merchant = { aud: grant.provider_client_id, sub: merchantAccountId, sid: grant.id };
    expect(await merchantCheck.executeTakeFirst(db(), merchant)).toEqual(await merchantCheckQuery(db(), merchant).executeTakeFirst());
    expect((await merchantCheck.executeTakeFirst(db(), merchant))?.grantId).toBe(grant.id);
    const holder = { sid: grant.id, sub: merchantAccountId };
    expect(await grantCheck.executeTakeFirst(db(), holder)).toEqual(await grantCheckQuery(db(), holder).executeTakeFirst());
    const session = await db().selectFrom("admin_sessions").select(["id", "admin_user_id"]).limit(1).executeTakeFirstOrThrow();
    const admin = { sid: session.id, sub: session.admin_user_id };
    expect(await adminCheck.executeTakeFirst(db(), admin)).toBeDefined();
    expect(await adminCheck.executeTakeFirst(db(), admin)).toEqual(await adminCheckQuery(db(), admin).executeTakeFirst());
  });

  it("the create: a charge written, the same refusal of a taken reference, and Kysely's NoResultError for no merchant", async () => {
    // The merchant's first cuil-mode charge made its CVU shared: another payer joins it.
    const ids = await chargeOfMerchant();
    const first = createInput(ids);
    const written = await joiningCreate.executeTakeFirstOrThrow(db(), first);
    expect(written).toMatchObject({ id: first.id, reference_id: first.reference_id, amount_cents: 150_050, cvu: expect.any(String) });
    const again = () => createInput(ids, { reference_id: first.reference_id });
    const byBuilder = await errorOf(() => joiningCreateQuery(db(), again()).executeTakeFirstOrThrow());
    expect(byBuilder).toMatchObject({ code: "23505", constraint: "charges_reference_key" });
    expect(await errorOf(() => joiningCreate.executeTakeFirstOrThrow(db(), again()))).toEqual(byBuilder);
    const nobody = () => createInput({ ...ids, merchantAccountId: randomUUID() });
    const noMerchant = await errorOf(() => joiningCreateQuery(db(), nobody()).executeTakeFirstOrThrow());
    expect(noMerchant?.kind).toBe("NoResultError");
    expect(await errorOf(() => joiningCreate.executeTakeFirstOrThrow(db(), nobody()))).toEqual(noMerchant);
  });
});
