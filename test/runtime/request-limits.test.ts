// The limits every listener puts on its clients: a body over 1 MB answers 413 in the documented
// {code, message, id} shape (never a 500), on each API and for JSON and form bodies alike; and a client
// that sends its headers or its body too slowly is answered 408 and cut off (this instance is configured
// with short timeouts so that the test does not wait 10 s).
import { describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { read, serviceForFile } from "../helpers/service.ts";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

const HEADERS_TIMEOUT_MS = 600;
const REQUEST_TIMEOUT_MS = 1200;
const t = serviceForFile({ env: { COBRO_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS), COBRO_HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });

const payloadTooLarge = { code: "PayloadTooLarge", message: expect.stringContaining("1048576 bytes"), id: expect.any(String) };
const overOneMegabyte = "x".repeat(1024 * 1024 + 1);

describe("body limits", () => {
  it("413 PayloadTooLarge for a JSON body over 1 MB on each API", async () => {
    for (const url of [`${t.integrationUrl}/payment-request`, `${t.adminUrl}/my-integration/urls`, `${t.authUrl}/integration/admin/login`]) {
      const result = await read(
        await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: "Bearer x" },
          body: JSON.stringify({ padding: overOneMegabyte }),
        }),
      );
      expect({ url, status: result.status, body: result.json }).toEqual({ url, status: 413, body: payloadTooLarge });
    }
  });

  it("413 for a form body over 1 MB (the RFC 6749 token endpoint), and a body just under the limit is read", async () => {
    const token = `${t.authUrl}/integration/oauth2/token`;
    const form = (padding: string) =>
      fetch(token, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=authorization_code&code=${padding}` });
    const tooLarge = await read(await form(overOneMegabyte));
    expect(tooLarge.status).toBe(413);
    // That form's refusals are in RFC 6749 §5.2's words, Cobro's code alongside.
    expect(tooLarge.json).toEqual({
      error: "invalid_request",
      error_description: expect.stringContaining("1048576 bytes"),
      code: "PayloadTooLarge",
      id: expect.any(String),
    });
    const underLimit = await read(await form("x".repeat(1000)));
    expect(underLimit.status).not.toBe(413);
    expect(underLimit.status).toBeLessThan(500);
  });
});

describe("slow clients", () => {
  it("a client that sends its headers slowly is answered 408 and disconnected once the headers timeout passes, on every listener", async () => {
    for (const url of [t.integrationUrl, t.authUrl, t.adminUrl]) {
      const { port } = new URL(url);
      const socket = await opened(Number(port));
      socket.write("GET /healthz HTTP/1.1\r\nHost: cobro.test\r\n");
      const started = Date.now();
      // One header line every 100 ms, never the blank line that ends them.
      const drip = setInterval(() => socket.writable && socket.write(`X-Slow-${Date.now()}: 1\r\n`), 100);
      const answer = await untilClosed(socket, 10_000);
      clearInterval(drip);
      expect({ url, status: answer.text.slice(0, 12) }).toEqual({ url, status: "HTTP/1.1 408" });
      expect(answer.afterMs(started)).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
      expect(answer.afterMs(started)).toBeLessThan(5000);
    }
  });

  it("a client that sends its body slowly is answered 408 and disconnected once the request timeout passes", async () => {
    const socket = await opened(Number(new URL(t.authUrl).port));
    socket.write(`POST /integration/admin/login HTTP/1.1\r\nHost: cobro.test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
    const started = Date.now();
    const drip = setInterval(() => socket.writable && socket.write(" "), 100);
    const answer = await untilClosed(socket, 10_000);
    clearInterval(drip);
    expect(answer.text.slice(0, 12)).toBe("HTTP/1.1 408");
    expect(answer.afterMs(started)).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - HEADERS_TIMEOUT_MS);
    expect(answer.afterMs(started)).toBeLessThan(5000);
  });

  it("a prompt client on a kept-alive connection is served as usual", async () => {
    const socket = await opened(Number(new URL(t.integrationUrl).port));
    socket.write("GET /healthz HTTP/1.1\r\nHost: cobro.test\r\n\r\n");
    socket.write("GET /healthz HTTP/1.1\r\nHost: cobro.test\r\nConnection: close\r\n\r\n");
    const answer = await untilClosed(socket, 10_000);
    expect(answer.text.match(/HTTP\/1\.1 200 /g), answer.text).toHaveLength(2);
  });
});

describe("the timeouts' configuration", () => {
  it("defaults to 10 s for the headers and 30 s for the whole request, and refuses nonsense", () => {
    expect(loadConfig({}, [], false).httpTimeouts).toEqual({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
    expect(() => loadConfig({ COBRO_HTTP_HEADERS_TIMEOUT_MS: "ten" }, [], false)).toThrow(ConfigError);
    expect(() => loadConfig({ COBRO_HTTP_REQUEST_TIMEOUT_MS: "0" }, [], false)).toThrow(ConfigError);
    expect(() => loadConfig({ COBRO_HTTP_HEADERS_TIMEOUT_MS: "40000" }, [], false)).toThrow(/must not be longer than COBRO_HTTP_REQUEST_TIMEOUT_MS/);
  });
});

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Everything the server sent until it closed the connection, and when it closed. */
function untilClosed(socket: Socket, timeoutMs: number): Promise<{ text: string; afterMs: (start: number) => number }> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the server kept the connection open for ${timeoutMs} ms; it sent: ${text.slice(0, 200)}`));
    }, timeoutMs);
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", () => undefined); // a reset after the 408 is a close too
    socket.on("close", () => {
      clearTimeout(timer);
      const closedAt = Date.now();
      resolve({ text, afterMs: (start) => closedAt - start });
    });
  });
}
