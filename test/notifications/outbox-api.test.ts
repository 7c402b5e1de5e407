// GET /my-integration/notifications over real HTTP: the outbox rows written by the outbox primitive on
// charges created through the API, newest first, with every filter, the list envelope's paging, only the
// caller's integration, and the documented errors.
import { describe, expect, it } from "vitest";
import { writeNotifications, type NewNotification } from "../../domain/notifications/outbox.ts";
import type { NotificationStatus } from "../../db/tables/notifications.table.ts";
import { chargeBody } from "../helpers/charges.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";
import { type ApiCall, linkedMerchant, read, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

const CUSTOMER = { name: "Juan Pérez", email: "juan@example.com", phoneNumber: { countryCode: "+54", number: "91123456789" } };

/** A fresh integration with a linked merchant, its admin's Admin API calls and its id. */
async function integration(): Promise<{ merchant: ApiCall; admin: ApiCall; integrationClientId: string }> {
  const m = await linkedMerchant(t);
  const { call } = await signedInAdmin(t, m.sandbox.integrationAdmin);
  const row = await t.database.db
    .selectFrom("integration_clients")
    .select("id")
    .where("provider_client_id", "=", m.sandbox.integration.clientId)
    .executeTakeFirstOrThrow();
  return { merchant: m.call, admin: call, integrationClientId: row.id };
}

/** A charge created through the Integration API: its id. */
async function charge(merchant: ApiCall, referenceId: string): Promise<string> {
  const created = await merchant("POST", "/payment-request", chargeBody({ referenceId, customer: CUSTOMER }));
  expect(created.status, created.text).toBe(201);
  return created.json.paymentRequestId;
}

type Message = Omit<NewNotification, "chargeId" | "integrationClientId" | "day" | "recipient"> & {
  status?: NotificationStatus;
  sentAt?: Date;
  failureReason?: string;
};

/** Writes messages of a charge as the outbox does, then moves them to the status a test needs. */
async function writeMessages(integrationClientId: string, chargeId: string, messages: Message[]): Promise<string[]> {
  return t.database.db.transaction().execute(async (trx) => {
    const ids: string[] = [];
    for (const message of messages) {
      const [id] = await writeNotifications(trx, [
        {
          chargeId,
          integrationClientId,
          channel: message.channel,
          kind: message.kind,
          day: message.scheduledFor.toISOString().slice(0, 10),
          recipient: message.channel === "email" ? CUSTOMER.email : "5491123456789",
          scheduledFor: message.scheduledFor,
          ...(message.transferId ? { transferId: message.transferId } : {}),
        },
      ]);
      expect(id).toBeDefined();
      if (message.status) {
        await trx
          .updateTable("notifications")
          .set({ status: message.status, sent_at: message.sentAt ?? null, failure_reason: message.failureReason ?? null })
          .where("id", "=", id!)
          .execute();
      }
      ids.push(id!);
    }
    return ids;
  });
}

describe("GET /my-integration/notifications", () => {
  it("lists the integration's notifications newest first by scheduledFor, `queued` shown as `scheduled`, sentAt and failureReason only when present", async () => {
    const { merchant, admin, integrationClientId } = await integration();
    const referenceId = uniqueRef("OUT");
    const chargeId = await charge(merchant, referenceId);
    const [initialEmail, initialChat, reminder, dueDate] = await writeMessages(integrationClientId, chargeId, [
      { channel: "email", kind: "initial", scheduledFor: new Date("2026-11-22T15:00:00Z"), status: "sent", sentAt: new Date("2026-11-22T15:00:02Z") },
      { channel: "whatsapp", kind: "initial", scheduledFor: new Date("2026-11-22T15:00:01Z"), status: "queued" },
      { channel: "email", kind: "advance_reminder", scheduledFor: new Date("2026-12-09T13:00:00Z") },
      {
        channel: "whatsapp",
        kind: "due_date",
        scheduledFor: new Date("2026-12-10T13:00:00Z"),
        status: "failed",
        failureReason: "(#131026) Message undeliverable",
      },
    ]);

    const listed = await admin("GET", "/my-integration/notifications");
    expect(listed.status, listed.text).toBe(200);
    const common = { paymentRequestId: chargeId, referenceId };
    expect(listed.json).toEqual({
      items: [
        {
          ...common,
          notificationId: dueDate,
          channel: "whatsapp",
          kind: "due_date",
          to: "+5491123456789",
          status: "failed",
          scheduledFor: "2026-12-10T13:00:00.000Z",
          failureReason: "(#131026) Message undeliverable",
        },
        {
          ...common,
          notificationId: reminder,
          channel: "email",
          kind: "advance_reminder",
          to: "juan@example.com",
          status: "scheduled",
          scheduledFor: "2026-12-09T13:00:00.000Z",
        },
        {
          ...common,
          notificationId: initialChat,
          channel: "whatsapp",
          kind: "initial",
          to: "+5491123456789",
          status: "scheduled",
          scheduledFor: "2026-11-22T15:00:01.000Z",
        },
        {
          ...common,
          notificationId: initialEmail,
          channel: "email",
          kind: "initial",
          to: "juan@example.com",
          status: "sent",
          scheduledFor: "2026-11-22T15:00:00.000Z",
          sentAt: "2026-11-22T15:00:02.000Z",
        },
      ],
      total: 4,
      limit: 20,
      offset: 0,
    });
  });

  it("filters by referenceId, channel and status (`scheduled` covers the queued ones), together, and pages with limit and offset", async () => {
    const { merchant, admin, integrationClientId } = await integration();
    const [first, second] = [uniqueRef("OUTA"), uniqueRef("OUTB")];
    const firstCharge = await charge(merchant, first);
    const secondCharge = await charge(merchant, second);
    const [firstQueued, firstScheduled, firstSimulated] = await writeMessages(integrationClientId, firstCharge, [
      { channel: "whatsapp", kind: "initial", scheduledFor: new Date("2026-11-22T15:00:00Z"), status: "queued" },
      { channel: "email", kind: "advance_reminder", scheduledFor: new Date("2026-12-09T13:00:00Z") },
      { channel: "email", kind: "initial", scheduledFor: new Date("2026-11-22T15:00:00Z"), status: "simulated", sentAt: new Date("2026-11-22T15:00:01Z") },
    ]);
    const [secondCanceled, secondScheduled] = await writeMessages(integrationClientId, secondCharge, [
      { channel: "whatsapp", kind: "advance_reminder", scheduledFor: new Date("2026-12-09T13:00:00Z"), status: "canceled" },
      { channel: "whatsapp", kind: "due_date", scheduledFor: new Date("2026-12-10T13:00:00Z") },
    ]);
    const ids = async (query: string) => {
      const listed = await admin("GET", `/my-integration/notifications?${query}`);
      expect(listed.status, listed.text).toBe(200);
      return { ids: listed.json.items.map((item: { notificationId: string }) => item.notificationId), total: listed.json.total };
    };

    expect(await ids(`referenceId=${first}`)).toEqual({ ids: [firstScheduled, expect.any(String), expect.any(String)], total: 3 });
    expect((await ids(`referenceId=${first}`)).ids.slice(1).sort()).toEqual([firstQueued, firstSimulated].sort());
    expect(await ids(`referenceId=${second}`)).toEqual({ ids: [secondScheduled, secondCanceled], total: 2 });
    expect(await ids("referenceId=NO-SUCH-REF")).toEqual({ ids: [], total: 0 });
    expect(await ids("channel=email")).toEqual({ ids: [firstScheduled, firstSimulated], total: 2 });
    expect((await ids("status=scheduled")).ids.sort()).toEqual([secondScheduled, firstScheduled, firstQueued].sort());
    expect(await ids("status=canceled")).toEqual({ ids: [secondCanceled], total: 1 });
    expect(await ids("status=simulated")).toEqual({ ids: [firstSimulated], total: 1 });
    expect(await ids("status=sent")).toEqual({ ids: [], total: 0 });
    expect(await ids(`referenceId=${first}&channel=whatsapp&status=scheduled`)).toEqual({ ids: [firstQueued], total: 1 });
    expect(await ids(`referenceId=${second}&channel=email`)).toEqual({ ids: [], total: 0 });

    // Paging: newest first across both charges, the total of all that match.
    const all = await ids("limit=100");
    expect(all.total).toBe(5);
    expect(all.ids.slice(0, 3)).toEqual([secondScheduled, expect.any(String), expect.any(String)]);
    const page = await admin("GET", "/my-integration/notifications?limit=2&offset=1");
    expect(page.json).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.json.items.map((item: { notificationId: string }) => item.notificationId)).toEqual(all.ids.slice(1, 3));
    const past = await admin("GET", "/my-integration/notifications?offset=5");
    expect(past.json).toEqual({ items: [], total: 5, limit: 20, offset: 5 });
  });

  it("never shows another integration's notifications, not even for the same referenceId", async () => {
    const own = await integration();
    const other = await integration();
    const referenceId = uniqueRef("SAME");
    const [ownMessage] = await writeMessages(own.integrationClientId, await charge(own.merchant, referenceId), [
      { channel: "email", kind: "initial", scheduledFor: new Date("2026-11-22T15:00:00Z") },
    ]);
    const [otherMessage] = await writeMessages(other.integrationClientId, await charge(other.merchant, referenceId), [
      { channel: "email", kind: "initial", scheduledFor: new Date("2026-11-22T15:00:00Z") },
    ]);
    for (const query of ["", `?referenceId=${referenceId}`, "?channel=email&status=scheduled"]) {
      const ownList = await own.admin("GET", `/my-integration/notifications${query}`);
      expect(ownList.json.items.map((item: { notificationId: string }) => item.notificationId)).toEqual([ownMessage]);
      expect(ownList.json.total).toBe(1);
      const otherList = await other.admin("GET", `/my-integration/notifications${query}`);
      expect(otherList.json.items.map((item: { notificationId: string }) => item.notificationId)).toEqual([otherMessage]);
    }
  });

  it("lists a payment confirmation with its kind", async () => {
    const { merchant, admin, integrationClientId } = await integration();
    const chargeId = await charge(merchant, uniqueRef("CONF"));
    const transfer = await t.database.db
      .insertInto("transfers")
      .values({
        transaction_id: uniqueRef("TX"),
        amount_cents: 100_000,
        receiving_cvu: "0000003100000000000017",
        operated_at: new Date(),
        received_at: new Date(),
        source: "simulation",
        charge_id: chargeId,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const [confirmation] = await writeMessages(integrationClientId, chargeId, [
      {
        channel: "whatsapp",
        kind: "payment_confirmation",
        scheduledFor: new Date("2026-11-23T12:00:00Z"),
        transferId: transfer.id,
        status: "simulated",
        sentAt: new Date("2026-11-23T12:00:01Z"),
      },
    ]);
    const listed = await admin("GET", "/my-integration/notifications?channel=whatsapp");
    expect(listed.json.items).toEqual([
      expect.objectContaining({ notificationId: confirmation, kind: "payment_confirmation", status: "simulated", to: "+5491123456789" }),
    ]);
  });

  it("400 ValidationError for a filter or page outside the contract", async () => {
    const { admin } = await integration();
    for (const [query, field] of [
      ["channel=sms", "channel"],
      ["status=queued", "status"],
      ["status=delivered", "status"],
      ["referenceId=", "referenceId"],
      [`referenceId=${"R".repeat(101)}`, "referenceId"],
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["offset=-1", "offset"],
    ]) {
      const refused = await admin("GET", `/my-integration/notifications?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json, query).toEqual({
        code: "ValidationError",
        message: expect.any(String),
        id: expect.any(String),
        validationDetails: [expect.objectContaining({ field })],
      });
    }
  });

  it("401 UnauthorizedError without a token or with a merchant's; 403 ForbiddenError for a platform admin", async () => {
    const m = await linkedMerchant(t);
    for (const headers of [{}, { authorization: `Bearer ${m.idToken}` }]) {
      const refused = await read(await fetch(`${t.adminUrl}/my-integration/notifications`, { headers }));
      expect(refused.status).toBe(401);
      expect(refused.json).toEqual({ code: "UnauthorizedError", message: expect.any(String), id: expect.any(String) });
    }
    const platform = await signedInAdmin(t, m.sandbox.platformAdmin);
    const forbidden = await platform.call("GET", "/my-integration/notifications");
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual({ code: "ForbiddenError", message: expect.any(String), id: expect.any(String) });
  });
});
