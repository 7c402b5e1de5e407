// Invariants under load: two API processes and two workers on one PostgreSQL take a mixed load for
// COBRO_SOAK_SECONDS (15 s by default; 60 s or more locally) — creates in CVU and CUIL mode, bulks,
// simulated transfers (some to the same charge at once), bank feed transfers sent twice with the same
// transaction id, cancels, Sandbox clock moves, a merchant unlinked half-way and a worker killed — and
// afterwards the database and the receivers are checked: money conserved, the CVU pool consistent,
// every event delivered at least once under its own id, nothing of the unlinked merchant sent after (only
// a request already on its way when the unlink committed may still arrive, within the delivery deadline).
import { createHmac, randomInt } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { setDailyMessageCap } from "../../domain/limits/message-caps.ts";
import { DELIVERY_TIMEOUT_MS } from "../../domain/outbound/http-client.ts";
import { chargeBody } from "../helpers/charges.ts";
import { ledgerViolations, NO_LEDGER_VIOLATIONS } from "../helpers/ledger-invariants.ts";
import { startCobroCluster, type ClusterIntegration, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { bearerCaller, read, type ApiCall } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const SOAK_SECONDS = Number(process.env.COBRO_SOAK_SECONDS ?? 15);
const BANK_FEED_SECRET = "soak-bank-feed-secret";
const CHAT_MESSAGES_PER_DAY = 4;
const PAYERS = ["20301234563", "27111111117", "20222222223", "20333333334"];

let cluster: CobroCluster;
let receiver: WebhookReceiver;

beforeAll(async () => {
  cluster = await startCobroCluster({ COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET });
  receiver = await startWebhookReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await cluster?.close();
}, 60_000);

interface Tenant {
  integration: ClusterIntegration;
  /** Its merchant's and its admin's calls, one per API process. */
  merchantCalls: ApiCall[];
  adminCalls: ApiCall[];
  charges: Array<{ referenceId: string; cvu: string; payer?: string }>;
  unlinkedAt?: Date;
  merchantAccountId?: string;
}

it(`keeps every invariant through ${SOAK_SECONDS} s of mixed load on two API processes and two workers, with a worker killed`, async () => {
  const [first, second] = await Promise.all([
    cluster.startApi({ COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET }),
    cluster.startExtraApi({ COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET }),
  ]);
  let workers = await Promise.all([cluster.startWorker(), cluster.startWorker()]);
  void first;
  const tenants: Tenant[] = [];
  for (let n = 0; n < 3; n++) {
    const integration = await cluster.integration();
    const registered = await integration.adminCall("POST", "/my-integration/urls", { url: receiver.url(`/soak-${n}`), urlType: "webhook" });
    expect(registered.status, registered.text).toBe(201);
    // A cap small enough that the load reaches it.
    await cluster.database.db.transaction().execute((trx) => setDailyMessageCap(trx, integration.integrationId, CHAT_MESSAGES_PER_DAY));
    tenants.push({
      integration,
      merchantCalls: [integration.merchantCall, bearerCaller(second.integrationUrl, integration.merchantToken)],
      adminCalls: [integration.adminCall, bearerCaller(second.adminUrl, () => integration.adminToken)],
      charges: [],
    });
  }

  const counts = new Map<string, number>();
  const count = (what: string) => counts.set(what, (counts.get(what) ?? 0) + 1);
  const serverErrors: string[] = [];
  const pick = <T>(items: T[]): T => items[randomInt(items.length)]!;
  const check = (what: string, result: Awaited<ReturnType<typeof read>>) => {
    count(`${what} ${result.status}`);
    if ((result.status === 400 || result.status === 422) && counts.get(`${what} ${result.status}`) === 1) console.log(what, result.text);
    if (result.status >= 500) serverErrors.push(`${what}: ${result.status} ${result.text.slice(0, 300)}`);
    return result;
  };
  const bankFeed = async (adminUrl: string, body: object) => {
    const raw = JSON.stringify(body);
    const t = Math.floor(Date.now() / 1000);
    const signature = createHmac("sha256", BANK_FEED_SECRET).update(`${t}.`).update(raw).digest("hex");
    return read(
      await fetch(`${adminUrl}/internal/bank-feed/transfers`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-bank-feed-signature": `t=${t},v1=${signature}` },
        body: raw,
      }),
    );
  };
  const adminUrls = [cluster.adminUrl, second.adminUrl];

  const operations: Record<string, (tenant: Tenant) => Promise<void>> = {
    "create cvu": async (tenant) => {
      const referenceId = uniqueRef("SOAK");
      const created = check("create cvu", await pick(tenant.merchantCalls)("POST", "/payment-request", chargeBody({ referenceId, amount: 1000 })));
      if (created.status === 201) tenant.charges.push({ referenceId, cvu: created.json.CVU });
    },
    "create with chat message": async (tenant) => {
      // Counts against the integration's daily cap of chat messages (CHAT_MESSAGES_PER_DAY here): soon 429.
      const referenceId = uniqueRef("CHAT");
      const body = chargeBody({
        referenceId,
        sendWhatsappNotification: true,
        customer: { name: "Juan Pérez", phoneNumber: { countryCode: "+54", number: "91123456789" } },
      });
      const created = check("create with chat message", await pick(tenant.merchantCalls)("POST", "/payment-request", body));
      if (created.status === 201) tenant.charges.push({ referenceId, cvu: created.json.CVU });
    },
    "create cuil": async (tenant) => {
      const referenceId = uniqueRef("SOAK");
      const payer = pick(PAYERS);
      const created = check(
        "create cuil",
        await pick(tenant.merchantCalls)(
          "POST",
          "/payment-request",
          chargeBody({ referenceId, conciliationType: "cuil", customer: { name: "Juan Pérez", taxDocument: payer } }),
        ),
      );
      if (created.status === 201) tenant.charges.push({ referenceId, cvu: created.json.CVU, payer });
    },
    bulk: async (tenant) => {
      // A bulk shares one CVU in CUIL mode: one payer per item.
      const items = PAYERS.map((payer) => chargeBody({ referenceId: uniqueRef("BULK"), amount: 500, customer: { name: "Juan Pérez", taxDocument: payer } }));
      const created = check("bulk", await pick(tenant.merchantCalls)("POST", "/payment-request/bulk", { paymentRequests: items }));
      if (created.status === 201) {
        for (const item of items) tenant.charges.push({ referenceId: item.referenceId, cvu: created.json.sharedCvu, payer: item.customer.taxDocument });
      }
    },
    "pay twice at once": async (tenant) => {
      const charge = tenant.charges.length > 0 ? pick(tenant.charges) : undefined;
      if (!charge) return;
      const pay = () =>
        pick(tenant.adminCalls)("POST", "/my-integration/simulate-payment", {
          externalAccountCvu: "0000003100000000000017",
          externalAccountCuil: charge.payer ?? pick(PAYERS),
          externalAccountName: "Juan Pérez",
          cvu: charge.cvu,
          amount: randomInt(1, 7) * 100,
        });
      for (const result of await Promise.all([pay(), pay()])) check("simulate", result);
    },
    "bank feed twice": async (tenant) => {
      const charge = tenant.charges.length > 0 ? pick(tenant.charges) : undefined;
      if (!charge) return;
      const body = {
        transactionId: uniqueRef("BNK"),
        amount: 300,
        receivingCvu: charge.cvu,
        senderCuil: charge.payer ?? pick(PAYERS),
        senderName: "Juan Pérez",
        operatedAt: new Date().toISOString(),
      };
      for (const result of await Promise.all([bankFeed(pick(adminUrls), body), bankFeed(pick(adminUrls), body)])) check("bank feed", result);
    },
    cancel: async (tenant) => {
      const charge = tenant.charges.length > 0 ? pick(tenant.charges) : undefined;
      if (!charge) return;
      check("cancel", await pick(tenant.merchantCalls)("POST", `/payment-request/${charge.referenceId}/cancel`, {}));
    },
    "clock move": async (tenant) => {
      check("clock move", await pick(tenant.adminCalls)("POST", "/my-integration/sandbox-clock", { advanceBy: "PT6H" }));
      await tenant.integration.renewMerchantToken();
    },
  };
  const weights: Array<[string, number]> = [
    ["create cvu", 6],
    ["create with chat message", 2],
    ["create cuil", 3],
    ["bulk", 1],
    ["pay twice at once", 5],
    ["bank feed twice", 2],
    ["cancel", 1],
    ["clock move", 1],
  ];
  const weighted = weights.flatMap(([name, weight]) => Array<string>(weight).fill(name));

  const endAt = Date.now() + SOAK_SECONDS * 1000;
  let faults = 0;
  const unlinkAt = Date.now() + (SOAK_SECONDS * 1000) / 2;
  const killAt = Date.now() + (SOAK_SECONDS * 1000) / 3;
  const actor = async () => {
    while (Date.now() < endAt) {
      const tenant = pick(tenants.filter((candidate) => candidate.unlinkedAt === undefined));
      const operation = pick(weighted);
      try {
        await operations[operation]!(tenant);
      } catch (error) {
        serverErrors.push(`${operation}: ${(error as Error).message}`);
      }
    }
  };
  const chaos = async () => {
    while (Date.now() < killAt) await new Promise((resolve) => setTimeout(resolve, 100));
    await cluster.kill(workers[0]!);
    faults++;
    workers = [await cluster.startWorker(), workers[1]!];
    while (Date.now() < unlinkAt) await new Promise((resolve) => setTimeout(resolve, 100));
    const unlinked = tenants[2]!;
    // The link of the merchant whose charges the load makes (the Sandbox's test merchant of the test tokens).
    const link = await cluster.database.db
      .selectFrom("merchant_links")
      .innerJoin("charges", (join) =>
        join
          .onRef("charges.merchant_account_id", "=", "merchant_links.merchant_account_id")
          .onRef("charges.integration_client_id", "=", "merchant_links.integration_client_id"),
      )
      .select(["merchant_links.id", "merchant_links.merchant_account_id"])
      .where("merchant_links.integration_client_id", "=", unlinked.integration.integrationId)
      .limit(1)
      .executeTakeFirstOrThrow();
    unlinked.merchantAccountId = link.merchant_account_id;
    unlinked.unlinkedAt = new Date(); // before the request: nothing of it may be delivered after it answered
    const answer = await unlinked.integration.adminCall("DELETE", `/my-integration/users/${link.id}`);
    expect(answer.status, answer.text).toBe(204);
    unlinked.unlinkedAt = new Date();
    // Its charges stay payable: a payment now makes an event the integration must never receive.
    const charge = unlinked.charges.find((candidate) => candidate.payer === undefined);
    if (charge) {
      const paid = await pick(unlinked.adminCalls)("POST", "/my-integration/simulate-payment", {
        externalAccountCvu: "0000003100000000000017",
        externalAccountCuil: pick(PAYERS),
        externalAccountName: "Juan Pérez",
        cvu: charge.cvu,
        amount: 100,
      });
      check("simulate after unlink", paid);
    }
  };
  await Promise.all([...Array.from({ length: 6 }, actor), chaos()]);
  const operationsDone = [...counts.values()].reduce((sum, n) => sum + n, 0);

  // Every event that is to be delivered is, or is settled otherwise.
  const settling = Date.now();
  const db = cluster.database.db;
  await expect
    .poll(
      async () =>
        (
          await sql<{ n: number }>`select count(*)::int as n from events e left join event_deliveries d on d.event_id = e.id
           where e.occurred_while_unlinked = false and (d.status is null or d.status = 'pending')`.execute(db)
        ).rows[0]!.n,
      { timeout: 60_000, interval: 500 },
    )
    .toBe(0);
  const settledInMs = Date.now() - settling;

  // Caps: no day's count of chat messages above the integration's cap, and every one counted is a charge.
  const capsExceeded = await sql`
    select u.scope, u.day, u.messages from daily_message_usage u
     where u.scope like 'integration:%' and u.messages > ${CHAT_MESSAGES_PER_DAY}`.execute(db);
  const countedOff = await sql`
    select i.id, (select coalesce(sum(messages), 0)::int from daily_message_usage u where u.scope = 'integration:' || i.id) as counted,
           (select count(*)::int from charges c where c.integration_client_id = i.id and c.send_whatsapp_notification) as charges
      from integration_clients i
     where (select coalesce(sum(messages), 0)::int from daily_message_usage u where u.scope = 'integration:' || i.id)
        <> (select count(*)::int from charges c where c.integration_client_id = i.id and c.send_whatsapp_notification)`.execute(db);
  expect(capsExceeded.rows).toEqual([]);
  expect(countedOff.rows).toEqual([]);
  expect(await ledgerViolations(db)).toEqual(NO_LEDGER_VIOLATIONS);

  // Deliveries: every delivered event reached its receiver under its own id; nothing of the unlinked
  // merchant after its unlink.
  const delivered = await db
    .selectFrom("event_deliveries")
    .innerJoin("events", "events.id", "event_deliveries.event_id")
    .select(["events.id", "events.integration_client_id"])
    .where("event_deliveries.status", "=", "delivered")
    .execute();
  const received = new Map<string, number>();
  for (const request of receiver.requests) {
    const id = request.headers["x-service-webhook-id"];
    if (typeof id === "string") received.set(id, (received.get(id) ?? 0) + 1);
  }
  const lost = delivered.filter((event) => !received.has(event.id));
  expect(lost).toEqual([]);
  const unlinked = tenants[2]!;
  const unlinkedEvents = await db
    .selectFrom("events")
    .select(["id", "occurred_while_unlinked"])
    .where("integration_client_id", "=", unlinked.integration.integrationId)
    .where("merchant_account_id", "=", unlinked.merchantAccountId!)
    .execute();
  const unlinkedEventIds = new Set(unlinkedEvents.map((event) => event.id));
  const occurredWhileUnlinked = new Set(unlinkedEvents.filter((event) => event.occurred_while_unlinked).map((event) => event.id));
  const receivedOf = (ids: Set<string>) => receiver.requests.filter((request) => ids.has(String(request.headers["x-service-webhook-id"])));
  // An event that occurred after the unlink is never sent, at any time.
  expect(receivedOf(occurredWhileUnlinked)).toEqual([]);
  // An event from before it is not sent once the unlink has answered: every attempt checks the link when
  // it is claimed. One claimed just before the unlink committed is already on its way and cannot be
  // recalled; it arrives within the 5-second delivery deadline, so nothing may arrive later than that.
  const afterUnlink = receivedOf(unlinkedEventIds).filter((request) => request.at > unlinked.unlinkedAt!.getTime() + DELIVERY_TIMEOUT_MS);
  expect(afterUnlink).toEqual([]);
  const withheld = (
    await sql<{ n: number }>`
    select count(*)::int as n from events e left join event_deliveries d on d.event_id = e.id
     where e.merchant_account_id = ${unlinked.merchantAccountId!} and (e.occurred_while_unlinked or d.not_sent_reason = 'merchant_unlinked')`.execute(db)
  ).rows[0]!.n;
  expect(serverErrors).toEqual([]);

  const events = (await sql<{ type: string; n: number }>`select type, count(*)::int as n from events group by type`.execute(db)).rows;
  const transfers = (await sql<{ n: number; matched: number }>`select count(*)::int as n, count(charge_id)::int as matched from transfers`.execute(db))
    .rows[0]!;
  console.log(
    [
      `soak: ${SOAK_SECONDS} s, ${operationsDone} operations (${[...counts]
        .sort()
        .map(([what, n]) => `${what}: ${n}`)
        .join(", ")})`,
      `  events: ${events.map((row) => `${row.type} ${row.n}`).join(", ")}; ${delivered.length} delivered, ${receiver.requests.length} requests received (${[...received.values()].filter((n) => n > 1).length} events received more than once)`,
      `  transfers: ${transfers.n} (${transfers.matched} matched); faults injected: ${faults} worker killed, 1 merchant unlinked (${withheld} of its events withheld); deliveries settled ${settledInMs} ms after the load`,
    ].join("\n"),
  );
  expect(operationsDone).toBeGreaterThan(SOAK_SECONDS * 5);
  expect(counts.get("create with chat message 429")).toBeGreaterThan(0); // the cap was reached, and held
}, 300_000);
