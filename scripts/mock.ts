// `npm run mock`: Prism mocks of the three APIs from the generated documents, for frontend teams.
// Integration on 4010, Auth on 4011, Admin on 4012 (MOCK_INTEGRATION_PORT, MOCK_AUTH_PORT,
// MOCK_ADMIN_PORT and MOCK_HOST change them). Prism validates each request against the contract and
// answers the documented example of the operation (`Prefer: code=404` or `Prefer: example=…` pick
// another response). Ctrl-C stops all three.
//
// Prism reads a copy of each document with one change: `null` is taken out of the `enum` of nullable
// schemas (`nullable: true` still admits null). With `null` in an enum, Prism silently skips validating
// the whole request body (stoplightio/prism#1931), so the mock would accept anything.
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import YAML from "yaml";
import { API_NAMES, type ApiName } from "./normalize-openapi.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const prismCli = join(dirname(createRequire(import.meta.url).resolve("@stoplight/prism-cli/package.json")), "dist", "index.js");

export const DEFAULT_MOCK_PORTS: Record<ApiName, number> = { integration: 4010, auth: 4011, admin: 4012 };

export interface RunningMocks {
  urls: Record<ApiName, string>;
  /** Prism's output so far, per API (for diagnosing a failed start). */
  output: Record<ApiName, string>;
  stop(): Promise<void>;
}

export interface MockOptions {
  ports?: Partial<Record<ApiName, number>>;
  host?: string;
  /** Echo Prism's log lines to this process's output (npm run mock does). */
  echo?: boolean;
  /** How long to wait for all three to listen. Default 60 s. */
  startTimeoutMs?: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The document as Prism reads it: see the note at the top. */
export function documentForPrism(document: Json): Json {
  if (Array.isArray(document)) return document.map(documentForPrism);
  if (document === null || typeof document !== "object") return document;
  const result: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(document)) {
    result[key] = key === "enum" && document.nullable === true && Array.isArray(value) ? value.filter((item) => item !== null) : documentForPrism(value);
  }
  return result;
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 5_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

/** Starts one Prism per API and resolves when all listen. */
export async function startMocks(options: MockOptions = {}): Promise<RunningMocks> {
  const host = options.host ?? "127.0.0.1";
  const children: ChildProcess[] = [];
  const output = { integration: "", auth: "", admin: "" } as Record<ApiName, string>;
  const urls = {} as Record<ApiName, string>;
  const documentsDir = mkdtempSync(join(tmpdir(), "cobro-mock-"));
  const stop = async () => {
    await Promise.all(children.map(stopChild));
    rmSync(documentsDir, { recursive: true, force: true });
  };
  try {
    await Promise.all(
      API_NAMES.map(
        (api) =>
          new Promise<void>((resolve, reject) => {
            const port = options.ports?.[api] ?? DEFAULT_MOCK_PORTS[api];
            const document = documentForPrism(YAML.parse(readFileSync(join(root, "generated", "openapi", `${api}.yaml`), "utf8")) as Json);
            const documentFile = join(documentsDir, `${api}.yaml`);
            writeFileSync(documentFile, YAML.stringify(document, { lineWidth: 0, aliasDuplicateObjects: false }));
            const child = spawn(process.execPath, [prismCli, "mock", documentFile, "--host", host, "--port", String(port)], {
              cwd: root,
              stdio: ["ignore", "pipe", "pipe"],
            });
            children.push(child);
            const timer = setTimeout(
              () => reject(new Error(`Prism for the ${api} API did not start in time:\n${output[api]}`)),
              options.startTimeoutMs ?? 60_000,
            );
            const onData = (chunk: Buffer) => {
              const text = chunk.toString("utf8");
              output[api] += text;
              if (options.echo) for (const line of text.split("\n").filter(Boolean)) process.stdout.write(`[${api}] ${line}\n`);
              const listening = /Prism is listening on (\S+)/.exec(output[api]);
              if (listening && !urls[api]) {
                urls[api] = listening[1]!.replace(/\/+$/, "");
                clearTimeout(timer);
                resolve();
              }
            };
            child.stdout!.on("data", onData);
            child.stderr!.on("data", onData);
            child.once("exit", (code, signal) => {
              clearTimeout(timer);
              if (!urls[api]) reject(new Error(`Prism for the ${api} API exited (${signal ?? code}) before listening:\n${output[api]}`));
            });
          }),
      ),
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { urls, output, stop };
}

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not "${raw}"`);
  return port;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const mocks = await startMocks({
    host: process.env.MOCK_HOST || "127.0.0.1",
    ports: {
      integration: portFromEnv("MOCK_INTEGRATION_PORT", DEFAULT_MOCK_PORTS.integration),
      auth: portFromEnv("MOCK_AUTH_PORT", DEFAULT_MOCK_PORTS.auth),
      admin: portFromEnv("MOCK_ADMIN_PORT", DEFAULT_MOCK_PORTS.admin),
    },
    echo: true,
  }).catch((error: Error) => {
    console.error(error.message);
    process.exit(1);
  });
  console.log(["", "Cobro mocks (Prism) are running", ...API_NAMES.map((api) => `  ${api.padEnd(12)} ${mocks.urls[api]}`), ""].join("\n"));
  const shutdown = () => {
    void mocks.stop().then(() => process.exit(0));
  };
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
