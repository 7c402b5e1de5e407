// Faults survived with real processes: an API process killed with creates in flight, a worker killed in
// the middle of a delivery and of a sweep, PostgreSQL stopped and started under load, and receivers that
// hang or flood. Each is checked afterwards from the database.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addJob } from "../../db/job-queue.ts";
import { chargeBody } from "../helpers/charges.ts";
import { startCobroCluster, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import type { StartedCobro } from "../../scripts/cobro-process.ts";

let cluster: CobroCluster;
let api: StartedCobro;
let worker: StartedCobro;
let receiver: WebhookReceiver;

beforeAll(async () => {
  cluster = await startCobroCluster();
  receiver = await startWebhookReceiver();
  [api, worker] = await Promise.all([cluster.startApi(), cluster.startWorker()]);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await cluster?.close();
}, 60_000);

const integration = () => cluster.integration();

/** The charges of an integration whose CVU hold is missing or wrong (an open charge always holds its CVU). */
async function chargesWithoutTheirHold(integrationId: string): Promise<unknown[]> {
  const { rows } = await sql`
    select c.id, c.state from charges c
     where c.integration_client_id = ${integrationId} and c.closed_at is null
       and not exists (select 1 from cvu_holds h where h.charge_id = c.id and h.cvu_account_id = c.cvu_account_id)`.execute(cluster.database.db);
  return rows;
}

/** The queue's jobs of a task (with this job key, when given). */
const jobOf = async (task: string, key?: string) =>
  (
    await sql<{
      id: string;
      locked_by: string | null;
    }>`select id, locked_by from graphile_worker.jobs where task_identifier = ${task} and (${key ?? null}::text is null or key = ${key ?? null})`.execute(
      cluster.database.db,
    )
  ).rows;

describe("an API process killed (SIGKILL) with 16 creates in flight", () => {
  it("leaves no partial charge, and every acknowledged one is there afterwards", async () => {
    const { merchantCall, integrationId } = await integration();
    const acknowledged: string[] = [];
    let refused = 0;
    let killed = false;
    // 16 callers, each creating one charge after another until the process dies: 16 creates in flight.
    const caller = async () => {
      while (!killed) {
        try {
          const referenceId = uniqueRef("KILL");
          const created = await merchantCall("POST", "/payment-request", chargeBody({ referenceId }));
          if (created.status === 201) acknowledged.push(referenceId);
          else throw new Error(`create answered ${created.status}: ${created.text}`);
        } catch (error) {
          if (!killed) throw error;
          refused++;
        }
      }
    };
    const callers = Array.from({ length: 16 }, caller);
    await expect.poll(() => acknowledged.length, { timeout: 20_000, interval: 5 }).toBeGreaterThanOrEqual(8);
    killed = true;
    await cluster.kill(api);
    await Promise.all(callers);
    console.log(`API killed: ${acknowledged.length} creates acknowledged, ${refused} cut off in flight`);
    expect(refused).toBeGreaterThan(0);

    api = await cluster.startApi();
    for (const referenceId of acknowledged) {
      const read = await merchantCall("GET", `/payment-request/${referenceId}`);
      expect(read.status, read.text).toBe(200);
      expect(read.json.CVU).toMatch(/^\d{22}$/);
    }
    expect(await chargesWithoutTheirHold(integrationId)).toEqual([]);
  }, 90_000);
});

describe("a worker killed (SIGKILL)", () => {
  it("in the middle of a delivery: the event is delivered again with the same id, within seconds", async () => {
    const { adminCall, merchantCall, sandbox } = await integration();
    const path = `/${uniqueRef("kill")}`;
    const registered = await adminCall("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
    expect(registered.status, registered.text).toBe(201);
    const charge = await merchantCall("POST", "/payment-request", chargeBody());
    expect(charge.status, charge.text).toBe(201);
    const before = receiver.at(path).length;
    // The first delivery hangs at the receiver (within the 5 s deadline): the worker dies meanwhile.
    receiver.answerNext({ status: 200, delayMs: 4_500 });
    const paid = await adminCall("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: charge.json.CVU,
      amount: 1000,
    });
    expect(paid.status, paid.text).toBe(200);
    const [first] = (await receiver.waitFor(before + 1, { path, timeoutMs: 15_000 })).slice(before);
    await cluster.kill(worker);
    const killedAt = Date.now();
    expect((await jobOf("deliver-event")).some((job) => job.locked_by !== null)).toBe(true); // held by the dead worker

    worker = await cluster.startWorker();
    const [second] = (await receiver.waitFor(before + 2, { path, timeoutMs: 30_000 })).slice(before + 1);
    const eventId = first!.headers["x-service-webhook-id"];
    expect(eventId).toBeTruthy();
    expect(second!.headers["x-service-webhook-id"]).toBe(eventId);
    console.log(`delivery taken over ${Date.now() - killedAt} ms after the worker was killed (sandbox ${sandbox.integration.clientId})`);
    await expect
      .poll(
        async () =>
          (await cluster.database.db.selectFrom("event_deliveries").select("status").where("event_id", "=", String(eventId)).executeTakeFirst())?.status,
        { timeout: 10_000 },
      )
      .toBe("delivered");
    const attempts = await cluster.database.db
      .selectFrom("delivery_attempts")
      .select(["attempt", "error"])
      .where("event_id", "=", String(eventId))
      .orderBy("attempt")
      .execute();
    expect(attempts).toEqual([
      { attempt: 1, error: "interrupted" },
      { attempt: 2, error: null },
    ]);
  }, 90_000);

  it("in the middle of the time sweep: the sweep completes on another worker", async () => {
    const { merchantCall, integrationId } = await integration();
    const charge = await merchantCall("POST", "/payment-request", chargeBody());
    expect(charge.status, charge.text).toBe(201);
    // The sweep runs on the worker's real time: the charge's last due date is made past in the database.
    await sql`update charges set final_due_at = now() - interval '1 minute', first_due_at = now() - interval '1 minute' where id = ${charge.json.paymentRequestId}`.execute(
      cluster.database.db,
    );
    const sweepKey = uniqueRef("sweep");
    // The test holds the charge's row: the sweep blocks on it, mid-run, until the worker is killed.
    const held = cluster.database.pool.connect();
    const client = await held;
    try {
      await client.query("begin");
      await client.query("select id from charges where id = $1 for update", [charge.json.paymentRequestId]);
      await addJob(cluster.database.db, "time-transitions", {}, { jobKey: sweepKey });
      await expect.poll(async () => (await jobOf("time-transitions", sweepKey))[0]?.locked_by ?? null, { timeout: 15_000 }).not.toBeNull();
      await cluster.kill(worker);
    } finally {
      await client.query("rollback");
      client.release();
    }
    const killedAt = Date.now();
    worker = await cluster.startWorker();
    expect(await jobOf("time-transitions", sweepKey)).toHaveLength(1); // still held by the dead worker
    await expect.poll(async () => (await jobOf("time-transitions", sweepKey)).length, { timeout: 30_000, interval: 200 }).toBe(0);
    const swept = await cluster.database.db
      .selectFrom("charges")
      .select(["state", "closed_at"])
      .where("id", "=", charge.json.paymentRequestId)
      .executeTakeFirstOrThrow();
    expect(swept).toMatchObject({ state: "overdue", closed_at: expect.any(Date) });
    expect(await cluster.database.db.selectFrom("cvu_holds").select("charge_id").where("charge_id", "=", charge.json.paymentRequestId).execute()).toEqual([]);
    console.log(`sweep completed ${Date.now() - killedAt} ms after its worker was killed (charge now ${swept.state})`);
    expect(await chargesWithoutTheirHold(integrationId)).toEqual([]);
  }, 90_000);
});

describe("PostgreSQL stopped and started under load", () => {
  it("answers 503 ServiceUnavailableError (never a hang, never a 500), /readyz says not ready, and recovers by itself", async () => {
    const { adminCall, merchantCall, integrationId } = await integration();
    const acknowledged: string[] = [];
    const acknowledgedReferences: string[] = [];
    const statuses = new Map<number, number>();
    const unexpected: string[] = [];
    let running = true;
    const caller = async () => {
      while (running) {
        const started = Date.now();
        let result: Awaited<ReturnType<typeof merchantCall>>;
        const referenceId = uniqueRef("PG");
        try {
          result = await merchantCall("POST", "/payment-request", chargeBody({ referenceId }));
        } catch (error) {
          unexpected.push(`no answer: ${(error as Error).message}`);
          continue;
        }
        if (Date.now() - started > 12_000) unexpected.push(`answered after ${Date.now() - started} ms`);
        statuses.set(result.status, (statuses.get(result.status) ?? 0) + 1);
        if (result.status === 201) {
          acknowledged.push(result.json.paymentRequestId);
          acknowledgedReferences.push(referenceId);
        } else if (result.status === 503) {
          if (result.json?.code !== "ServiceUnavailableError" || typeof result.json.id !== "string" || "stack" in result.json) unexpected.push(result.text);
          if (result.headers.get("retry-after") !== "5") unexpected.push("503 without Retry-After");
          await new Promise((resolve) => setTimeout(resolve, 100));
        } else unexpected.push(`${result.status} ${result.text.slice(0, 300)}`);
      }
    };
    const callers = Array.from({ length: 4 }, caller);
    await expect.poll(() => acknowledged.length, { timeout: 20_000 }).toBeGreaterThan(4);
    await cluster.stopPostgres();
    await expect.poll(() => (statuses.get(503) ?? 0) + unexpected.length, { timeout: 20_000 }).toBeGreaterThan(3);
    expect(unexpected).toEqual([]);
    const readiness = await fetch(`${cluster.integrationUrl}/readyz`, { signal: AbortSignal.timeout(12_000) });
    expect(readiness.status).toBe(503);
    expect(await readiness.json()).toEqual({ status: "unavailable" });

    await cluster.startPostgres();
    await expect.poll(async () => (await fetch(`${cluster.integrationUrl}/readyz`)).status, { timeout: 30_000, interval: 250 }).toBe(200);
    const acknowledgedBeforeRecovery = acknowledged.length;
    await expect.poll(() => acknowledged.length, { timeout: 20_000 }).toBeGreaterThan(acknowledgedBeforeRecovery + 4);
    running = false;
    await Promise.all(callers);
    const runnerEnds = worker.output().split("the job worker stopped by itself").length - 1;
    console.log(
      `PostgreSQL outage: ${JSON.stringify(Object.fromEntries(statuses))} (status: answers), ${acknowledged.length} creates acknowledged, worker's runner ended by itself ${runnerEnds} times (and was started again)`,
    );
    expect(unexpected).toEqual([]);
    const stored = await cluster.database.db.selectFrom("charges").select("id").where("id", "in", acknowledged).execute();
    expect(stored.length).toBe(acknowledged.length);
    expect(await chargesWithoutTheirHold(integrationId)).toEqual([]);
    // The processes stayed up through the outage, and the worker delivers again.
    expect(api.child.exitCode, api.output().slice(-3_000)).toBeNull();
    expect(worker.child.exitCode, worker.output().slice(-3_000)).toBeNull();
    const path = `/${uniqueRef("after-outage")}`;
    expect((await adminCall("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" })).status).toBe(201);
    const charge = (await merchantCall("GET", `/payment-request/${acknowledgedReferences[0]}`)).json;
    const paid = await adminCall("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: charge.CVU,
      amount: 1000,
    });
    expect(paid.status, paid.text).toBe(200);
    const [event] = (await receiver.waitFor(2, { path, timeoutMs: 20_000 })).slice(1);
    expect(event!.json).toMatchObject({ event: "payment_request.payment_received", referenceId: acknowledgedReferences[0] });
  }, 120_000);
});

describe("receivers that hang or flood", () => {
  let server: Server;
  let behaviour: "hang" | "flood" = "hang";
  const floods: Array<{ bytesWritten: number; closedAfterMs?: number }> = [];

  beforeAll(async () => {
    // These tests need a live worker whatever became of the one the tests above left (their own
    // assertions report a worker that died).
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) worker = await cluster.startWorker();
    server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        if (req.url?.includes("ping") || req.headers["x-service-webhook-id"] === undefined) return void res.writeHead(200).end();
        if (behaviour === "hang") return; // never answers
        // 500 with a body that never ends: Cobro reads at most 64 KB of it, then drops the connection.
        const flood = { bytesWritten: 0 } as (typeof floods)[number];
        floods.push(flood);
        const started = Date.now();
        res.writeHead(500, { "content-type": "text/plain" });
        const chunk = Buffer.alloc(64 * 1024, "x");
        const write = () => {
          while (!res.destroyed && flood.bytesWritten < 512 * 1024 * 1024) {
            flood.bytesWritten += chunk.length;
            if (!res.write(chunk)) return;
          }
          res.end();
        };
        res.on("drain", write);
        res.on("close", () => (flood.closedAfterMs = Date.now() - started));
        write();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const deliverTo = async (path: string) => {
    const { adminCall, merchantCall } = await integration();
    const registered = await adminCall("POST", "/my-integration/urls", {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
      urlType: "webhook",
    });
    expect(registered.status, registered.text).toBe(201);
    const charge = await merchantCall("POST", "/payment-request", chargeBody());
    const paid = await adminCall("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: charge.json.CVU,
      amount: 1000,
    });
    expect(paid.status, paid.text).toBe(200);
    const event = await cluster.database.db.selectFrom("events").select("id").where("charge_id", "=", charge.json.paymentRequestId).executeTakeFirstOrThrow();
    const attempt = await expect
      .poll(
        async () =>
          cluster.database.db
            .selectFrom("delivery_attempts")
            .selectAll()
            .where("event_id", "=", event.id)
            .where("finished_at", "is not", null)
            .executeTakeFirst(),
        { timeout: 20_000, interval: 100 },
      )
      .toBeDefined()
      .then(() => cluster.database.db.selectFrom("delivery_attempts").selectAll().where("event_id", "=", event.id).executeTakeFirstOrThrow());
    const delivery = await cluster.database.db.selectFrom("event_deliveries").selectAll().where("event_id", "=", event.id).executeTakeFirstOrThrow();
    return { attempt, delivery };
  };

  it("a receiver that never answers: the attempt fails as a timeout at the 5 s deadline, and is retried a minute later", async () => {
    behaviour = "hang";
    const { attempt, delivery } = await deliverTo("/hang");
    expect(attempt.error).toBe("timeout");
    expect(attempt.duration_ms).toBeGreaterThanOrEqual(4_900);
    expect(attempt.duration_ms).toBeLessThan(6_500);
    expect(delivery.status).toBe("pending");
    expect(delivery.next_attempt_at!.getTime() - attempt.finished_at!.getTime()).toBeGreaterThanOrEqual(59_000);
    expect(delivery.next_attempt_at!.getTime() - attempt.finished_at!.getTime()).toBeLessThanOrEqual(61_000);
  }, 60_000);

  it("a receiver that floods an endless body: failed with its status, at most 64 KB read, the connection dropped", async () => {
    behaviour = "flood";
    const { attempt, delivery } = await deliverTo("/flood");
    expect(attempt).toMatchObject({ error: "non_2xx", response_status: 500 });
    expect(delivery.status).toBe("pending");
    await expect.poll(() => floods[0]?.closedAfterMs, { timeout: 10_000 }).toBeDefined();
    console.log(`flooding receiver: ${floods[0]!.bytesWritten} bytes written before Cobro dropped the connection after ${floods[0]!.closedAfterMs} ms`);
    expect(floods[0]!.bytesWritten).toBeLessThan(16 * 1024 * 1024);
  }, 60_000);
});

describe("a PostgreSQL that takes no writes (a standby, or one still promoting)", () => {
  /**
   * Makes the test's database read-only for sessions that open from now on (or writable again), then ends
   * every session but this one, so that each process opens new ones with the setting.
   */
  const reopenSessions = async (readOnly: boolean) => {
    const client = await cluster.database.pool.connect();
    try {
      // This session may itself have opened read-only: the database's setting is changed from a writable one.
      await client.query("set default_transaction_read_only = off");
      const { rows } = await client.query<{ name: string }>("select current_database() as name");
      const database = client.escapeIdentifier(rows[0]!.name);
      await client.query(`alter database ${database} ${readOnly ? "set default_transaction_read_only = on" : "reset default_transaction_read_only"}`);
      await client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
    } finally {
      client.release(true);
    }
  };

  it("answers 503 ServiceUnavailableError with Retry-After (never a 500), writes nothing, and serves again once it takes writes", async () => {
    const { merchantCall } = await integration();
    await reopenSessions(true);
    const refused: string[] = [];
    try {
      // The first request after the sessions ended may meet one of them (57P01): a 503 as well, so until the log shows the refusal itself.
      await expect
        .poll(
          async () => {
            const referenceId = uniqueRef("RO");
            const result = await merchantCall("POST", "/payment-request", chargeBody({ referenceId }));
            refused.push(referenceId);
            expect(result.status, result.text).toBe(503);
            expect(result.json).toEqual({ code: "ServiceUnavailableError", message: expect.any(String), id: expect.any(String) });
            expect(result.headers.get("retry-after")).toBe("5");
            return api.output().includes("cannot execute INSERT in a read-only transaction");
          },
          { timeout: 20_000, interval: 100 },
        )
        .toBe(true);
    } finally {
      await reopenSessions(false);
    }
    expect(await cluster.database.db.selectFrom("charges").select("id").where("reference_id", "in", refused).execute()).toEqual([]);
    const referenceId = uniqueRef("RW");
    await expect.poll(async () => (await merchantCall("POST", "/payment-request", chargeBody({ referenceId }))).status, { timeout: 20_000 }).toBe(201);
    expect(api.child.exitCode, api.output().slice(-3_000)).toBeNull();
  }, 60_000);
});
