// Logs for people and for machines: readable lines at a terminal, JSON otherwise, and credentials
// redacted in both.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Writable } from "node:stream";
import { stripVTControlCharacters } from "node:util";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";
import { createLogger, requestLogging, type LogFormat } from "../../runtime/logger.ts";

function captured(format: LogFormat, level = "info") {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      // Without colours, whatever the environment says about them (FORCE_COLOR).
      lines.push(...stripVTControlCharacters(String(chunk)).split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger(level, sink, format), lines };
}

/** A real HTTP server whose requests are logged as the APIs log theirs; it answers with the status in its path (`/status/503`). */
async function loggedServer(format: LogFormat, level: string) {
  const { logger, lines } = captured(format, level);
  const logRequest = requestLogging(logger, "integration");
  let next = 0;
  const server: Server = createServer((req, res) => {
    logRequest(req, res, `request-${++next}`);
    res.statusCode = Number(/^\/status\/(\d{3})/.exec(req.url ?? "")?.[1] ?? 404);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  /** Makes one request and waits for its log line(s) to be written. */
  const request = async (path: string, init?: RequestInit) => {
    const before = lines.length;
    await (await fetch(`${url}${path}`, init)).arrayBuffer();
    for (let waited = 0; lines.length === before && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 20)); // any further line of the same request
    return lines.slice(before);
  };
  return { request, lines, close: () => new Promise((resolve) => server.close(resolve)) };
}

async function withLoggedServer(format: LogFormat, level: string, body: (server: Awaited<ReturnType<typeof loggedServer>>) => Promise<void>) {
  const server = await loggedServer(format, level);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

describe("the log format", () => {
  it("is pretty when standard output is a terminal and JSON when it is not", () => {
    expect(loadConfig({}, [], true).logFormat).toBe("pretty");
    expect(loadConfig({}, [], false).logFormat).toBe("json");
  });

  it("follows LOG_FORMAT whatever the output is", () => {
    expect(loadConfig({ LOG_FORMAT: "json" }, [], true).logFormat).toBe("json");
    expect(loadConfig({ LOG_FORMAT: "pretty" }, [], false).logFormat).toBe("pretty");
  });

  it("refuses an unknown LOG_FORMAT with a readable line", () => {
    expect(() => loadConfig({ LOG_FORMAT: "xml" }, [], false)).toThrow(ConfigError);
    expect(() => loadConfig({ LOG_FORMAT: "xml" }, [], false)).toThrow('LOG_FORMAT must be one of json, pretty, not "xml"');
  });
});

describe("the logger", () => {
  it("writes one JSON object a line in the json format", () => {
    const { logger, lines } = captured("json");
    logger.info({ charge: "abc" }, "charge created");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 30, msg: "charge created", charge: "abc", service: "cobro" });
  });

  it("writes readable lines in the pretty format: level, message and fields, no JSON", () => {
    const { logger, lines } = captured("pretty");
    logger.info({ charge: "abc" }, "charge created");
    const text = lines.join("\n");
    expect(text).toMatch(/INFO.*charge created/);
    expect(text).toContain('charge: "abc"');
    expect(() => JSON.parse(lines[0]!)).toThrow();
  });

  it.each(["json", "pretty"] as const)("redacts credentials in the %s format", (format) => {
    const { logger, lines } = captured(format);
    logger.info({ body: { clientSecret: "cs_live_very_secret", password: "hunter22" }, req: { headers: { authorization: "Bearer eyJ.secret" } } }, "request");
    const text = lines.join("\n");
    expect(text).not.toContain("cs_live_very_secret");
    expect(text).not.toContain("hunter22");
    expect(text).not.toContain("eyJ.secret");
    expect(text).toContain("[redacted]");
  });
});

describe("a request's log line", () => {
  it("is one line at a terminal: method, path, status, time and API", async () => {
    await withLoggedServer("pretty", "info", async (server) => {
      const created = await server.request("/status/201?page=2", { method: "POST", body: "{}" });
      expect(created).toHaveLength(1);
      expect(created[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: POST \/status\/201\?page=2 201 \d+ms \(integration\)$/);

      const failed = await server.request("/status/503");
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatch(/ ERROR: GET \/status\/503 503 \d+ms \(integration\): request errored$/);
    });
  });

  it("keeps secrets in the query redacted at a terminal", async () => {
    await withLoggedServer("pretty", "info", async (server) => {
      const lines = await server.request("/status/200?token=reset-secret-123&code=oauth-code-456");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("GET /status/200?token=[redacted]&code=[redacted] 200 ");
      expect(lines[0]).not.toContain("secret-123");
      expect(lines[0]).not.toContain("code-456");
    });
  });

  it("shows its fields, the request id among them, at LOG_LEVEL=debug", async () => {
    await withLoggedServer("pretty", "debug", async (server) => {
      const lines = await server.request("/status/204");
      expect(lines[0]).toMatch(/ INFO: GET \/status\/204 204 \d+ms \(integration\)$/);
      expect(lines.join("\n")).toContain('"id": "request-1"');
      expect(lines.join("\n")).toContain("responseTime:");
    });
  });

  it("stays one JSON object with the request's fields when the output is not a terminal", async () => {
    await withLoggedServer("json", "info", async (server) => {
      const lines = await server.request("/status/200?token=reset-secret-123");
      expect(lines).toHaveLength(1);
      expect(JSON.parse(lines[0]!)).toEqual({
        level: 30,
        time: expect.any(String),
        service: "cobro",
        api: "integration",
        req: { id: "request-1", method: "GET", url: "/status/200?token=[redacted]" },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
        msg: "request completed",
      });
    });
  });
});

describe("the worker's lines at a terminal", () => {
  it("carry their queue context on the message's line in words, without what the message already says, and none when it is empty", () => {
    const { logger, lines } = captured("pretty");
    logger.info({ queue: { workerId: "worker-1", jobId: "42", task: "deliver-event", attempts: undefined } }, "Completed task 42");
    logger.info({ queue: { label: "job", workerId: "worker-7f3a", taskIdentifier: "time-sweep", jobId: "17" } }, "notifications: 3 queued");
    logger.warn({ queue: { workerId: "worker-1", jobId: "9", task: "deliver-event", attempts: 3 } }, "Failed task 9 (deliver-event, 12.00ms, attempt 3 of 25)");
    logger.info({ queue: {} }, "nothing to say");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/ INFO: Completed task 42 · deliver-event, worker worker-1$/);
    expect(lines[1]).toMatch(/ INFO: notifications: 3 queued · time-sweep, job 17, worker worker-7f3a$/);
    expect(lines[2]).toMatch(/ WARN: Failed task 9 \(deliver-event, 12\.00ms, attempt 3 of 25\) · worker worker-1$/);
    expect(lines[3]).toMatch(/ INFO: nothing to say$/);
    // No line ends in a JSON object.
    for (const line of lines) expect(line).not.toMatch(/\}$/);
  });
});
