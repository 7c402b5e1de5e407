// The portal (on the Admin host) forwards an admin's sign-in to the Auth API with the browser's address
// and a secret derived from COBRO_SECRET_KEY, so that throttling counts the browser, not the Admin host.
// Here the Admin host and the Auth API are two separate processes that share only the key (the Sandbox's,
// generated into the shared data folder): the Auth API must still trust the forward.
import { request } from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sha256 } from "../../domain/secrets/hashing.ts";
import { startCobroCluster, type CobroCluster } from "../helpers/cobro-cluster.ts";

let cluster: CobroCluster;
let portalHost: string;

beforeAll(async () => {
  cluster = await startCobroCluster();
  await cluster.startApi(); // the Auth API at cluster.authUrl
  portalHost = (await cluster.startExtraApi()).adminUrl; // another process, whose portal forwards there
}, 120_000);
afterAll(() => cluster?.close());

/** A POST from another loopback address, as another browser would come. */
function postFrom(localAddress: string, url: string, body: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const outgoing = request(
      url,
      { method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)) } },
      (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(text);
  });
}

const addressCounts = async () =>
  Object.fromEntries(
    (await cluster.database.db.selectFrom("credential_failures").select(["key_hash", "failures"]).where("scope", "=", "address").execute()).map((row) => [
      row.key_hash,
      row.failures,
    ]),
  );

it("counts the browser's address for a sign-in through another process's portal", async () => {
  const status = await postFrom("127.0.0.2", `${portalHost}/portal/auth-api/integration/admin/login`, {
    email: "nadie@example.com",
    password: "not-the-password",
  });
  expect(status).toBe(401);
  const counts = await addressCounts();
  expect(counts[sha256("127.0.0.2")]).toBe(1);
  // The Admin host's own address (the forward's socket) is not what was counted.
  expect(counts[sha256("127.0.0.1")]).toBeUndefined();
});
