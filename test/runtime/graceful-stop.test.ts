// SIGTERM to a Cobro process with requests in flight, as a release stops it: for its drain
// (COBRO_STOP_DRAIN_MS) its readiness answers 503 while a new connection is still served; then it stops
// accepting connections; the requests already in flight are answered, with `Connection: close` so that their clients send
// nothing more on those connections; an open event stream ends with a hint to reconnect; a transfer in
// flight is reconciled and committed before the database closes; and the process exits 0. A request is
// held in flight without timing: its headers are sent (the server's `100 Continue` says it has them) and its
// body only after the listener is seen refusing new connections.
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StartedCobro } from "../../scripts/cobro-process.ts";
import { ConfigError, loadConfig } from "../../runtime/config.ts";
import {
  createSandboxCharge,
  readSandboxCharge,
  sandboxChargeBody,
  sandboxDueDate,
  signInSandbox,
  simulatedPaymentBody,
  startServingSandbox,
  type SandboxUrls,
} from "../helpers/sandbox-process.ts";

const scratch = mkdtempSync(join(tmpdir(), "cobro-graceful-"));
chmodSync(scratch, 0o711); // as root, PostgreSQL runs as the `postgres` user, which must reach the data folder
const dataDir = join(scratch, "data");
const started: StartedCobro[] = [];

/** A POST whose headers are sent and taken (100 Continue) and whose body waits for `finish()`. */
interface HeldRequest {
  finish(): void;
  response: Promise<{ status: number; connection: string | undefined; body: string }>;
}

async function holdRequest(url: string, token: string, body: unknown): Promise<HeldRequest> {
  const text = JSON.stringify(body);
  const req: ClientRequest = request(url, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text), authorization: `Bearer ${token}`, expect: "100-continue" },
  });
  const response = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    req.on("response", (res: IncomingMessage) => {
      let answer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (answer += chunk));
      res.on("end", () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: answer }));
    });
    req.on("error", reject);
  });
  await new Promise<void>((resolve, reject) => {
    req.once("continue", () => resolve());
    req.once("error", reject);
  });
  req.write(text.slice(0, 10)); // in the middle of its body
  return { finish: () => req.end(text.slice(10)), response };
}

/** Resolves once `url`'s listener refuses new connections. */
async function untilRefused(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(Number(port), hostname);
      socket.once("connect", () => {
        socket.destroy();
        resolve(false);
      });
      socket.once("error", () => resolve(true));
    });
    if (refused) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

let urls: SandboxUrls;
let tokens: { admin: string; merchant: string };
const created = { referenceId: `INFLIGHT-${Date.now()}` };
let paidReference: string;
let createAnswer: Awaited<HeldRequest["response"]>;
let paymentAnswer: Awaited<HeldRequest["response"]>;
let streamText = "";
let streamEnded = false;
let exitCode: number | null;
let duringDrain: { readiness: { status: number; body: unknown }; served: { status: number; connection: string | null } };
const DRAIN_MS = 5_000;

beforeAll(async () => {
  const first = await startServingSandbox(dataDir, { COBRO_STOP_DRAIN_MS: String(DRAIN_MS) });
  started.push(first.cobro);
  urls = first.urls;
  tokens = await signInSandbox(dataDir, urls);
  const dueDate = await sandboxDueDate(urls, tokens.admin, 5);
  paidReference = `PAID-INFLIGHT-${Date.now()}`;
  const toPay = await createSandboxCharge(urls, tokens.merchant, paidReference, dueDate);

  // An event stream open, read from its first line on.
  const stream = await fetch(`${urls.admin}/my-integration/events/stream`, { headers: { authorization: `Bearer ${tokens.admin}` } });
  expect(stream.status).toBe(200);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  const streamRead = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      streamText += value;
    }
    streamEnded = true;
  })();
  while (!streamText.includes("retry: 2000\n\n")) await new Promise((resolve) => setTimeout(resolve, 20));

  // A create and a transfer in flight.
  const create = await holdRequest(`${urls.integration}/payment-request`, tokens.merchant, sandboxChargeBody(created.referenceId, dueDate));
  const payment = await holdRequest(`${urls.admin}/my-integration/simulate-payment`, tokens.admin, simulatedPaymentBody(toPay.CVU));

  first.cobro.child.kill("SIGTERM");
  // The drain: readiness turns 503 (no timing: read until it does), and a new connection is still served.
  let readiness = await fetch(`${urls.integration}/readyz`);
  while (readiness.status === 200) {
    await readiness.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 20));
    readiness = await fetch(`${urls.integration}/readyz`);
  }
  const served = await fetch(`${urls.integration}/payment-request/${paidReference}`, { headers: { authorization: `Bearer ${tokens.merchant}` } });
  duringDrain = {
    readiness: { status: readiness.status, body: await readiness.json() },
    served: { status: served.status, connection: served.headers.get("connection") },
  };
  await served.arrayBuffer();
  await Promise.all([untilRefused(urls.integration), untilRefused(urls.admin), streamRead]);
  create.finish();
  payment.finish();
  [createAnswer, paymentAnswer] = await Promise.all([create.response, payment.response]);
  exitCode = await first.cobro.exited;
}, 180_000);

afterAll(async () => {
  for (const cobro of started) {
    if (cobro.child.exitCode === null && cobro.child.signalCode === null) {
      cobro.child.kill("SIGTERM");
      await cobro.exited;
    }
  }
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 60_000);

describe("SIGTERM with requests in flight", () => {
  it("drains for COBRO_STOP_DRAIN_MS, none by default; a value that is not 0 to 60,000 ms is refused with a readable line", () => {
    expect(loadConfig({}, [], false).stopDrainMs).toBe(0);
    expect(loadConfig({ COBRO_STOP_DRAIN_MS: "1500" }, [], false).stopDrainMs).toBe(1500);
    for (const value of ["-1", "2.5", "60001", "soon"]) {
      expect(() => loadConfig({ COBRO_STOP_DRAIN_MS: value }, [], false)).toThrow(ConfigError);
      expect(() => loadConfig({ COBRO_STOP_DRAIN_MS: value }, [], false)).toThrow("COBRO_STOP_DRAIN_MS must be a whole number of milliseconds from 0 to 60000");
    }
  });

  it("drains first: readiness answers 503 while a new connection is still served, its answer the last on it", () => {
    expect(duringDrain.readiness).toEqual({ status: 503, body: { status: "unavailable" } });
    expect(duringDrain.served).toEqual({ status: 200, connection: "close" });
  });

  it("answers the requests in flight, with Connection: close, after it stopped accepting connections", () => {
    expect([createAnswer.status, createAnswer.connection], createAnswer.body).toEqual([201, "close"]);
    expect([paymentAnswer.status, paymentAnswer.connection], paymentAnswer.body).toEqual([200, "close"]);
    expect(JSON.parse(paymentAnswer.body).conciliated).toBe(true);
  });

  it("ends an open event stream with a hint to reconnect", () => {
    expect(streamEnded).toBe(true);
    expect(streamText.startsWith("retry: 2000\n\n")).toBe(true);
    expect(streamText.endsWith(": this server is stopping: reconnect, with Last-Event-ID\nretry: 500\n\n")).toBe(true);
  });

  it("exits 0, and what it answered is committed", async () => {
    expect(exitCode).toBe(0);
    const again = await startServingSandbox(dataDir);
    started.push(again.cobro);
    const { merchant } = await signInSandbox(dataDir, again.urls);
    const inFlight = await readSandboxCharge(again.urls, merchant, created.referenceId);
    expect(inFlight.status, inFlight.text).toBe(200);
    const paid = await readSandboxCharge(again.urls, merchant, paidReference);
    expect(paid.json.state).toBe("total_payment");
  }, 120_000);
});
