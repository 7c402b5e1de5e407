// The delivery task's mechanics, run directly (no worker in this service: each job is run by calling the
// task's domain function, so the retry schedule needs no waiting): the whole retry schedule then
// `failed`, a slow receiver, one attempt never made twice, the SSRF guard at delivery time (a name that
// resolves to 127.0.0.1, DNS rebinding between the check and the connection), and a worker process
// killed in the middle of a delivery.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kysely, PostgresDialect, sql } from "kysely";
import type { Database } from "../../db/schema.ts";
import { ensureSigningSecret } from "../../domain/webhooks/signing-secrets.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverEventJobKey } from "../../db/job-queue.ts";
import { addressAllowed } from "../../domain/outbound/destination-guard.ts";
import { deliverEvent, RETRY_SCHEDULE_MS } from "../../domain/webhooks/delivery.ts";
import { OutboundHttpClient } from "../../domain/outbound/http-client.ts";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { linkedMerchant, serviceForFile, TEST_SECRET_KEY } from "../helpers/service.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" } });
let receiver: WebhookReceiver;
const loopback = new OutboundHttpClient({ allowLoopback: true });

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await loopback.close();
  await receiver?.close();
});

const inDays = (days: number) => dueDateIn(t.clock, days);

/** A paid charge whose payment_received event waits in the queue; its charge webhookUrl points at `url`. */
async function pendingEvent(url: string) {
  const m = await linkedMerchant(t);
  const admin = await sandboxAdmin(t, m.sandbox);
  const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [inDays(5)] }));
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  // Set directly: this is the URL as it stands at delivery time, whatever it was at registration.
  await t.database.db.updateTable("charges").set({ webhook_url: url }).where("id", "=", created.json.paymentRequestId).execute();
  await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
  const event = (await admin.events()).find((listed) => listed.payload.paymentRequestId === created.json.paymentRequestId);
  if (!event) throw new Error(`no event of ${created.json.referenceId}`);
  return { eventId: event.eventId, adminCall: admin.call };
}

async function pendingJob(eventId: string): Promise<{ id: string; run_at: Date; locked_by: string | null } | undefined> {
  const { rows } = await sql<{ id: string; run_at: Date; locked_by: string | null }>`
    select id::text, run_at, locked_by from graphile_worker._private_jobs where key = ${deliverEventJobKey(eventId)}`.execute(t.database.db);
  return rows[0];
}

const deps = (http = loopback) => ({ db: t.database.db, clock: t.clock, http });

/** Runs the event's pending job as a worker would: lock it, run the task, remove it once done. */
async function runJob(eventId: string, http = loopback) {
  const job = await pendingJob(eventId);
  if (!job) throw new Error(`no pending job for ${eventId}`);
  await sql`update graphile_worker._private_jobs set locked_at = now(), locked_by = 'test-worker' where id = ${job.id}::bigint`.execute(t.database.db);
  const outcome = await deliverEvent(deps(http), eventId, job.id);
  await sql`delete from graphile_worker._private_jobs where id = ${job.id}::bigint`.execute(t.database.db);
  return outcome;
}

/** A Kysely on the test database's pool that records every statement it sends (BEGIN and COMMIT included). */
function countingDb() {
  const statements: string[] = [];
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: {
        connect: async () => {
          const client = await t.database.pool.connect();
          return {
            query: ((text: string, params?: unknown[]) => {
              statements.push(text);
              return client.query(text, params);
            }) as typeof client.query,
            release: () => client.release(),
          };
        },
        end: async () => {},
        options: t.database.pool.options,
      },
    }),
  });
  return { db, statements };
}

describe("delivery mechanics", () => {
  it("an outcome whose claim is not in the database (a primary lost before its standby had it) fails the run, and the job run again sends it again", async () => {
    const path = `/${uniqueRef("lost-claim")}`;
    const { eventId } = await pendingEvent(receiver.url(path));
    const job = await pendingJob(eventId);
    // The request leaves once the claim has committed; meanwhile the claim goes, as the promoted standby never had it.
    const losingClaim = Object.create(loopback) as OutboundHttpClient;
    losingClaim.postJson = async (...request: Parameters<OutboundHttpClient["postJson"]>) => {
      await t.database.db.transaction().execute(async (trx) => {
        await sql`delete from delivery_attempts where event_id = ${eventId}`.execute(trx);
        await sql`delete from event_deliveries where event_id = ${eventId}`.execute(trx);
      });
      return loopback.postJson(...request);
    };
    await expect(deliverEvent(deps(losingClaim), eventId, job!.id)).rejects.toThrow(`webhook ${eventId}: the claim of attempt 1 is not in the database`);

    expect(await deliverEvent(deps(), eventId, job!.id)).toMatchObject({ kind: "attempted", attempt: 1, next: "delivered" });
    expect(receiver.at(path).map((request) => request.headers["x-service-webhook-id"])).toEqual([eventId, eventId]);
  });

  it("an attempt is two statements, the claim and the outcome, each planned once, whether the receiver accepts it or fails", async () => {
    for (const status of [200, 500]) {
      const path = `/${uniqueRef(`counted-${status}`)}`;
      const { eventId } = await pendingEvent(receiver.url(path));
      const { integration_client_id } = await t.database.db
        .selectFrom("events")
        .select("integration_client_id")
        .where("id", "=", eventId)
        .executeTakeFirstOrThrow();
      // The integration's first delivery creates its signing secret (in a transaction); every later one finds it.
      await ensureSigningSecret(t.database.db, integration_client_id, t.clock.now());
      const counting = countingDb();
      const job = await pendingJob(eventId);
      receiver.answerNext({ status });
      const outcome = await deliverEvent({ db: counting.db, clock: t.clock, http: loopback }, eventId, job!.id);
      expect(outcome).toMatchObject({ kind: "attempted", attempt: 1, next: status === 200 ? "delivered" : "retry" });
      // Each in a transaction that keeps one generic plan of it (planned again per batch size, the claim cost
      // more to plan than to run): BEGIN, the setting, the statement, COMMIT.
      const shapes = counting.statements.map((text) => {
        const kind = /^\s*with (batch|outcome) as/.exec(text)?.[1];
        return kind ? `the ${kind} statement` : text.trim();
      });
      expect(shapes, counting.statements.join("\n\n")).toEqual([
        "begin",
        "set local plan_cache_mode = force_generic_plan",
        "the batch statement",
        "commit",
        "begin",
        "set local plan_cache_mode = force_generic_plan",
        "the outcome statement",
        "commit",
      ]);
      await counting.db.destroy();
    }
  });

  it("retries on the schedule 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h, 24 h with the same id, then fails; a resend starts over", async () => {
    const path = `/${uniqueRef("always-500")}`;
    receiver.fallback = { status: 500 };
    try {
      const { eventId, adminCall } = await pendingEvent(receiver.url(path));
      for (let attempt = 1; attempt <= 9; attempt++) {
        const before = t.clock.now().getTime();
        const outcome = await runJob(eventId);
        expect(outcome).toMatchObject({
          kind: "attempted",
          attempt,
          result: { ok: false, status: 500, failure: "non_2xx" },
          next: attempt < 9 ? "retry" : "failed",
        });
        if (attempt < 9) expect((await pendingJob(eventId))!.run_at.getTime() - before).toBe(RETRY_SCHEDULE_MS[attempt - 1]);
      }
      expect(await pendingJob(eventId)).toBeUndefined();
      const requests = receiver.at(path);
      expect(requests).toHaveLength(9);
      expect(new Set(requests.map((request) => request.headers["x-service-webhook-id"]))).toEqual(new Set([eventId]));
      expect(new Set(requests.map((request) => request.rawBody)).size).toBe(1);

      const listed = await adminCall("GET", "/my-integration/events?delivered=false");
      const failed = listed.json.items.find((item: { eventId: string }) => item.eventId === eventId);
      expect(failed).toMatchObject({ deliveryStatus: "failed", webhookId: eventId });
      expect(failed).not.toHaveProperty("nextAttemptAt");
      expect(failed.attempts.map((attempt: { attempt: number; error: string }) => [attempt.attempt, attempt.error])).toEqual(
        Array.from({ length: 9 }, (_, i) => [i + 1, "non_2xx"]),
      );
      expect(failed.attempts[0]).not.toHaveProperty("body");

      receiver.fallback = { status: 204 };
      const resent = await adminCall("POST", `/my-integration/events/${eventId}/resend`);
      expect(resent.status).toBe(202);
      expect(resent.json).toMatchObject({ deliveryStatus: "pending", webhookId: eventId });
      const outcome = await runJob(eventId);
      expect(outcome).toMatchObject({ kind: "attempted", attempt: 10, next: "delivered" });
      expect(await pendingJob(eventId)).toBeUndefined();
      expect(receiver.at(path)[9]!.headers["x-service-webhook-id"]).toBe(eventId);
    } finally {
      receiver.fallback = { status: 200 };
    }
  });

  it("an answer after the deadline is a timeout (the deadline lowered through the client's documented timeoutMs option)", async () => {
    const fast = new OutboundHttpClient({ allowLoopback: true, timeoutMs: 300 });
    try {
      const path = `/${uniqueRef("slow")}`;
      receiver.answerNext({ status: 200, delayMs: 1200 });
      const { eventId } = await pendingEvent(receiver.url(path));
      const outcome = await runJob(eventId, fast);
      expect(outcome).toMatchObject({ kind: "attempted", attempt: 1, result: { ok: false, failure: "timeout" }, next: "retry" });
      if (outcome.kind !== "attempted") throw new Error("not attempted");
      expect(outcome.result.durationMs).toBeGreaterThanOrEqual(290);
      expect(outcome.result.durationMs).toBeLessThan(1200);
      expect(outcome.result.status).toBeUndefined();
    } finally {
      await fast.close();
    }
  });

  it("two workers running the same event's job at once make one attempt, not two", async () => {
    const path = `/${uniqueRef("once")}`;
    receiver.answerNext({ status: 200, delayMs: 300 });
    const { eventId } = await pendingEvent(receiver.url(path));
    const job = await pendingJob(eventId);
    const outcomes = await Promise.all([deliverEvent(deps(), eventId, job!.id), deliverEvent(deps(), eventId, "another-job")]);
    expect(outcomes.map((outcome) => outcome.kind).sort()).toEqual(["attempted", "in_flight"]);
    expect(receiver.at(path)).toHaveLength(1);
    const attempts = await t.database.db.selectFrom("delivery_attempts").selectAll().where("event_id", "=", eventId).execute();
    expect(attempts).toHaveLength(1);
    // The job that found the attempt in flight came back later instead of vanishing; it then finds the event delivered.
    const later = await pendingJob(eventId);
    expect(later).toBeDefined();
    expect(await deliverEvent(deps(), eventId, later!.id)).toEqual({ kind: "settled", status: "delivered" });
  });

  it("at delivery time, a name that resolves to 127.0.0.1 is refused when loopback is not allowed, and nothing is sent", async () => {
    const guarded = new OutboundHttpClient({ allowLoopback: false });
    try {
      const path = `/${uniqueRef("inside")}`;
      const { eventId } = await pendingEvent(`https://localhost:${receiver.port}${path}`);
      const outcome = await runJob(eventId, guarded);
      expect(outcome).toMatchObject({ kind: "attempted", result: { ok: false, failure: "blocked_address" }, next: "retry" });
      expect(receiver.at(path)).toHaveLength(0);
    } finally {
      await guarded.close();
    }
  });

  it("DNS rebinding: a name that was public when checked and resolves to loopback when connecting is refused at connect time", async () => {
    let lookups = 0;
    const rebinding = new OutboundHttpClient({ allowLoopback: false, resolve: async () => (++lookups === 1 ? ["93.184.216.34"] : ["127.0.0.1"]) });
    try {
      const path = `/${uniqueRef("rebind")}`;
      const result = await rebinding.postJson(`https://rebind.example:${receiver.port}${path}`, "{}", {});
      expect(result).toMatchObject({ ok: false, failure: "blocked_address" });
      expect(lookups).toBe(2);
      expect(receiver.at(path)).toHaveLength(0);
    } finally {
      await rebinding.close();
    }
  });

  it("the guard's address classes: loopback, private, link-local, CGNAT, metadata, IPv6 equivalents and IPv4-mapped forms are refused", async () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fc00::1",
      "fd12::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "::",
      "224.0.0.1",
    ]) {
      expect(addressAllowed(address, false), address).toBe(false);
    }
    expect(addressAllowed("127.0.0.1", true)).toBe(true);
    expect(addressAllowed("10.1.2.3", true)).toBe(false);
    expect(addressAllowed("93.184.216.34", false)).toBe(true);
    expect(addressAllowed("2606:2800:220:1:248:1893:25c8:1946", false)).toBe(true);
    const guarded = new OutboundHttpClient({ allowLoopback: false });
    try {
      for (const url of ["https://169.254.169.254/latest/meta-data", "https://[::ffff:127.0.0.1]:1/", "https://[::1]:1/", "http://93.184.216.34/"]) {
        expect((await guarded.postJson(url, "{}", {})).failure, url).toBe("blocked_address");
      }
    } finally {
      await guarded.close();
    }
  });

  it("a worker process killed in the middle of a delivery loses nothing: after restart the event is delivered with the same id", async () => {
    const path = `/${uniqueRef("killed")}`;
    receiver.answerNext({ status: 200, delayMs: 60_000 }); // the first request hangs until the worker dies
    const { eventId, adminCall } = await pendingEvent(receiver.url(path));
    const dataDir = mkdtempSync(join(tmpdir(), "cobro-worker-"));
    const startWorkerProcess = () => {
      const child = spawn(process.execPath, [join(import.meta.dirname, "..", "..", "server", "main.ts"), "--only", "worker"], {
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "/tmp",
          LOG_LEVEL: "warn",
          DATABASE_URL: t.database.connectionString,
          COBRO_DATA_DIR: dataDir,
          COBRO_ALLOW_LOOPBACK_URLS: "true",
          COBRO_SECRET_KEY: TEST_SECRET_KEY,
          COBRO_METRICS_PORT: "0",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (chunk) => (output += chunk));
      child.stderr!.on("data", (chunk) => (output += chunk));
      return { child, output: () => output, exited: new Promise<void>((resolve) => child.on("exit", () => resolve())) };
    };
    try {
      const first = startWorkerProcess();
      await receiver.waitFor(1, { path, timeoutMs: 30_000 }).catch((error) => {
        throw new Error(`${error}\n${first.output()}`);
      });
      first.child.kill("SIGKILL");
      await first.exited;

      // The attempt was claimed and has no outcome; the job is still locked by the dead worker.
      const claimed = await t.database.db.selectFrom("delivery_attempts").selectAll().where("event_id", "=", eventId).execute();
      expect(claimed).toMatchObject([{ attempt: 1, finished_at: null }]);
      const job = await pendingJob(eventId);
      expect(job?.locked_by).toBeTruthy();
      // graphile-worker frees a dead worker's jobs after 4 hours; an operator (or this test) does it at once.
      await sql`select graphile_worker.force_unlock_workers(array[${job!.locked_by}]::text[])`.execute(t.database.db);

      const second = startWorkerProcess();
      try {
        const requests = await receiver.waitFor(2, { path, timeoutMs: 30_000 }).catch((error) => {
          throw new Error(`${error}\n${second.output()}`);
        });
        expect(requests.map((request) => request.headers["x-service-webhook-id"])).toEqual([eventId, eventId]);
        const secret = (await adminCall("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
        expect(verifyWebhookSignature(requests[1]!.rawBody, requests[1]!.headers["x-service-signature"] as string, secret)).toBe(true);
        const deadline = Date.now() + 10_000;
        let attempts = await t.database.db.selectFrom("delivery_attempts").selectAll().where("event_id", "=", eventId).orderBy("attempt").execute();
        while (attempts.length < 2 || attempts[1]!.finished_at === null) {
          if (Date.now() > deadline) throw new Error(`attempts: ${JSON.stringify(attempts)}`);
          await new Promise((resolve) => setTimeout(resolve, 20));
          attempts = await t.database.db.selectFrom("delivery_attempts").selectAll().where("event_id", "=", eventId).orderBy("attempt").execute();
        }
        expect(attempts).toMatchObject([
          { attempt: 1, error: "interrupted" },
          { attempt: 2, error: null, response_status: 200 },
        ]);
        const delivered = await adminCall("GET", "/my-integration/events?delivered=true");
        expect(delivered.json.items.find((item: { eventId: string }) => item.eventId === eventId)).toMatchObject({ deliveryStatus: "delivered" });
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
