// The Admin API's event stream (GET /my-integration/events/stream) over real HTTP, read as a client reads
// it (fetch and the body's reader): the framing and the heartbeat, the filters and the visibility rules of
// the event list, resume by Last-Event-ID and by `since` (events made while disconnected, and across a
// restart of the service on the same database), events whose transactions commit out of order, every
// documented refusal (the limit of open streams among them), and that a client that leaves lets go of
// what its stream held.
import { randomUUID } from "node:crypto";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { loadConfig } from "../../runtime/config.ts";
import { createTestDatabase } from "../helpers/database.ts";
import { sandboxAdmin, sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { linkedMerchant, serviceForFile, startTestService, type TestService } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const STREAM_ENV = { COBRO_EVENT_STREAM_HEARTBEAT_MS: "400", COBRO_EVENT_STREAM_POLL_MS: "50" };
const t = serviceForFile({ env: STREAM_ENV });

/** One block of the stream, its fields as sent (a comment line as `comment`). */
interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

interface OpenStream {
  status: number;
  headers: Headers;
  /** Everything read so far, block by block. */
  frames: Frame[];
  /** The events read so far (frames with an `id`). */
  events(): Array<Frame & { json: StreamedEvent }>;
  /** Waits until `count` events have been read (fails after `timeoutMs`). */
  untilEvents(count: number, timeoutMs?: number): Promise<Array<Frame & { json: StreamedEvent }>>;
  until(predicate: (frames: Frame[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Whether the server ended the stream. */
  ended(): boolean;
  close(): Promise<void>;
}

interface StreamedEvent {
  eventId: string;
  webhookId: string;
  event: string;
  createdAt: string;
  payload: Record<string, unknown>;
}

function parseFrame(block: string): Frame {
  const frame: Frame = {};
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) frame.comment = line.slice(1).trim();
    else {
      const colon = line.indexOf(":");
      const field = line.slice(0, colon) as keyof Frame;
      frame[field] = line.slice(colon + 1).replace(/^ /, "");
    }
  }
  return frame;
}

/** Opens the stream as a client would, and reads it in the background until closed. */
async function openStream(service: TestService, token: string, options: { query?: string; lastEventId?: string } = {}): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${service.adminUrl}/my-integration/events/stream${options.query ? `?${options.query}` : ""}`, {
    headers: { authorization: `Bearer ${token}`, accept: "text/event-stream", ...(options.lastEventId ? { "last-event-id": options.lastEventId } : {}) },
    signal: controller.signal,
  });
  const frames: Frame[] = [];
  let done = false;
  const reading = (async () => {
    if (!response.body) return;
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    try {
      for (;;) {
        const { value, done: finished } = await reader.read();
        if (finished) break;
        buffer += value;
        let end = buffer.indexOf("\n\n");
        while (end >= 0) {
          frames.push(parseFrame(buffer.slice(0, end)));
          buffer = buffer.slice(end + 2);
          end = buffer.indexOf("\n\n");
        }
      }
    } catch {
      // aborted by close()
    } finally {
      done = true;
    }
  })();
  const events = () => frames.filter((frame) => frame.id !== undefined).map((frame) => ({ ...frame, json: JSON.parse(frame.data!) as StreamedEvent }));
  const until = async (predicate: (frames: Frame[]) => boolean, timeoutMs = 15_000) => {
    await expect.poll(() => predicate(frames) || done, { timeout: timeoutMs, interval: 20 }).toBe(true);
    if (!predicate(frames)) throw new Error(`the stream ended first: ${JSON.stringify(frames)}`);
  };
  return {
    status: response.status,
    headers: response.headers,
    frames,
    events,
    until,
    untilEvents: async (count, timeoutMs) => {
      await until((read) => read.filter((frame) => frame.id !== undefined).length >= count, timeoutMs);
      return events();
    },
    ended: () => done,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}

/** A fresh integration: its id, its admin's token and calls, its linked merchant account. */
async function integration(service: TestService = t) {
  const merchant = await linkedMerchant(service);
  const admin = await sandboxAdmin(service, merchant.sandbox);
  const row = await service.database.db
    .selectFrom("integration_clients as c")
    .innerJoin("merchant_links as l", "l.integration_client_id", "c.id")
    .select(["c.id", "l.merchant_account_id"])
    .where("c.provider_client_id", "=", merchant.sandbox.integration.clientId)
    .executeTakeFirstOrThrow();
  return { admin, merchant, credentials: merchant.sandbox.integrationAdmin, integrationId: row.id, merchantAccountId: row.merchant_account_id };
}

type EventType = "payment_request.payment_received" | "payment_request.expired" | "payment.unmatched";

/**
 * An event written to the log as the outbox writes one, on `runner` (a pool, or a client inside a
 * transaction the test holds open). Its payload names it (`referenceId`).
 */
async function insertEvent(
  runner: pg.Pool | pg.Client,
  integrationId: string,
  options: { type?: EventType; merchantAccountId?: string | null; referenceId?: string } = {},
): Promise<string> {
  const type = options.type ?? "payment_request.payment_received";
  const payload = { event: type, livemode: false, referenceId: options.referenceId ?? uniqueRef("stream") };
  const { rows } = await runner.query<{ id: string }>(
    "insert into events (integration_client_id, merchant_account_id, type, payload, created_at) values ($1, $2, $3, $4::jsonb, now()) returning id",
    [integrationId, options.merchantAccountId ?? null, type, JSON.stringify(payload)],
  );
  return rows[0]!.id;
}

async function withPool<T>(service: TestService, run: (pool: pg.Pool) => Promise<T>): Promise<T> {
  const pool = new pg.Pool({ connectionString: service.database.connectionString, max: 4 });
  try {
    return await run(pool);
  } finally {
    await pool.end();
  }
}

/** Whether the stream sends no event within `ms` (what is awaited is a quiet period, not a delay to pass). */
async function quietFor(stream: OpenStream, count: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (stream.events().length > count) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return stream.events().length === count;
}

describe("the stream", () => {
  it("opens with retry, then sends a payment's event live as id, event and one data line: the list's payload and webhook id", async () => {
    const { merchant, admin } = await sandboxIntegration(t);
    const stream = await openStream(t, admin.token);
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(stream.headers.get("cache-control")).toBe("no-cache");
      await stream.until((frames) => frames.length >= 1);
      expect(stream.frames[0]).toEqual({ retry: "2000" });

      const charge = await merchant.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)] }));
      expect(charge.status).toBe(201);
      expect((await admin.simulate({ cvu: charge.json.CVU, amount: 100 })).json).toMatchObject({ conciliated: true });
      const [received] = await stream.untilEvents(1);
      const [listed] = await admin.events();
      expect(received!.id).toBe(listed!.eventId);
      expect(received!.event).toBe("payment_request.payment_received");
      expect(received!.data).not.toContain("\n");
      expect(received!.json).toEqual({
        eventId: listed!.eventId,
        webhookId: listed!.webhookId,
        event: "payment_request.payment_received",
        createdAt: listed!.createdAt,
        payload: listed!.payload,
      });
      expect(received!.json.payload).toMatchObject({ referenceId: charge.json.referenceId, paymentRequestId: charge.json.paymentRequestId });
    } finally {
      await stream.close();
    }
  });

  it("starts empty without a cursor: events made before it opened are not sent, later ones are", async () => {
    const { admin, integrationId } = await integration();
    await withPool(t, async (pool) => {
      await insertEvent(pool, integrationId, { referenceId: "before" });
      const stream = await openStream(t, admin.token);
      try {
        await stream.until((frames) => frames.length >= 1);
        const after = await insertEvent(pool, integrationId, { referenceId: "after" });
        const events = await stream.untilEvents(1);
        expect(events.map((event) => event.id)).toEqual([after]);
      } finally {
        await stream.close();
      }
    });
  });

  it("sends a heartbeat comment when idle", async () => {
    const { admin } = await integration();
    const stream = await openStream(t, admin.token);
    try {
      await stream.until((frames) => frames.some((frame) => frame.comment === "heartbeat"), 5_000);
      expect(stream.frames.filter((frame) => frame.comment !== undefined).every((frame) => frame.comment === "heartbeat" && frame.id === undefined)).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it("filters by event name (repeated or comma-separated) and by tenant", async () => {
    const { admin, integrationId, merchantAccountId } = await integration();
    const tenant = await t.database.db
      .insertInto("integration_tenants")
      .values({ integration_client_id: integrationId, key: uniqueRef("tenant"), name: "Sucursal Centro", webhook_url: "https://centro.example.com/webhooks" })
      .returning("id")
      .executeTakeFirstOrThrow();
    await t.database.db
      .updateTable("merchant_links")
      .set({ tenant_id: tenant.id })
      .where("integration_client_id", "=", integrationId)
      .where("merchant_account_id", "=", merchantAccountId)
      .execute();
    const repeated = await openStream(t, admin.token, { query: "event=payment.unmatched&event=payment_request.expired" });
    const commas = await openStream(t, admin.token, { query: "event=payment.unmatched,payment_request.expired" });
    const ofTenant = await openStream(t, admin.token, { query: `integrationTenantId=${tenant.id}` });
    const all = await openStream(t, admin.token);
    try {
      for (const stream of [repeated, commas, ofTenant, all]) await stream.until((frames) => frames.length >= 1);
      await withPool(t, async (pool) => {
        const paid = await insertEvent(pool, integrationId, { type: "payment_request.payment_received", merchantAccountId });
        const unmatched = await insertEvent(pool, integrationId, { type: "payment.unmatched", merchantAccountId: null });
        const expired = await insertEvent(pool, integrationId, { type: "payment_request.expired", merchantAccountId });
        expect((await all.untilEvents(3)).map((event) => event.id)).toEqual([paid, unmatched, expired]);
        expect((await repeated.untilEvents(2)).map((event) => event.id)).toEqual([unmatched, expired]);
        expect((await commas.untilEvents(2)).map((event) => event.id)).toEqual([unmatched, expired]);
        expect((await ofTenant.untilEvents(2)).map((event) => event.id)).toEqual([paid, expired]);
      });
      expect(await quietFor(repeated, 2, 300)).toBe(true);
      expect(await quietFor(ofTenant, 2, 0)).toBe(true);
    } finally {
      await Promise.all([repeated, commas, ofTenant, all].map((stream) => stream.close()));
    }
  });

  it("leaves out the events of a merchant account unlinked from the integration, as the event list does", async () => {
    const { admin, integrationId, merchantAccountId } = await integration();
    const stream = await openStream(t, admin.token);
    try {
      await stream.until((frames) => frames.length >= 1);
      await t.database.db
        .updateTable("merchant_links")
        .set({ unlinked_at: new Date() })
        .where("integration_client_id", "=", integrationId)
        .where("merchant_account_id", "=", merchantAccountId)
        .execute();
      await withPool(t, async (pool) => {
        const hidden = await insertEvent(pool, integrationId, { merchantAccountId });
        const shown = await insertEvent(pool, integrationId, { type: "payment.unmatched", merchantAccountId: null });
        expect((await stream.untilEvents(1)).map((event) => event.id)).toEqual([shown]);
        expect((await admin.events()).map((event) => event.eventId)).not.toContain(hidden);
      });
    } finally {
      await stream.close();
    }
  });
});

describe("resume", () => {
  it("after Last-Event-ID or `since`: every later event once, those made while disconnected included, then live ones", async () => {
    const { admin, integrationId } = await integration();
    await withPool(t, async (pool) => {
      const first = await openStream(t, admin.token);
      await first.until((frames) => frames.length >= 1);
      const sent: string[] = [];
      for (let i = 0; i < 3; i++) sent.push(await insertEvent(pool, integrationId));
      const received = (await first.untilEvents(3)).map((event) => event.id!);
      expect(received).toEqual(sent);
      await first.close();

      // Disconnected: more events occur.
      const meanwhile: string[] = [];
      for (let i = 0; i < 4; i++) meanwhile.push(await insertEvent(pool, integrationId));

      // Resumed after the second event by the header (and a `since` it overrides), after the third by `since`.
      const byHeader = await openStream(t, admin.token, { lastEventId: received[1], query: `since=${received[2]}` });
      const bySince = await openStream(t, admin.token, { query: `since=${received[2]}` });
      try {
        expect((await byHeader.untilEvents(5)).map((event) => event.id)).toEqual([received[2], ...meanwhile]);
        expect((await bySince.untilEvents(4)).map((event) => event.id)).toEqual(meanwhile);
        const live = await insertEvent(pool, integrationId);
        expect((await byHeader.untilEvents(6)).map((event) => event.id)).toEqual([received[2], ...meanwhile, live]);
        expect((await bySince.untilEvents(5)).map((event) => event.id)).toEqual([...meanwhile, live]);
        expect(await quietFor(bySince, 5, 300)).toBe(true);
      } finally {
        await Promise.all([byHeader.close(), bySince.close()]);
      }
    });
  });

  it("sends a backlog longer than one read in order, none twice", async () => {
    const { admin, integrationId } = await integration();
    const ids = await withPool(t, async (pool) => {
      const cursor = await insertEvent(pool, integrationId);
      // One statement: 450 events of one transaction, positions in order.
      const { rows } = await pool.query<{ id: string }>(
        `insert into events (integration_client_id, type, payload, created_at)
         select $1, 'payment.unmatched', jsonb_build_object('event', 'payment.unmatched', 'n', n), now() from generate_series(1, 450) n
         returning id`,
        [integrationId],
      );
      return { cursor, backlog: rows.map((row) => row.id) };
    });
    const stream = await openStream(t, admin.token, { query: `since=${ids.cursor}` });
    try {
      const events = await stream.untilEvents(450);
      expect(events.map((event) => event.id)).toEqual(ids.backlog);
      expect(events.map((event) => event.json.payload.n)).toEqual(Array.from({ length: 450 }, (_, i) => i + 1));
      expect(await quietFor(stream, 450, 300)).toBe(true);
    } finally {
      await stream.close();
    }
  });

  it("does not skip an event whose transaction commits after a later one: nothing is sent past a transaction still running", async () => {
    const { admin, integrationId } = await integration();
    await withPool(t, async (pool) => {
      const cursor = await insertEvent(pool, integrationId);
      const stream = await openStream(t, admin.token, { query: `since=${cursor}` });
      const slow = new pg.Client({ connectionString: t.database.connectionString });
      await slow.connect();
      try {
        await stream.until((frames) => frames.length >= 1);
        // The slow transaction writes first (its position and transaction id are the lower), commits last.
        await slow.query("begin");
        const early = await insertEvent(slow, integrationId, { referenceId: "early" });
        const late = await insertEvent(pool, integrationId, { referenceId: "late" });
        // The late event is committed and visible, but a client that got it now and resumed after it
        // would never get the early one: it is held back while the early one's transaction runs.
        expect(await quietFor(stream, 0, 600)).toBe(true);
        const resumedMeanwhile = await openStream(t, admin.token, { query: `since=${cursor}` });
        expect(await quietFor(resumedMeanwhile, 0, 300)).toBe(true);
        await resumedMeanwhile.close();

        await slow.query("commit");
        expect((await stream.untilEvents(2)).map((event) => event.id)).toEqual([early, late]);
        // Resumed after the last one: nothing again; after the cursor: both, in the same order.
        const afterLate = await openStream(t, admin.token, { query: `since=${late}` });
        const afterCursor = await openStream(t, admin.token, { query: `since=${cursor}` });
        try {
          expect((await afterCursor.untilEvents(2)).map((event) => event.id)).toEqual([early, late]);
          expect(await quietFor(afterLate, 0, 300)).toBe(true);
        } finally {
          await Promise.all([afterLate.close(), afterCursor.close()]);
        }
      } finally {
        await slow.end();
        await stream.close();
      }
    });
  });

  it("many concurrent writers committing in any order: a reader that reconnects after every event gets each once", async () => {
    const { admin, integrationId } = await integration();
    await withPool(t, async (pool) => {
      const cursor = await insertEvent(pool, integrationId);
      const writers = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const client = new pg.Client({ connectionString: t.database.connectionString });
          await client.connect();
          return client;
        }),
      );
      const rounds = 5;
      const total = rounds * writers.length;
      const written: string[] = [];
      const writing = (async () => {
        for (let round = 0; round < rounds; round++) {
          for (const client of writers) await client.query("begin");
          for (const client of writers) written.push(await insertEvent(client, integrationId));
          // Committed in a different order each round, each commit given time to reach the reader.
          const order = [...writers].sort(() => Math.random() - 0.5);
          for (const client of order) {
            await client.query("commit");
            await new Promise((resolve) => setTimeout(resolve, 120));
          }
        }
      })();
      // The reader takes one event per connection and resumes after it.
      const received: string[] = [];
      let last = cursor;
      try {
        while (received.length < total) {
          const stream = await openStream(t, admin.token, { lastEventId: last });
          const [next] = await stream.untilEvents(1);
          await stream.close();
          received.push(next!.id!);
          last = next!.id!;
        }
        await writing;
      } finally {
        await Promise.all(writers.map((client) => client.end()));
      }
      expect(new Set(received).size).toBe(total);
      expect([...received].sort()).toEqual([...written].sort());
    });
  });

  it("across a restart of the service on the same database: nothing lost, nothing twice", async () => {
    const database = await createTestDatabase();
    try {
      const first = await startTestService({ database, env: STREAM_ENV });
      const { admin, credentials, integrationId } = await integration(first);
      const before: string[] = [];
      let lastReceived: string;
      await withPool(first, async (pool) => {
        const stream = await openStream(first, admin.token);
        await stream.until((frames) => frames.length >= 1);
        for (let i = 0; i < 2; i++) before.push(await insertEvent(pool, integrationId));
        lastReceived = (await stream.untilEvents(2)).at(-1)!.id!;
        // The service stops: the stream ends (it does not hold the stop).
        await first.service.stop();
        await stream.until(() => stream.ended(), 5_000);
        await stream.close();
      });
      expect(lastReceived!).toBe(before[1]);

      // Events occur while no service runs (the worker, another process), then it starts again.
      const meanwhile: string[] = [];
      await withPool(first, async (pool) => {
        for (let i = 0; i < 3; i++) meanwhile.push(await insertEvent(pool, integrationId));
      });
      const second = await startTestService({ database, env: STREAM_ENV });
      try {
        const token = await sandboxAdminToken(second, credentials);
        const resumed = await openStream(second, token, { lastEventId: lastReceived! });
        try {
          expect((await resumed.untilEvents(3)).map((event) => event.id)).toEqual(meanwhile);
          const live = await withPool(second, (pool) => insertEvent(pool, integrationId));
          expect((await resumed.untilEvents(4)).map((event) => event.id)).toEqual([...meanwhile, live]);
          expect(await quietFor(resumed, 4, 300)).toBe(true);
        } finally {
          await resumed.close();
        }
      } finally {
        await second.close();
      }
    } finally {
      await database.close();
    }
  });
});

/** The integration admin's token from `service` (a restarted service signs in anew). */
async function sandboxAdminToken(service: TestService, credentials: { email: string; password: string }): Promise<string> {
  const response = await fetch(`${service.authUrl}/integration/admin/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(credentials),
  });
  return ((await response.json()) as { idToken: string }).idToken;
}

describe("refusals, before the stream starts, in the Admin API's error bodies", () => {
  const errorBody = { code: expect.any(String), message: expect.any(String), id: expect.any(String) };

  async function refusal(path: string, headers: Record<string, string>) {
    const response = await fetch(`${t.adminUrl}${path}`, { headers });
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it("401 without a token or with a merchant's token", async () => {
    const merchant = await linkedMerchant(t);
    for (const headers of [{} as Record<string, string>, { authorization: "Bearer nope" }, { authorization: `Bearer ${merchant.idToken}` }]) {
      const answer = await refusal("/my-integration/events/stream", headers);
      expect(answer).toMatchObject({ status: 401, json: { ...errorBody, code: "UnauthorizedError" } });
    }
  });

  it("403 for a platform admin", async () => {
    const sandbox = await t.sandbox();
    const login = await fetch(`${t.authUrl}/integration/admin/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sandbox.platformAdmin),
    });
    const token = ((await login.json()) as { idToken: string }).idToken;
    const answer = await refusal("/my-integration/events/stream", { authorization: `Bearer ${token}` });
    expect(answer).toMatchObject({ status: 403, json: { ...errorBody, code: "ForbiddenError" } });
  });

  it("404 for a cursor that is not an event of the integration (unknown, another integration's, past the 30 days), by `since` and by Last-Event-ID", async () => {
    const mine = await integration();
    const other = await integration();
    const [othersEvent, oldEvent] = await withPool(t, async (pool) => [
      await insertEvent(pool, other.integrationId),
      await insertEvent(pool, mine.integrationId),
    ]);
    await t.database.db
      .updateTable("events")
      .set({ created_at: new Date(t.clock.now().getTime() - 31 * 24 * 60 * 60 * 1000) })
      .where("id", "=", oldEvent)
      .execute();
    const auth = { authorization: `Bearer ${mine.admin.token}` };
    for (const cursor of [randomUUID(), othersEvent, oldEvent]) {
      for (const answer of [
        await refusal(`/my-integration/events/stream?since=${cursor}`, auth),
        await refusal("/my-integration/events/stream", { ...auth, "last-event-id": cursor }),
      ]) {
        expect(answer).toMatchObject({ status: 404, json: { ...errorBody, code: "EventNotFoundError" } });
      }
    }
  });

  it("422 for an event name outside the catalog, naming it; 400 for a malformed cursor or tenant id", async () => {
    const { admin } = await integration();
    const auth = { authorization: `Bearer ${admin.token}` };
    const unknown = await refusal("/my-integration/events/stream?event=payment.unmatched,charge.refunded", auth);
    expect(unknown).toMatchObject({ status: 422, json: { ...errorBody, code: "UnknownWebhookEventError", cause: expect.stringContaining("charge.refunded") } });
    for (const [path, headers] of [
      ["/my-integration/events/stream?since=not-a-uuid", auth],
      ["/my-integration/events/stream?integrationTenantId=42", auth],
      ["/my-integration/events/stream", { ...auth, "last-event-id": "42" }],
    ] as const) {
      const answer = await refusal(path, headers);
      expect(answer).toMatchObject({ status: 400, json: { ...errorBody, code: "ValidationError" } });
    }
  });
});

describe("a client that leaves", () => {
  it("lets go of its stream: no subscription left, and open streams hold no pool connection between reads", async () => {
    const { admin, integrationId } = await integration();
    const watcher = t.service.eventLog!;
    const pool = t.service.database.pool;
    const streams = await Promise.all(Array.from({ length: 3 }, () => openStream(t, admin.token)));
    for (const stream of streams) await stream.until((frames) => frames.length >= 1);
    expect(watcher.openStreams(integrationId)).toBe(3);
    // Three open streams, and every connection of the pool is idle (a poll borrows one for one query).
    await expect.poll(() => pool.totalCount - pool.idleCount, { timeout: 5_000, interval: 5 }).toBe(0);
    await Promise.all(streams.map((stream) => stream.close()));
    await expect.poll(() => watcher.openStreams(integrationId), { timeout: 5_000 }).toBe(0);
  });
});

describe("the limit of open streams per integration", () => {
  const limited = serviceForFile({ env: { ...STREAM_ENV, COBRO_EVENT_STREAM_MAX_PER_INTEGRATION: "3" } });

  /** Opens the stream with a raw fetch: its answer, and a way to leave. */
  async function attempt(token: string) {
    const controller = new AbortController();
    const response = await fetch(`${limited.adminUrl}/my-integration/events/stream`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" },
      signal: controller.signal,
    });
    return { response, leave: () => controller.abort() };
  }

  it("answers 429 TooManyEventStreamsError with Retry-After past the limit, even to a burst sent at once; another integration is not counted; a slot frees when its client leaves", async () => {
    const { admin, integrationId } = await integration(limited);
    const watcher = limited.service.eventLog!;
    const burst = await Promise.all(Array.from({ length: 7 }, () => attempt(admin.token)));
    const opened = burst.filter((one) => one.response.status === 200);
    const refused = burst.filter((one) => one.response.status !== 200);
    try {
      expect(opened).toHaveLength(3);
      expect(watcher.openStreams(integrationId)).toBe(3);
      for (const { response } of refused) {
        expect(response.status).toBe(429);
        expect(response.headers.get("retry-after")).toBe("30");
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        expect(await response.json()).toEqual({
          code: "TooManyEventStreamsError",
          message: expect.stringContaining("3 event streams"),
          id: expect.any(String),
        });
      }
      // Another integration's streams are its own.
      const other = await integration(limited);
      const others = await attempt(other.admin.token);
      expect(others.response.status).toBe(200);
      others.leave();
      // One client leaves: its slot is free once the server has seen it go.
      opened.pop()!.leave();
      await expect.poll(() => watcher.openStreams(integrationId), { timeout: 5_000 }).toBe(2);
      const again = await attempt(admin.token);
      expect(again.response.status).toBe(200);
      opened.push(again);
    } finally {
      for (const one of opened) one.leave();
    }
    await expect.poll(() => watcher.openStreams(integrationId), { timeout: 5_000 }).toBe(0);
  });
});

describe("the stream's settings", () => {
  it("allow 10 streams per integration and process by default, read from COBRO_EVENT_STREAM_MAX_PER_INTEGRATION; refuse a count that is not a whole number from 1", () => {
    expect(loadConfig({}, [], false).eventStream).toEqual({ heartbeatMs: 15_000, pollMs: 500, maxPerIntegration: 10 });
    expect(loadConfig({ COBRO_EVENT_STREAM_MAX_PER_INTEGRATION: "2" }, [], false).eventStream.maxPerIntegration).toBe(2);
    for (const value of ["0", "2.5", "many"])
      expect(() => loadConfig({ COBRO_EVENT_STREAM_MAX_PER_INTEGRATION: value }, [], false)).toThrow(
        "COBRO_EVENT_STREAM_MAX_PER_INTEGRATION must be a whole number, 1 or more",
      );
  });
});

describe("a long stream", () => {
  const short = serviceForFile({ env: { ...STREAM_ENV, COBRO_HTTP_HEADERS_TIMEOUT_MS: "500", COBRO_HTTP_REQUEST_TIMEOUT_MS: "1000" } });

  it("outlives the listener's request timeout (which bounds receiving a request, not answering it)", async () => {
    const { admin, integrationId } = await integration(short);
    const stream = await openStream(short, admin.token);
    try {
      await stream.until((frames) => frames.length >= 1);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(stream.ended()).toBe(false);
      const id = await withPool(short, (pool) => insertEvent(pool, integrationId));
      expect((await stream.untilEvents(1)).map((event) => event.id)).toEqual([id]);
    } finally {
      await stream.close();
    }
  });
});
