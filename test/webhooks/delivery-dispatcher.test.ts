// The delivery dispatcher with the worker running: destinations do not wait on each other (a receiver that
// holds its requests open, one that fails, and one that answers at once, each on its own origin), and every
// event arrives at least once with its webhook id. A worker killed with deliveries in hand: see
// test/runtime/faults.test.ts and the last test here.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addJob, DELIVER_EVENT_TASK, DELIVERY_TAKER_PREFIX, deliverEventJobKey } from "../../db/job-queue.ts";
import type { Database } from "../../db/schema.ts";
import { OutboundHttpClient } from "../../domain/outbound/http-client.ts";
import { startWorker, type JobWorker } from "../../jobs/queue.ts";
import { createMetrics } from "../../runtime/metrics.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { startCobroCluster, FAST_HEARTBEAT_ENV, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { runJobNow } from "../helpers/jobs.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";

/** A receiver on its own loopback origin: it records each request's webhook id and answers as `answer` says; `hold` keeps the request open until `release()`. */
interface Destination {
  url: string;
  /** The X-Service-Webhook-Id of every request received, in arrival order. */
  ids: string[];
  /** When each of them arrived (performance.now()), in the same order. */
  arrivedAt: number[];
  answer: "ok" | "fail" | "hold";
  /** Answers 200 to every request held so far. */
  release(): void;
  close(): Promise<void>;
}

async function startDestination(answer: Destination["answer"]): Promise<Destination> {
  const held: ServerResponse[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      destination.ids.push(String(req.headers["x-service-webhook-id"]));
      destination.arrivedAt.push(performance.now());
      if (destination.answer === "hold") held.push(res);
      else res.writeHead(destination.answer === "ok" ? 200 : 500).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const destination: Destination = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    ids: [],
    arrivedAt: [],
    answer,
    release: () => {
      for (const res of held.splice(0)) if (!res.destroyed) res.writeHead(200).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        destination.release();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return destination;
}

describe("destinations do not hold each other back", () => {
  const t = serviceForFile({
    env: { COBRO_ALLOW_LOOPBACK_URLS: "true", COBRO_DELIVERY_DISPATCHER: "true" },
    parts: ["integration", "auth", "admin", "worker"],
  });
  let held: Destination;
  let failing: Destination;
  let healthy: Destination;
  beforeAll(async () => {
    [held, failing, healthy] = await Promise.all([startDestination("hold"), startDestination("fail"), startDestination("ok")]);
  });
  afterAll(async () => {
    await Promise.all([held, failing, healthy].map((destination) => destination?.close()));
  });

  /** Charges whose own webhookUrl is the destination's: their events go there. Returns a payment of each, and their events' ids once paid. */
  async function chargesTo(m: Awaited<ReturnType<typeof linkedMerchant>>, admin: Awaited<ReturnType<typeof sandboxAdmin>>, url: string, count: number) {
    const charges: Array<{ id: string; cvu: string }> = [];
    for (let i = 0; i < count; i++) {
      const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)], webhookUrl: url }));
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      charges.push({ id: created.json.paymentRequestId, cvu: created.json.CVU });
    }
    return async () => {
      for (const charge of charges) {
        const paid = await admin.simulate({ cvu: charge.cvu, amount: 1000 });
        expect(paid.status, paid.text).toBe(200);
      }
      const { rows } = await sql<{ id: string }>`select id::text from events where charge_id = any(${charges.map((charge) => charge.id)}::uuid[])`.execute(
        t.database.db,
      );
      return rows.map((row) => row.id);
    };
  }

  const statusesOf = async (eventIds: string[]) =>
    (
      await sql<{
        status: string;
      }>`select coalesce(d.status, 'none') as status from unnest(${eventIds}::uuid[]) e(id) left join event_deliveries d on d.event_id = e.id`.execute(
        t.database.db,
      )
    ).rows.map((row) => row.status);
  /** The attempts of these events that have an outcome (a receiver's answer, a timeout, an interruption). */
  const finishedAttempts = async (eventIds: string[]) =>
    (
      await sql<{ n: number }>`select count(*)::int as n from delivery_attempts where event_id = any(${eventIds}::uuid[]) and finished_at is not null`.execute(
        t.database.db,
      )
    ).rows[0]!.n;

  it("a receiver holding more requests than the worker runs jobs at once, and one that fails, do not delay a third; every event then arrives with its id", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    // More deliveries to the receiver that holds its requests than the worker's concurrency (16).
    const payHeld = await chargesTo(m, admin, held.url, 20);
    const payFailing = await chargesTo(m, admin, failing.url, 3);
    const payHealthy = await chargesTo(m, admin, healthy.url, 5);
    const heldEvents = await payHeld();
    await expect.poll(() => held.ids.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(heldEvents.length);
    const failingEvents = await payFailing();
    const healthyEvents = await payHealthy();

    // The healthy destination gets all its events, and the failing one its first attempts, while every
    // request to the holding receiver is still open: none of them has an outcome yet.
    await expect.poll(() => statusesOf(healthyEvents), { timeout: 30_000 }).toEqual(healthyEvents.map(() => "delivered"));
    await expect.poll(() => failing.ids.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(failingEvents.length);
    expect(await finishedAttempts(heldEvents)).toBe(0);
    expect(new Set(healthy.ids)).toEqual(new Set(healthyEvents));

    // Then the holding receiver answers, the failing one recovers, and their retries are made due now:
    // every event arrives, each with its own id.
    held.release();
    held.answer = "ok";
    failing.answer = "ok";
    for (;;) {
      const statuses = await statusesOf([...heldEvents, ...failingEvents]);
      if (statuses.every((status) => status === "delivered")) break;
      for (const eventId of [...heldEvents, ...failingEvents]) await runJobNow(t.database.db, deliverEventJobKey(eventId));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    for (const [destination, events] of [
      [held, heldEvents],
      [failing, failingEvents],
      [healthy, healthyEvents],
    ] as const)
      expect(new Set(destination.ids)).toEqual(new Set(events));
  }, 120_000);
});

describe("a dispatcher whose database connection was lost, or whose primary was replaced, with deliveries in hand", () => {
  const t = serviceForFile({
    env: { COBRO_ALLOW_LOOPBACK_URLS: "true", COBRO_DELIVERY_DISPATCHER: "true" },
    parts: ["integration", "auth", "admin", "worker"],
  });
  let held: Destination;
  let healthy: Destination;
  beforeAll(async () => {
    [held, healthy] = await Promise.all([startDestination("hold"), startDestination("ok")]);
  });
  afterAll(async () => {
    await Promise.all([held, healthy].map((destination) => destination?.close()));
  });

  /** A paid charge whose own webhookUrl is `url`: the ids of its events. */
  async function paidChargeTo(url: string): Promise<string[]> {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)], webhookUrl: url }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const paid = await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
    expect(paid.status, paid.text).toBe(200);
    const { rows } = await sql<{ id: string }>`select id::text from events where charge_id = ${created.json.paymentRequestId}`.execute(t.database.db);
    expect(rows.length).toBeGreaterThan(0);
    return rows.map((row) => row.id);
  }
  const statusOf = async (eventId: string) =>
    (await sql<{ status: string }>`select status from event_deliveries where event_id = ${eventId}`.execute(t.database.db)).rows[0]?.status ?? "none";
  const dispatcherId = async () =>
    (await sql<{ worker_id: string }>`select worker_id from worker_heartbeats where worker_id like ${`${DELIVERY_TAKER_PREFIX}%`}`.execute(t.database.db))
      .rows[0]!.worker_id;
  /** The event as it was before its first attempt, its job added again as `job` leaves it (in the same transaction). */
  async function undeliver(eventId: string, job: (trx: Kysely<Database>, jobKey: string) => Promise<unknown>) {
    await t.database.db.transaction().execute(async (trx) => {
      await sql`delete from delivery_attempts where event_id = ${eventId}`.execute(trx);
      await sql`delete from event_deliveries where event_id = ${eventId}`.execute(trx);
      await job(trx, deliverEventJobKey(eventId));
    });
  }

  it("a job whose take committed but never reached the dispatcher (the answer lost with its connection) is given back and delivered", async () => {
    const [eventId] = await paidChargeTo(healthy.url);
    await expect.poll(() => statusOf(eventId!), { timeout: 30_000 }).toBe("delivered");
    // As a lost take leaves it: locked by the live dispatcher, whose heartbeat keeps it, for an event never attempted.
    const takenBy = await dispatcherId();
    await undeliver(eventId!, async (trx, jobKey) => {
      await addJob(trx, DELIVER_EVENT_TASK, { eventId: eventId! }, { jobKey });
      await sql`update graphile_worker._private_jobs set locked_by = ${takenBy}, locked_at = now() - interval '1 minute', attempts = 1 where key = ${jobKey}`.execute(
        trx,
      );
    });
    const before = healthy.ids.length;
    await expect.poll(() => statusOf(eventId!), { timeout: 60_000 }).toBe("delivered");
    expect(healthy.ids.slice(before)).toEqual([eventId]);
  }, 120_000);

  it("an outcome recorded after the job's id went to another event's job (a new primary's sequence) completes only its own job", async () => {
    const heldEvents = await paidChargeTo(held.url);
    await expect.poll(() => heldEvents.every((id) => held.ids.includes(id)), { timeout: 30_000 }).toBe(true);
    const [otherEvent] = await paidChargeTo(healthy.url);
    await expect.poll(() => statusOf(otherEvent!), { timeout: 30_000 }).toBe("delivered");

    // While the held event's request is open, its job's id becomes another event's pending job (due later,
    // so nothing takes it meanwhile): what a failover leaves when the transaction that added the held job
    // was lost with the old primary and the new one's sequence gave its id again.
    const heldJob = await sql<{ id: string }>`select id::text from graphile_worker._private_jobs where key = ${deliverEventJobKey(heldEvents[0]!)}`.execute(
      t.database.db,
    );
    const reusedId = heldJob.rows[0]!.id;
    await undeliver(otherEvent!, async (trx, jobKey) => {
      // Deleted as its dispatcher would (the queue's guard lets only the holder delete a job).
      const holder = await sql<{ locked_by: string }>`select locked_by from graphile_worker._private_jobs where id = ${reusedId}::bigint`.execute(trx);
      await sql`select set_config('cobro.job_taker', ${holder.rows[0]!.locked_by}, true)`.execute(trx);
      await sql`delete from graphile_worker._private_jobs where id = ${reusedId}::bigint`.execute(trx);
      await addJob(trx, DELIVER_EVENT_TASK, { eventId: otherEvent! }, { jobKey, runAt: new Date(Date.now() + 3_600_000) });
      // Its id is an identity column: the row is written again with the id given (held by the test while it
      // is deleted, as only the holder deletes a job).
      await sql`update graphile_worker._private_jobs set locked_by = 'test', locked_at = now() where key = ${jobKey}`.execute(trx);
      await sql`
        with fresh as (delete from graphile_worker._private_jobs where key = ${jobKey} returning *)
        insert into graphile_worker._private_jobs (id, job_queue_id, task_id, payload, priority, run_at, attempts, max_attempts, flags)
        overriding system value
        select ${reusedId}::bigint, job_queue_id, task_id, payload, priority, run_at, attempts, max_attempts, flags from fresh`.execute(trx);
      await sql`update graphile_worker._private_jobs set key = ${jobKey} where id = ${reusedId}::bigint`.execute(trx);
    });

    held.answer = "ok";
    held.release();
    await expect.poll(() => statusOf(heldEvents[0]!), { timeout: 30_000 }).toBe("delivered");
    const job = await sql<{
      event_id: string;
    }>`select payload->>'eventId' as event_id from graphile_worker._private_jobs where id = ${reusedId}::bigint`.execute(t.database.db);
    expect(job.rows).toEqual([{ event_id: otherEvent }]);
    await runJobNow(t.database.db, deliverEventJobKey(otherEvent!));
    await expect.poll(() => statusOf(otherEvent!), { timeout: 30_000 }).toBe("delivered");
  }, 120_000);

  it("an outcome recorded where its claim is not (a primary lost before its standby had the claim) gives the job back, and the event is sent again", async () => {
    held.answer = "hold";
    const [eventId] = await paidChargeTo(held.url);
    await expect.poll(() => held.ids.includes(eventId!), { timeout: 30_000 }).toBe(true);
    // While its request is open, the claim goes, as the promoted standby never had it: no delivery, no
    // attempt; its job as it is, still taken.
    await undeliver(eventId!, async () => undefined);

    held.answer = "ok";
    held.release();
    await expect.poll(() => statusOf(eventId!), { timeout: 30_000 }).toBe("delivered");
    expect(held.ids.filter((id) => id === eventId)).toEqual([eventId, eventId]);
    const jobs = await sql`select id from graphile_worker._private_jobs where payload->>'eventId' = ${eventId}`.execute(t.database.db);
    expect(jobs.rows).toEqual([]);
  }, 120_000);
});

describe("a worker process killed (SIGKILL) with a batch of deliveries in hand", () => {
  let cluster: CobroCluster;
  let held: Destination;
  beforeAll(async () => {
    cluster = await startCobroCluster({ ...FAST_HEARTBEAT_ENV, COBRO_DELIVERY_DISPATCHER: "true" });
    held = await startDestination("hold");
  }, 120_000);
  afterAll(async () => {
    await held?.close();
    await cluster?.close();
  }, 60_000);

  it("their deliveries are taken again by another worker once its lease runs out, each with the same webhook id", async () => {
    await cluster.startApi();
    const killed = await cluster.startWorker();
    const { adminCall, merchantCall } = await cluster.integration();
    expect((await adminCall("POST", "/my-integration/urls", { url: held.url, urlType: "webhook" })).status).toBe(201);
    const chargeIds: string[] = [];
    for (let i = 0; i < 6; i++) {
      const charge = await merchantCall("POST", "/payment-request", chargeBody());
      expect(charge.status, charge.text).toBe(201);
      chargeIds.push(charge.json.paymentRequestId);
      const paid = await adminCall("POST", "/my-integration/simulate-payment", {
        externalAccountCvu: "0000003100000000000017",
        externalAccountCuil: "20301234563",
        externalAccountName: "Juan Pérez",
        cvu: charge.json.CVU,
        amount: 1000,
      });
      expect(paid.status, paid.text).toBe(200);
    }
    const { rows } = await sql<{ id: string }>`select id::text from events where charge_id = any(${chargeIds}::uuid[])`.execute(cluster.database.db);
    const eventIds = rows.map((row) => row.id);
    // Every delivery is in the worker's hands (its requests held open), then the worker dies.
    await expect.poll(() => eventIds.filter((id) => held.ids.includes(id)).length, { timeout: 30_000 }).toBe(eventIds.length);
    await cluster.kill(killed);
    const firstRound = held.ids.length;
    held.answer = "ok";
    held.release();

    await cluster.startWorker();
    await expect
      .poll(
        async () =>
          (
            await sql<{ status: string }>`select status from event_deliveries where event_id = any(${eventIds}::uuid[])`.execute(cluster.database.db)
          ).rows.filter((row) => row.status === "delivered").length,
        { timeout: 60_000 },
      )
      .toBe(eventIds.length);
    // Each was sent again after the kill, with its own id; the interrupted attempts are on record.
    expect(new Set(held.ids.slice(firstRound))).toEqual(new Set(eventIds));
    const interrupted = await sql<{ n: number }>`
      select count(*)::int as n from delivery_attempts where event_id = any(${eventIds}::uuid[]) and error = 'interrupted'`.execute(cluster.database.db);
    expect(interrupted.rows[0]!.n).toBe(eventIds.length);
  }, 180_000);
});

describe("a worker process stopped (SIGTERM, a release) with a delivery held by a slow receiver", () => {
  let cluster: CobroCluster;
  let held: Destination;
  beforeAll(async () => {
    // A heartbeat that would keep a dead worker's jobs for 10 minutes: the delivery can only arrive in the
    // test's time if the stopping worker gives it back.
    cluster = await startCobroCluster({ COBRO_WORKER_HEARTBEAT_MS: "1000", COBRO_WORKER_STALE_AFTER_MS: "600000", COBRO_DELIVERY_DISPATCHER: "true" });
    held = await startDestination("hold");
  }, 120_000);
  afterAll(async () => {
    await held?.close();
    await cluster?.close();
  }, 60_000);

  it("the stopping worker gives it back and a second worker delivers it at once, with the same webhook id", async () => {
    await cluster.startApi();
    const stopped = await cluster.startWorker();
    const { adminCall, merchantCall } = await cluster.integration();
    expect((await adminCall("POST", "/my-integration/urls", { url: held.url, urlType: "webhook" })).status).toBe(201);
    const charge = await merchantCall("POST", "/payment-request", chargeBody());
    expect(charge.status, charge.text).toBe(201);
    const paid = await adminCall("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: charge.json.CVU,
      amount: 1000,
    });
    expect(paid.status, paid.text).toBe(200);
    const { rows } = await sql<{ id: string }>`select id::text from events where charge_id = ${charge.json.paymentRequestId}::uuid`.execute(
      cluster.database.db,
    );
    const eventId = rows[0]!.id;
    await expect.poll(() => held.ids.includes(eventId), { timeout: 30_000 }).toBe(true);

    // SIGTERM while the receiver holds the request: the worker exits (with 0) without its answer.
    stopped.child.kill("SIGTERM");
    await stopped.exited;
    expect(stopped.child.exitCode).toBe(0);
    const job = await sql<{ locked_by: string | null }>`
      select locked_by from graphile_worker._private_jobs where key = ${deliverEventJobKey(eventId)}`.execute(cluster.database.db);
    expect(job.rows).toEqual([{ locked_by: null }]);

    held.answer = "ok";
    await cluster.startWorker();
    await expect
      .poll(
        async () =>
          (await sql<{ status: string }>`select status from event_deliveries where event_id = ${eventId}::uuid`.execute(cluster.database.db)).rows[0]?.status,
        { timeout: 60_000 },
      )
      .toBe("delivered");
    // Sent twice (at least once), both times with the event's id; the first attempt is on record as interrupted, not as a timeout.
    expect(held.ids.filter((id) => id === eventId).length).toBeGreaterThanOrEqual(2);
    const attempts = await sql<{ error: string | null }>`
      select error from delivery_attempts where event_id = ${eventId}::uuid order by attempt`.execute(cluster.database.db);
    expect(attempts.rows.map((row) => row.error)).toEqual(["interrupted", null]);
  }, 180_000);
});

/**
 * A worker of the test's own on the service's database that runs only the delivery dispatcher, with a poll
 * that never comes within a test: only its wake-ups bring deliveries.
 */
function dispatcherAlone(t: ReturnType<typeof serviceForFile>, settings: { batchSize?: number; maxInFlight?: number; paceMs?: number }): Promise<JobWorker> {
  return startWorker({
    connectionString: t.database.connectionString,
    taskList: {},
    pollInterval: 600_000,
    deliveries: {
      db: t.database.batches,
      clock: t.clock,
      http: new OutboundHttpClient({ allowLoopback: true }),
      metrics: createMetrics("worker"),
      ...settings,
    },
  });
}

describe("a dispatcher with its hands full when new deliveries are due", () => {
  // No worker in the service: the test runs its own, with room for two deliveries and a poll that never
  // comes within the test, so only the dispatcher's wake-ups can bring the later deliveries.
  const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin"] });
  let held: Destination;
  let healthy: Destination;
  let worker: JobWorker | undefined;
  beforeAll(async () => {
    [held, healthy] = await Promise.all([startDestination("hold"), startDestination("ok")]);
    worker = await dispatcherAlone(t, { batchSize: 2, maxInFlight: 2 });
  });
  afterAll(async () => {
    await Promise.all([held, healthy].map((destination) => destination?.close()));
    await worker?.stop();
  });

  it("takes the deliveries that came due while it was full as soon as outcomes free its room, not at its next poll", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const pay = async (url: string, count: number) => {
      for (let i = 0; i < count; i++) {
        const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)], webhookUrl: url }));
        expect(created.status, created.text).toBe(201);
        const paid = await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
        expect(paid.status, paid.text).toBe(200);
      }
    };
    // Two deliveries fill its hands, held by their receiver.
    await pay(held.url, 2);
    await expect.poll(() => held.ids.length, { timeout: 30_000 }).toBe(2);
    // Two more come due (their jobs' notification wakes it) while it has no room.
    await pay(healthy.url, 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(healthy.ids).toEqual([]);
    // The held ones end: their outcomes leave room, and the two waiting are taken then.
    held.release();
    await expect.poll(() => healthy.ids.length, { timeout: 15_000 }).toBe(2);
  }, 60_000);
});

describe("a dispatcher in a steady flow of deliveries", () => {
  // A pace far longer than a look takes, and no poll within the test: what a look finds, and when it
  // looks, show in when the receiver gets each event.
  const PACE_MS = 2_000;
  const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin"] });
  let receiver: Destination;
  let worker: JobWorker | undefined;
  let startedAt = 0;
  beforeAll(async () => {
    receiver = await startDestination("ok");
    worker = await dispatcherAlone(t, { paceMs: PACE_MS });
    startedAt = performance.now();
  });
  afterAll(async () => {
    await receiver?.close();
    await worker?.stop();
  });

  it("sends a lone event at once, and takes what comes due within the pace of its last look together, in the next look", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const charges: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)], webhookUrl: receiver.url }));
      expect(created.status, created.text).toBe(201);
      charges.push(created.json.CVU);
    }
    // Idle since its first look at start: the next look is not held back.
    const idleFor = PACE_MS - (performance.now() - startedAt);
    if (idleFor > 0) await new Promise((resolve) => setTimeout(resolve, idleFor + 100));
    const paidAt = performance.now();
    expect((await admin.simulate({ cvu: charges[0]!, amount: 1000 })).status).toBe(200);
    await expect.poll(() => receiver.ids.length, { timeout: 15_000 }).toBe(1);
    expect(receiver.arrivedAt[0]! - paidAt).toBeLessThan(PACE_MS / 2);

    // Three more within the pace of that look: they wait for the rest of it, and go in one look.
    for (const cvu of charges.slice(1)) expect((await admin.simulate({ cvu, amount: 1000 })).status).toBe(200);
    await expect.poll(() => receiver.ids.length, { timeout: 15_000 }).toBe(4);
    const later = receiver.arrivedAt.slice(1);
    expect(Math.min(...later) - receiver.arrivedAt[0]!).toBeGreaterThan(PACE_MS / 2);
    expect(Math.max(...later) - Math.min(...later)).toBeLessThan(PACE_MS / 2);
    expect(new Set(receiver.ids).size).toBe(4);
  }, 60_000);
});
