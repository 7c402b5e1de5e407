// Real HTTP to one API app built by the runtime (createApiApp) on the real generated document, on an
// ephemeral port. Tests of the runtime itself use it with stand-in security handlers and handlers.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createApiApp, type ApiAppOptions } from "../../server/http/api-app.ts";
import { loadDocument, outsideContractRoutes } from "../../server/api-apps.ts";
import { loadConfig } from "../../runtime/config.ts";
import { systemClock } from "../../domain/clock.ts";
import type { ApiName } from "../../runtime/config.ts";
import type { Services } from "../../handlers/handler-types.ts";
import { captureLogs } from "./captured-logs.ts";
import { createMetrics } from "../../runtime/metrics.ts";

export interface TestApi {
  url: string;
  logLines: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startTestApi<Caller>(
  api: ApiName,
  overrides: Pick<ApiAppOptions<Caller>, "handlers" | "security" | "anonymous"> & Partial<ApiAppOptions<Caller>> & { services?: Services },
): Promise<TestApi> {
  const { logger, logLines } = captureLogs();
  const services: Services = overrides.services ?? {
    db: undefined as never,
    clock: systemClock,
    config: loadConfig({}, []),
    tokens: undefined as never,
    credentialThrottle: undefined as never,
    transfers: undefined as never,
    outboundHttp: undefined as never,
    metrics: createMetrics("test"),
    isStopping: () => false,
  };
  const { app } = await createApiApp<Caller>({
    api,
    document: loadDocument(api),
    logger,
    maxBodyBytes: 1024 * 1024,
    validateResponses: true,
    outsideContract: outsideContractRoutes(api, services, overrides.logger ?? logger),
    ...overrides,
    services,
  });
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    logLines,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
