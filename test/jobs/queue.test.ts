import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { addJob, addJobsPerRow, DELIVERY_JOBS_CHANNEL, DELIVERY_TAKER_PREFIX, JOBS_INSERTED_CHANNEL, prepareQueue } from "../../db/job-queue.ts";
import { type JobWorker, startWorker } from "../../jobs/queue.ts";
import type { TaskList } from "../../jobs/tasks.ts";
import { captureLogs } from "../helpers/captured-logs.ts";
import { startCuttableProxy } from "../helpers/cuttable-proxy.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

let database: TestDatabase;
const workers: JobWorker[] = [];

beforeAll(async () => {
  database = await createTestDatabase();
});
afterEach(async () => {
  for (const worker of workers.splice(0)) await worker.stop();
  // Truncated, not deleted: the queue's guard keeps jobs nobody holds from a delete (prepareQueue).
  await sql`truncate graphile_worker._private_jobs`.execute(database.db);
});
afterAll(async () => {
  await database?.close();
});

async function worker(taskList: Partial<TaskList>, options: { stopGraceMs?: number } = {}): Promise<JobWorker> {
  const started = await startWorker({ connectionString: database.connectionString, taskList, pollInterval: 100, ...options });
  workers.push(started);
  return started;
}

async function waitFor(condition: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function pendingJobs(): Promise<{ task_identifier: string; payload: unknown; key: string | null; max_attempts: number }[]> {
  const { rows } = await sql<{ task_identifier: string; payload: unknown; key: string | null; max_attempts: number }>`
    select t.identifier as task_identifier, j.payload, j.key, j.max_attempts
    from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
    order by j.id
  `.execute(database.db);
  return rows;
}

describe("the job queue", () => {
  it("runs a job added in a committed transaction, never one whose transaction rolled back", async () => {
    const seen: (string | undefined)[] = [];
    await worker({ noop: async (payload) => void seen.push(payload.note) });

    await database.db
      .transaction()
      .execute(async (trx) => {
        await addJob(trx, "noop", { note: "rolled back" });
        throw new Error("the change failed");
      })
      .catch(() => undefined);
    await database.db.transaction().execute(async (trx) => {
      await addJob(trx, "noop", { note: "committed" });
    });

    await waitFor(() => seen.includes("committed"));
    await new Promise((resolve) => setTimeout(resolve, 300)); // time enough for a stray job to surface
    expect(seen).toEqual(["committed"]);
    expect(await pendingJobs()).toEqual([]);
  });

  it("keeps a job for later, replaces a pending one with the same key, and records max attempts", async () => {
    const later = new Date(Date.now() + 60 * 60 * 1000);
    const first = await addJob(database.db, "noop", { note: "first" }, { runAt: later, jobKey: "k1", maxAttempts: 3 });
    const second = await addJob(database.db, "noop", { note: "second" }, { runAt: later, jobKey: "k1", maxAttempts: 3 });

    expect(typeof first.id).toBe("number");
    expect(second.id).toBe(first.id);
    expect(await pendingJobs()).toEqual([{ task_identifier: "noop", payload: { note: "second" }, key: "k1", max_attempts: 3 }]);

    const seen: unknown[] = [];
    await worker({ noop: async (payload) => void seen.push(payload) });
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(seen).toEqual([]); // not before its time
  });

  it("stop() waits for the job in flight to finish", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const events: string[] = [];
    const running = await worker({
      noop: async () => {
        events.push("started");
        await gate;
        events.push("finished");
      },
    });
    await addJob(database.db, "noop", {});
    await waitFor(() => events.includes("started"));

    let stopped = false;
    const stopping = running.stop().then(() => {
      stopped = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(stopped).toBe(false);

    release();
    await stopping;
    expect(events).toEqual(["started", "finished"]);
    expect(await pendingJobs()).toEqual([]); // completed, not failed back into the queue
  });

  it("stop() gives back a job still running at the end of its grace: another worker runs it at once, not after the heartbeat goes stale", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const runs: string[] = [];
    const stopping = await worker(
      {
        noop: async () => {
          runs.push("stopping worker");
          await gate;
        },
      },
      { stopGraceMs: 200 },
    );
    await addJob(database.db, "noop", {});
    await waitFor(() => runs.includes("stopping worker"));
    await stopping.stop();
    // Released: no longer locked, and not put off (no failed attempt's backoff).
    const { rows } = await sql<{ locked_by: string | null; due: boolean; last_error: string | null }>`
      select locked_by, run_at <= now() as due, last_error from graphile_worker._private_jobs`.execute(database.db);
    expect(rows).toEqual([{ locked_by: null, due: true, last_error: null }]);

    await worker({ noop: async () => void runs.push("second worker") });
    await waitFor(async () => runs.includes("second worker") && (await pendingJobs()).length === 0);
    release();
  });
});

describe("a worker's heartbeat", () => {
  it("is recorded while the worker runs, and forgotten when it stops cleanly (it holds no job any more)", async () => {
    const heartbeats = async () =>
      (await sql<{ worker_id: string }>`select worker_id from worker_heartbeats`.execute(database.db)).rows.map((row) => row.worker_id);
    const running = await worker({ noop: async () => {} });
    await waitFor(async () => (await heartbeats()).length > 0);
    await running.stop();
    expect(await heartbeats()).toEqual([]);
  });
});

describe("a worker that loses its database", () => {
  it("keeps running: once the database answers again it takes new jobs, and runs again at once the job whose completion was lost", async () => {
    const proxy = await startCuttableProxy(database.connectionString);
    const { logger, logLines } = captureLogs("warn");
    let finishFirstRun!: () => void;
    const firstRunMayFinish = new Promise<void>((resolve) => (finishFirstRun = resolve));
    const runs: (string | undefined)[] = [];
    try {
      workers.push(
        await startWorker({
          connectionString: proxy.connectionString,
          pollInterval: 100,
          logger,
          taskList: {
            noop: async (payload) => {
              runs.push(payload.note);
              if (runs.length === 1) await firstRunMayFinish;
            },
          },
        }),
      );
      await addJob(database.db, "noop", { note: "in flight at the outage" });
      await waitFor(() => runs.length === 1);
      // The database goes away while the job runs: the job finishes, and its completion cannot be recorded.
      proxy.cut();
      finishFirstRun();
      // graphile-worker ends its runner when it cannot record the outcome.
      await waitFor(() => logLines.some((line) => String(line.msg).startsWith("Runner stopping (reason: worker pool exited with error")));
      expect(await pendingJobs()).toHaveLength(1); // still held by the runner that ended

      proxy.restore();
      await addJob(database.db, "noop", { note: "after the outage" });
      await waitFor(async () => runs.includes("after the outage") && (await pendingJobs()).length === 0, 20_000);
      // Run again now, not when graphile-worker's 4-hour lock expires.
      expect(runs.filter((note) => note === "in flight at the outage")).toHaveLength(2);
    } finally {
      finishFirstRun();
      await proxy.close();
    }
  }, 30_000);
});

describe("a job is deleted only by whoever holds it", () => {
  /** A delivery dispatcher's worker id. */
  const dispatcher = `${DELIVERY_TAKER_PREFIX}0b5e`;
  // graphile-worker 0.18's completion of one job (dist/sql/completeJobs.js): by its id alone.
  const completeAsTheQueueDoes = (id: number) => sql`delete from graphile_worker._private_jobs as jobs where id = ${id}::bigint`.execute(database.db);
  const stillThere = async (id: number) =>
    (await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs where id = ${id}::bigint`.execute(database.db)).rows[0]!.n === 1;
  const lock = (id: number, by: string) =>
    sql`update graphile_worker._private_jobs set locked_by = ${by}, locked_at = now() where id = ${id}::bigint`.execute(database.db);

  it("is installed by processes starting at once without one of them failing", async () => {
    const pool = new pg.Pool({ connectionString: database.connectionString, max: 8 });
    try {
      const starts = await Promise.allSettled(Array.from({ length: 8 }, () => prepareQueue({ pool })));
      expect(starts.filter((start) => start.status === "rejected")).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it("a completion by id spares a job nobody holds and one a delivery dispatcher holds: an id a new primary gave again", async () => {
    const waiting = await addJob(database.db, "noop", {});
    await completeAsTheQueueDoes(waiting.id);
    expect(await stillThere(waiting.id)).toBe(true);

    await lock(waiting.id, dispatcher);
    await completeAsTheQueueDoes(waiting.id);
    expect(await stillThere(waiting.id)).toBe(true);
  });

  it("the holder completes it: a queue pool's job by id, a dispatcher's by a statement that names the dispatcher", async () => {
    const pools = await addJob(database.db, "noop", {});
    await lock(pools.id, "pool-4f1c");
    await completeAsTheQueueDoes(pools.id);
    expect(await stillThere(pools.id)).toBe(false);

    const dispatchers = await addJob(database.db, "noop", {});
    await lock(dispatchers.id, dispatcher);
    await database.db.transaction().execute(async (trx) => {
      await sql`select set_config('cobro.job_taker', ${dispatcher}, true)`.execute(trx);
      await sql`delete from graphile_worker._private_jobs where id = ${dispatchers.id}::bigint`.execute(trx);
    });
    expect(await stillThere(dispatchers.id)).toBe(false);
  });
});

describe("jobs written as rows of the queue's table (addJobsPerRow)", () => {
  const write = (task: "deliver-event" | "send-notification", ids: string[]) =>
    sql<{ n: number }>`
      with source as (select unnest(${ids}::uuid[]) as id),
           written as (${addJobsPerRow("source", task, "eventId", `${task}:`)})
      select count(*)::int as n from written`.execute(database.db);

  it("one job per row with graphile-worker's defaults, the workers woken once a statement with the jobs' count, and not at all for none", async () => {
    const listener = new pg.Client({ connectionString: database.connectionString });
    await listener.connect();
    const heard: Array<{ channel: string; count: number }> = [];
    listener.on("notification", (message) => heard.push({ channel: message.channel, count: JSON.parse(message.payload ?? "null").count }));
    await listener.query(`LISTEN "${JOBS_INSERTED_CHANNEL}"; LISTEN "${DELIVERY_JOBS_CHANNEL}"`);
    try {
      const ids = [randomUUID(), randomUUID(), randomUUID()];
      expect((await write("deliver-event", ids)).rows[0]).toEqual({ n: 3 });
      expect((await write("deliver-event", [])).rows[0]).toEqual({ n: 0 });
      expect((await write("deliver-event", ids.slice(0, 1))).rows[0]).toEqual({ n: 0 }); // its key is taken: left as it is
      const later = randomUUID();
      expect((await write("deliver-event", [later])).rows[0]).toEqual({ n: 1 });
      expect((await write("send-notification", [randomUUID(), randomUUID()])).rows[0]).toEqual({ n: 2 });
      // Notifications arrive in commit order: had the empty write or the taken key sent one, it would come
      // before the last. Delivery jobs on their own channel, graphile-worker's tasks on its.
      await waitFor(() => heard.length >= 3);
      expect(heard).toEqual([
        { channel: DELIVERY_JOBS_CHANNEL, count: 3 },
        { channel: DELIVERY_JOBS_CHANNEL, count: 1 },
        { channel: JOBS_INSERTED_CHANNEL, count: 2 },
      ]);
    } finally {
      await listener.end();
    }
    const jobs = (await pendingJobs()).filter((job) => job.task_identifier === "deliver-event");
    expect(jobs).toHaveLength(4);
    expect(jobs[0]).toEqual({
      task_identifier: "deliver-event",
      payload: { eventId: expect.any(String) },
      key: `deliver-event:${(jobs[0]!.payload as { eventId: string }).eventId}`,
      max_attempts: 25,
    });
    const { rows } = await sql<{ due: boolean; available: boolean; attempts: number; priority: number; queued: boolean }>`
      select bool_and(run_at <= now()) as due, bool_and(is_available) as available, max(attempts)::int as attempts, max(priority)::int as priority,
             bool_or(job_queue_id is not null) as queued
        from graphile_worker._private_jobs`.execute(database.db);
    expect(rows[0]).toEqual({ due: true, available: true, attempts: 0, priority: 0, queued: false });
  });

  it("a task the queue does not know fails the statement instead of dropping its jobs; every start registers it again", async () => {
    await sql`delete from graphile_worker._private_tasks where identifier = 'send-notification'`.execute(database.db);
    await expect(write("send-notification", [randomUUID()])).rejects.toMatchObject({ code: "23502" });
    await prepareQueue({ pool: database.pool });
    expect((await write("send-notification", [randomUUID()])).rows[0]).toEqual({ n: 1 });
  });

  it("a worker that runs the deliveries itself (no dispatcher) is woken by their jobs' own channel, not only by its poll", async () => {
    const delivered: string[] = [];
    await startWorker({
      connectionString: database.connectionString,
      taskList: { "deliver-event": async (payload) => void delivered.push(payload.eventId) },
      pollInterval: 600_000,
    }).then((started) => workers.push(started));
    // The first may be found by the runner's first look; the second, written once the runner has looked and
    // found nothing more, only by a wake-up.
    const [first, second] = [randomUUID(), randomUUID()];
    await write("deliver-event", [first]);
    await waitFor(() => delivered.length === 1, 5_000);
    await write("deliver-event", [second]);
    await waitFor(() => delivered.length === 2, 5_000);
    expect(delivered).toEqual([first, second]);
  });
});
