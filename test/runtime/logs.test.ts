// Logs for people and for machines: readable lines at a terminal, JSON otherwise, and credentials
// redacted in both.
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";
import { createLogger, type LogFormat } from "../../runtime/logger.ts";

function captured(format: LogFormat) {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger("info", sink, format), lines };
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
