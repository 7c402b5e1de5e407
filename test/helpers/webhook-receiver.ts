// A real webhook receiver on 127.0.0.1 for tests: it records every request (headers and the raw body)
// and answers as told: a status, after a delay, with headers (a redirect's Location) and a body.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import { serviceForFile, startedHandle, type TestService } from "./service.ts";

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  json: any;
  at: number;
}

export interface Answer {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
  /** The body to answer (default: a text the service must never record), or how to make it from the request. */
  body?: string | ((request: ReceivedRequest) => string);
}

export interface WebhookReceiver {
  /** `http://127.0.0.1:<port><path>`. */
  url(path?: string): string;
  port: number;
  requests: ReceivedRequest[];
  /** Requests to `path` (all when omitted). */
  at(path?: string): ReceivedRequest[];
  /** The answers of the next requests, in order; then `fallback`. */
  answerNext(...answers: Answer[]): void;
  /** The answer once the queued ones are used (default 200). */
  fallback: Answer;
  /** Waits until `count` requests (to `path`, if given) have arrived. */
  waitFor(count: number, options?: { path?: string; timeoutMs?: number }): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const requests: ReceivedRequest[] = [];
  const queued: Answer[] = [];
  let server: Server;
  const receiver: WebhookReceiver = {
    port: 0,
    requests,
    fallback: { status: 200 },
    url: (path = "/webhooks") => `http://127.0.0.1:${receiver.port}${path}`,
    at: (path) => (path === undefined ? requests : requests.filter((request) => request.path === path)),
    answerNext: (...answers) => void queued.push(...answers),
    waitFor: async (count, { path, timeoutMs = 10_000 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.at(path).length < count) {
        if (Date.now() > deadline)
          throw new Error(`the receiver got ${receiver.at(path).length} of ${count} requests${path ? ` to ${path}` : ""} in ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return receiver.at(path);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks).toString("utf8");
      let json: unknown;
      try {
        json = JSON.parse(rawBody);
      } catch {
        json = undefined;
      }
      const request: ReceivedRequest = { method: req.method ?? "", path: (req.url ?? "").split("?")[0]!, headers: req.headers, rawBody, json, at: Date.now() };
      requests.push(request);
      const answer = queued.shift() ?? receiver.fallback;
      const body = typeof answer.body === "function" ? answer.body(request) : (answer.body ?? "receiver body: never recorded by the service");
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers }).end(body);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs).unref();
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

/**
 * The service of this file (or describe block) that delivers webhooks (the three APIs and the worker,
 * loopback URLs allowed), and a receiver on the loopback for them: `serviceForFile()` and the receiver
 * started after it, closed (the receiver first) after the tests. Both are handles, as `serviceForFile()`'s.
 */
export function deliveringServiceForFile(): { service: TestService; receiver: WebhookReceiver } {
  const service = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
  let receiver: WebhookReceiver | undefined;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    receiver = undefined;
  });
  return { service, receiver: startedHandle("the webhook receiver", "deliveringServiceForFile()", () => receiver) };
}
