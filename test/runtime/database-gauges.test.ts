// The gauges read at scrape time (runtime/database-gauges.ts): the webhook backlog of the integrations
// with most events waiting, bounded to the top N, and today's use of the chat-message caps, each
// integration on its own (Sandbox) clock's day.
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { sampleDeliveryAndCapGauges } from "../../runtime/database-gauges.ts";
import { WAITING_EVENTS_TOP_N } from "../../runtime/metrics.ts";
import { chargeBody } from "../helpers/charges.ts";
import { metricSeries, metricValue } from "../helpers/metrics.ts";
import { serviceForFile } from "../helpers/service.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";

const START = new Date("2026-11-22T15:00:00Z"); // 12:00 in Argentina
const t = serviceForFile({ start: START, env: { COBRO_GLOBAL_DAILY_MESSAGE_CAP: "100" } });

const sample = () => sampleDeliveryAndCapGauges(t.database.db, t.service.metrics, t.clock.now(), t.config);
const MINUTE = 60_000;

async function integrationId(clientId: string): Promise<string> {
  const row = await t.database.db.selectFrom("integration_clients").select("id").where("provider_client_id", "=", clientId).executeTakeFirstOrThrow();
  return row.id;
}

/** `count` events of the integration with their delivery in `status`, the oldest created `oldestAgoMs` before now (on the integration's clock). */
async function seedEvents(integrationClientId: string, count: number, status: "pending" | "delivered", oldestAgoMs: number, clockOffsetMs = 0) {
  for (let i = 0; i < count; i++) {
    const createdAt = new Date(t.clock.now().getTime() + clockOffsetMs - oldestAgoMs + i * 1000);
    const event = await t.database.db
      .insertInto("events")
      .values({
        integration_client_id: integrationClientId,
        type: "payment.unmatched",
        payload: JSON.stringify({ event: "payment.unmatched" }),
        created_at: createdAt,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto("event_deliveries")
      .values({ event_id: event.id, status, attempts_made: 1, updated_at: createdAt, ...(status === "delivered" ? { delivered_at: createdAt } : {}) })
      .execute();
  }
}

describe("waiting events", () => {
  it(`names the ${WAITING_EVENTS_TOP_N} integrations with most events pending, with their oldest's age; one that catches up leaves the gauges`, async () => {
    const ids: string[] = [];
    for (let k = 0; k < WAITING_EVENTS_TOP_N + 2; k++) ids.push(await integrationId((await t.sandbox()).integration.clientId));
    // Integration k has k + 2 pending events, the oldest (k + 1) minutes old; delivered ones never count.
    // The last one's Sandbox clock runs an hour ahead: its events are dated on that clock.
    const last = ids.length - 1;
    await t.database.db.updateTable("integration_clients").set({ clock_offset_ms: 3_600_000 }).where("id", "=", ids[last]!).execute();
    for (const [k, id] of ids.entries()) {
      await seedEvents(id, k + 2, "pending", (k + 1) * MINUTE, k === last ? 3_600_000 : 0);
      await seedEvents(id, 20, "delivered", 30 * MINUTE);
    }

    await sample();
    const waiting = await metricSeries(t, "cobro_webhook_events_waiting");
    expect(waiting).toHaveLength(WAITING_EVENTS_TOP_N);
    const expected = ids.slice(2).map((id, i) => ({ labels: { integration: id }, value: i + 4 }));
    expect(waiting.sort((a, b) => a.value - b.value)).toEqual(expected);
    expect(await metricSeries(t, "cobro_webhook_oldest_waiting_event_age_seconds")).toHaveLength(WAITING_EVENTS_TOP_N);
    expect(await metricValue(t, "cobro_webhook_oldest_waiting_event_age_seconds", { integration: ids[last]! })).toBe((last + 1) * 60);
    expect(await metricValue(t, "cobro_webhook_oldest_waiting_event_age_seconds", { integration: ids[2]! })).toBe(3 * 60);

    // The busiest catches up: it leaves the gauges and the next one in line enters.
    await sql`update event_deliveries d set status = 'delivered', delivered_at = now() from events e
               where e.id = d.event_id and e.integration_client_id = ${ids[last]!}`.execute(t.database.db);
    await sample();
    const after = await metricSeries(t, "cobro_webhook_events_waiting");
    expect(after).toHaveLength(WAITING_EVENTS_TOP_N);
    expect(after.map((series) => series.labels.integration).sort()).toEqual(ids.slice(1, last).sort());
    expect(await metricValue(t, "cobro_webhook_oldest_waiting_event_age_seconds", { integration: ids[last]! })).toBe(0);
  });
});

describe("chat caps", () => {
  let phone = 30_000_000;
  const chatCharge = () =>
    chargeBody({ sendWhatsappNotification: true, customer: { name: "Ana López", phoneNumber: { countryCode: "+54", number: `911${++phone}` } } });

  it("shows the highest integration use, the global use and how many integrations are at their cap, each on its own day", async () => {
    // A: cap 2, both used today. B: default cap (20 in the Sandbox), 1 used today, and at its cap yesterday.
    // C: cap 1, used on its own clock's day, two days ahead (so is its global count).
    const [a, b, c] = [await sandboxIntegration(t), await sandboxIntegration(t), await sandboxIntegration(t)];
    const [aId, bId, cId] = await Promise.all([a, b, c].map(async (set) => integrationId(set.merchant.sandbox.integration.clientId)));
    await t.database.db
      .insertInto("integration_limits")
      .values([
        { integration_client_id: aId!, max_messages_per_day: 2 },
        { integration_client_id: cId!, max_messages_per_day: 1 },
      ])
      .execute();
    await t.database.db
      .insertInto("daily_message_usage")
      .values({ scope: `integration:${bId}`, day: "2026-11-21", messages: 20 })
      .execute();
    expect((await c.admin.advanceClock({ advanceTo: "2026-11-24T15:00:00Z" })).status).toBe(200);
    await a.createCharge(chatCharge());
    await a.createCharge(chatCharge());
    await b.createCharge(chatCharge());
    await c.createCharge(chatCharge());

    await sample();
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "max" })).toBe(1);
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "global" })).toBeCloseTo(3 / 100);
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "at_cap" })).toBe(2);

    // 23:00 in Argentina: still the same day for everyone (C's too, on its clock).
    t.clock.advance(11 * 60 * MINUTE);
    await sample();
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "at_cap" })).toBe(2);
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "global" })).toBeCloseTo(3 / 100);
    // 00:00 in Argentina: a new day; nothing is used yet, nor by C on its clock's new day.
    t.clock.advance(60 * MINUTE);
    await sample();
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "max" })).toBe(0);
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "global" })).toBe(0);
    expect(await metricValue(t, "cobro_chat_cap_use_ratio", { scope: "at_cap" })).toBe(0);
  });
});
