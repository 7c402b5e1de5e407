// `npm run portal:dev`: the portal for frontend work, against the Prism mocks of `npm run mock`. It
// serves the same pages as the Admin host (server/portal.ts), rebuilt by esbuild on every change under
// portal/, and forwards what the portal calls: the Admin API's paths to the admin mock, the admin sign-in
// (/portal/auth-api/integration/admin/*) to the auth mock. Nothing else is needed: the mocks answer the
// contract's examples.
//
// PORTAL_DEV_PORT (default 5173), MOCK_ADMIN_URL (default http://127.0.0.1:4012) and MOCK_AUTH_URL
// (default http://127.0.0.1:4011) change where it listens and where it forwards.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import express, { type Request, type Response } from "express";
import { createLogger, type Logger } from "../runtime/logger.ts";
import { portalRoutes } from "../server/portal.ts";
import { bundleOf, portalBuildOptions, type PortalBundle } from "../server/portal-bundle.ts";
import { DEFAULT_MOCK_PORTS } from "./mock.ts";

export interface PortalDevOptions {
  adminUrl: string;
  authUrl: string;
  port?: number;
  host?: string;
  logger?: Logger;
}

export interface PortalDevServer {
  url: string;
  stop(): Promise<void>;
}

/** Request headers that the Admin API (or Prism) reads; nothing else is passed on. */
const FORWARDED_HEADERS = ["authorization", "content-type", "accept", "prefer"];

export async function startPortalDevServer(options: PortalDevOptions): Promise<PortalDevServer> {
  const logger = options.logger ?? createLogger("info", undefined, "pretty");
  let latest: { bundle: PortalBundle } | { error: Error } | undefined;
  let firstBuild: () => void = () => undefined;
  const built = new Promise<void>((resolve) => (firstBuild = resolve));
  const context = await esbuild.context({
    ...portalBuildOptions(),
    minify: false,
    sourcemap: "inline",
    plugins: [
      {
        name: "keep-latest-build",
        setup(build) {
          build.onEnd((result) => {
            if (result.errors.length > 0 || !result.outputFiles) {
              latest = { error: new Error(result.errors.map((problem) => problem.text).join("\n")) };
              logger.error(
                { errors: result.errors.map((problem) => `${problem.location?.file ?? ""}:${problem.location?.line ?? ""} ${problem.text}`) },
                "portal build failed",
              );
            } else {
              latest = { bundle: bundleOf(result.outputFiles) };
              logger.info("portal rebuilt");
            }
            firstBuild();
          });
        },
      },
    ],
  });
  await context.watch();

  const app = express();
  app.disable("x-powered-by");
  app.use(
    portalRoutes({
      authUrl: options.authUrl,
      // The mocks answer the contract's examples, which are the Sandbox's.
      environment: "sandbox",
      logger,
      bundle: async () => {
        await built;
        if (!latest || "error" in latest) throw latest?.error ?? new Error("no build yet");
        return latest.bundle;
      },
    }),
  );
  // Everything else the portal asks for is the Admin API.
  app.use(express.raw({ type: () => true, limit: "2mb" }), async (req: Request, res: Response) => {
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === "string") headers[name] = value;
    }
    try {
      const answer = await fetch(`${options.adminUrl}${req.originalUrl}`, {
        method: req.method,
        headers,
        body: Buffer.isBuffer(req.body) && req.body.length > 0 ? new Uint8Array(req.body) : undefined,
        redirect: "manual",
      });
      res.status(answer.status);
      const contentType = answer.headers.get("content-type");
      if (contentType) res.setHeader("Content-Type", contentType);
      res.send(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      logger.error(
        { url: req.path, reason: error instanceof Error ? error.message : String(error) },
        "the admin mock did not answer (is `npm run mock` running?)",
      );
      res.status(502).json({ code: "MockUnavailable", message: "The admin mock did not answer", id: "portal-dev" });
    }
  });

  const server: Server = createServer(app);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    stop: async () => {
      await context.dispose();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const dev = await startPortalDevServer({
    adminUrl: process.env.MOCK_ADMIN_URL || `http://127.0.0.1:${DEFAULT_MOCK_PORTS.admin}`,
    authUrl: process.env.MOCK_AUTH_URL || `http://127.0.0.1:${DEFAULT_MOCK_PORTS.auth}`,
    port: Number(process.env.PORTAL_DEV_PORT || 5173),
  });
  console.log(`\nThe portal (against the mocks of \`npm run mock\`): ${dev.url}/portal/\n`);
  const shutdown = () => void dev.stop().then(() => process.exit(0));
  process.once("SIGINT", shutdown);
  process.once("SIGTERM", shutdown);
}
