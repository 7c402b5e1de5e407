// The SDK's EventStream as an integrator gets it (the package built with tsc, imported by its entry),
// against the whole service: it follows the integration's events through a TCP proxy whose connections
// the test cuts, and after the drop it reconnects with Last-Event-ID, so the events made while it was
// away arrive once, in the event log's order, then the live ones.
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeBody } from "../helpers/charges.ts";
import { startCuttableProxy } from "../helpers/cuttable-proxy.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { createIntegratorProject, tearDownIntegratorProject } from "./integrator-project.ts";

/** What the test uses of the package (this program does not import its sources: the generated runtime's syntax is not erasable). */
interface StreamedEvent {
  eventId: string;
  event: string;
  payload: Record<string, unknown>;
}
type EventStreamWait = { reason: "ended" | "no-answer" | "too-many-streams"; delayMs: number };
interface Sdk {
  admin: { Configuration: new (parameters: { basePath: string; accessToken: string }) => unknown };
  EventStream: new (options: {
    configuration: unknown;
    signal: AbortSignal;
    onConnected: (connection: { reconnected: boolean; lastEventId: string | undefined }) => void;
    onWait: (wait: EventStreamWait) => void;
  }) => AsyncIterable<StreamedEvent> & { readonly lastEventId: string | undefined };
}

const t = serviceForFile({ env: { COBRO_EVENT_STREAM_POLL_MS: "50" } });
let project: string;
let sdk: Sdk;

beforeAll(async () => {
  project = await createIntegratorProject("cobro-event-stream-");
  sdk = (await import(pathToFileURL(join(project, "node_modules", "@cobro", "sdk", "dist", "index.js")).href)) as Sdk;
}, 120_000);

afterAll(() => tearDownIntegratorProject(project));

describe("EventStream", () => {
  it("resumes after a dropped connection: the events made while it was away arrive, none lost, none twice", async () => {
    const { admin, createCharge } = await sandboxIntegration(t);
    const proxy = await startCuttableProxy(t.adminUrl);
    const controller = new AbortController();
    const received: StreamedEvent[] = [];
    const connections: Array<{ reconnected: boolean; lastEventId: string | undefined }> = [];
    const waits: EventStreamWait[] = [];
    const stream = new sdk.EventStream({
      configuration: new sdk.admin.Configuration({ basePath: proxy.connectionString.replace(/\/$/, ""), accessToken: admin.token }),
      signal: controller.signal,
      onConnected: (connection) => connections.push(connection),
      onWait: (wait) => waits.push(wait),
    });
    const following = (async () => {
      for await (const event of stream) received.push(event);
    })();
    const until = (condition: () => boolean, what: string) =>
      expect.poll(condition, { timeout: 20_000, interval: 20, message: `waiting for ${what}` }).toBe(true);
    /** A charge paid by a simulated transfer: one payment_request.payment_received. */
    const pay = async () => {
      const charge = await createCharge(chargeBody());
      expect((await admin.simulate({ cvu: charge.CVU, amount: 1000 })).json).toMatchObject({ conciliated: true });
      return charge.referenceId as string;
    };
    try {
      await until(() => connections.length === 1, "the stream to open");
      const paid = [await pay()];
      await until(() => received.length === 1, "the first event");

      // The connection drops; two payments happen while no connection gets through.
      proxy.cut();
      await until(() => waits.length > 0, "the stream to notice the drop");
      paid.push(await pay(), await pay());
      proxy.restore();
      await until(() => connections.length === 2, "the reconnection");
      paid.push(await pay());
      await until(() => received.length >= 4, "four events");
      // Nothing more comes: no event twice.
      await new Promise((resolve) => setTimeout(resolve, 500));

      expect(connections).toEqual([
        { reconnected: false, lastEventId: undefined },
        { reconnected: true, lastEventId: received[0]!.eventId },
      ]);
      // The server's `retry: 2000` is the wait.
      expect(waits[0]).toEqual({ reason: "ended", delayMs: 2000 });
      const listed = (await admin.events("payment_request.payment_received")).map((event) => event.eventId);
      expect(received.map((event) => event.eventId).sort()).toEqual([...listed].sort());
      expect(received.map((event) => event.payload.referenceId)).toEqual(paid);
      expect(stream.lastEventId).toBe(received.at(-1)!.eventId);
    } finally {
      controller.abort();
      await following;
      await proxy.close();
    }
    // Aborting ends the iteration without an error.
    await expect(following).resolves.toBeUndefined();
  }, 60_000);
});
