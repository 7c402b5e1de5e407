// Forged, altered, stale and misplaced bearer tokens against both bearer APIs: the Integration API (a
// merchant's idToken; refusals in plain text) and the Admin API (an admin's idToken; refusals as
// {code, message, id}). Each forgery starts from a genuine token, which is first shown to be accepted, so
// that every refusal below is the token check's doing.
import { beforeAll, describe, expect, it } from "vitest";
import { connect } from "node:net";
import { createHmac, createPublicKey, randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, SignJWT, type JWK } from "jose";
import { ManualClock } from "../../domain/clock.ts";
import { TokenService } from "../../domain/sign-in/tokens.ts";
import { postJson, read, serviceForFile } from "../helpers/service.ts";
import { sandboxAdmin, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody } from "../helpers/charges.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let sandbox: SandboxCredentials;
/** A merchant's idToken and refresh token (Sandbox test tokens), and an integration admin's idToken and refresh token. */
let merchant: { idToken: string; refreshToken: string };
let admin: { idToken: string; refreshToken: string };

beforeAll(async () => {
  sandbox = await t.sandbox();
  admin = await adminLogin(sandbox);
  merchant = await testTokens(admin.idToken);
});

async function adminLogin(credentials: SandboxCredentials): Promise<{ idToken: string; refreshToken: string }> {
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, credentials.integrationAdmin));
  expect(login.status, login.text).toBe(200);
  return login.json;
}

async function testTokens(adminIdToken: string): Promise<{ idToken: string; refreshToken: string }> {
  const issued = await read(await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${adminIdToken}` } }));
  expect(issued.status, issued.text).toBe(200);
  return issued.json;
}

type Authorization = string | undefined;
const integrationCall = async (authorization: Authorization, path = "/me") =>
  read(await fetch(`${t.integrationUrl}${path}`, { headers: authorization === undefined ? {} : { authorization } }));
const adminCall = async (authorization: Authorization) =>
  read(await fetch(`${t.adminUrl}/my-integration/events?limit=1`, { headers: authorization === undefined ? {} : { authorization } }));

function expectIntegrationUnauthorized(result: Awaited<ReturnType<typeof read>>, what: string) {
  expect({ what, status: result.status, contentType: result.headers.get("content-type"), text: result.text }).toEqual({
    what,
    status: 401,
    contentType: expect.stringMatching(/^text\/plain/),
    text: "Unauthorized",
  });
}

function expectAdminUnauthorized(result: Awaited<ReturnType<typeof read>>, what: string) {
  expect({ what, status: result.status, body: result.json }).toEqual({
    what,
    status: 401,
    body: { code: "UnauthorizedError", message: expect.any(String), id: expect.any(String) },
  });
}

// --- building forgeries -----------------------------------------------------------------------------

const base64url = (bytes: Buffer | string) => Buffer.from(bytes).toString("base64url");
const encodeJson = (value: object) => base64url(JSON.stringify(value));

function decode(token: string): { header: Record<string, unknown>; payload: Record<string, unknown>; signature: string } {
  const [header, payload, signature] = token.split(".");
  return {
    header: JSON.parse(Buffer.from(header!, "base64url").toString()),
    payload: JSON.parse(Buffer.from(payload!, "base64url").toString()),
    signature: signature!,
  };
}

/** The genuine token's signature over other claims. */
function withAlteredClaims(token: string, changes: Record<string, unknown>): string {
  const [header, , signature] = token.split(".");
  return `${header}.${encodeJson({ ...decode(token).payload, ...changes })}.${signature}`;
}

function unsigned(token: string): string[] {
  const { header, payload } = decode(token);
  const noneHeader = { ...header, alg: "none" };
  return [
    `${encodeJson(noneHeader)}.${encodeJson(payload)}.`,
    `${encodeJson(noneHeader)}.${encodeJson(payload)}`,
    `${encodeJson({ ...header, alg: "None" })}.${encodeJson(payload)}.`,
  ];
}

/** HS256 over the genuine claims, keyed with `secret` (the algorithm-confusion attack: the public key as an HMAC secret). */
function hs256(token: string, secret: string): string {
  const { header, payload } = decode(token);
  const signingInput = `${encodeJson({ ...header, alg: "HS256" })}.${encodeJson(payload)}`;
  return `${signingInput}.${base64url(createHmac("sha256", secret).update(signingInput).digest())}`;
}

/** The genuine claims signed ES256 with a key of our own, under the service's kid or an unknown one. */
async function signedWithOwnKey(token: string, kid: string): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256");
  return new SignJWT(decode(token).payload).setProtectedHeader({ alg: "ES256", kid, typ: "JWT" }).sign(privateKey);
}

/** Tokens this service's own key signs, issued by a token service whose issuer or clock differs. */
async function issuer(options: { issuer?: string; now?: Date }): Promise<TokenService> {
  const tokens = new TokenService(t.database.db, new ManualClock(options.now ?? t.clock.now()), options.issuer ?? "http://auth.cobro.test");
  await tokens.init();
  return tokens;
}

async function forgeries(genuine: string): Promise<Array<[string, string]>> {
  const jwks = (await read(await fetch(`${t.authUrl}/.well-known/jwks.json`))).json as { keys: JWK[] };
  const { header } = decode(genuine);
  const serviceKey = jwks.keys.find((key) => key.kid === header.kid)!;
  expect(serviceKey).toMatchObject({ alg: "ES256", kty: "EC", crv: "P-256" });
  expect(header.alg).toBe("ES256");
  const pem = createPublicKey({ key: serviceKey as never, format: "jwk" })
    .export({ type: "spki", format: "pem" })
    .toString();
  const { payload } = decode(genuine);
  const now = Math.floor(t.clock.now().getTime() / 1000);
  return [
    ...unsigned(genuine).map((token, index) => [`alg none #${index + 1}`, token] as [string, string]),
    ["HS256 keyed with the public key as PEM", hs256(genuine, pem)],
    ["HS256 keyed with the public key as JWK JSON", hs256(genuine, JSON.stringify(serviceKey))],
    ["HS256 keyed with any string", hs256(genuine, "secret")],
    ["ES256 with a key of our own under the service's kid", await signedWithOwnKey(genuine, String(header.kid))],
    ["ES256 with a key of our own under an unknown kid", await signedWithOwnKey(genuine, randomUUID())],
    [
      "the service's key published in the header (jwk)",
      `${encodeJson({ ...header, jwk: await exportJWK((await generateKeyPair("ES256")).publicKey) })}.${genuine.split(".")[1]}.${decode(genuine).signature}`,
    ],
    ["a changed sub", withAlteredClaims(genuine, { sub: randomUUID() })],
    ["a changed aud", withAlteredClaims(genuine, { aud: payload.aud === "cobro-admin" ? sandbox.integration.clientId : "cobro-admin" })],
    ["a changed exp", withAlteredClaims(genuine, { exp: now + 365 * 86400 })],
    ["a changed role", withAlteredClaims(genuine, { role: "PLATFORM_ADMIN" })],
    ["a truncated signature", genuine.slice(0, -4)],
    ["an empty signature", `${genuine.split(".").slice(0, 2).join(".")}.`],
  ];
}

/** The genuine token's claims issued by a token service with the real key but the wrong issuer or clock. */
async function reissued(kind: "merchant" | "admin"): Promise<Array<[string, string]>> {
  const genuine = decode(kind === "merchant" ? merchant.idToken : admin.idToken).payload as Record<string, string>;
  const issue = (tokens: TokenService) =>
    kind === "merchant"
      ? tokens.issueMerchantToken({
          merchantAccountId: genuine.sub!,
          providerClientId: genuine.aud!,
          grantId: genuine.sid!,
          scope: genuine.scope!,
          email: genuine.email!,
        })
      : tokens.issueAdminToken({
          adminUserId: genuine.sub!,
          sessionId: genuine.sid!,
          role: genuine.role!,
          integrationClientId: genuine.integration_client_id!,
          email: genuine.email!,
        });
  const now = t.clock.now().getTime();
  return [
    ["the wrong issuer", await issue(await issuer({ issuer: "http://auth.attacker.test" }))],
    ["expired (issued 2 hours ago)", await issue(await issuer({ now: new Date(now - 2 * 3600_000) }))],
    ["not yet valid (issued 10 minutes from now)", await issue(await issuer({ now: new Date(now + 10 * 60_000) }))],
  ];
}

const malformed: Array<[string, Authorization]> = [
  ["no Authorization", undefined],
  ["an empty Authorization", ""],
  ["Bearer and nothing", "Bearer"],
  ["Bearer and a space", "Bearer "],
  ["garbage", "Bearer garbage"],
  ["three empty parts", "Bearer .."],
  ["base64 noise in three parts", "Bearer eyJ.eyJ.eyJ"],
  ["a JSON header only", `Bearer ${encodeJson({ alg: "ES256" })}`],
  ["Basic credentials", `Basic ${Buffer.from("user:password").toString("base64")}`],
  ["the token without a scheme", "TOKEN"],
];

// --- the corpus ---------------------------------------------------------------------------------------

interface BearerApi {
  name: string;
  kind: "merchant" | "admin";
  genuine: () => string;
  /** Other genuine credentials that are not this API's bearer. */
  misplaced: () => Array<[string, string]>;
  baseUrl: () => string;
  /** A cheap operation of the API that the genuine token may call. */
  path: string;
  expectRefused: (result: Awaited<ReturnType<typeof read>>, what: string) => void;
}

const bearerApis: BearerApi[] = [
  {
    name: "the Integration API (401 Unauthorized, plain text)",
    kind: "merchant",
    genuine: () => merchant.idToken,
    misplaced: () => [
      ["an admin's idToken", admin.idToken],
      ["a merchant's refresh token", merchant.refreshToken],
      ["an admin's refresh token", admin.refreshToken],
    ],
    baseUrl: () => t.integrationUrl,
    path: "/me",
    expectRefused: expectIntegrationUnauthorized,
  },
  {
    name: "the Admin API (401 UnauthorizedError)",
    kind: "admin",
    genuine: () => admin.idToken,
    misplaced: () => [
      ["a merchant's idToken", merchant.idToken],
      ["a merchant's refresh token", merchant.refreshToken],
      ["an admin's refresh token", admin.refreshToken],
    ],
    baseUrl: () => t.adminUrl,
    path: "/my-integration/events?limit=1",
    expectRefused: expectAdminUnauthorized,
  },
];

describe.each(bearerApis)("$name refuses forged, altered and misplaced tokens", (api) => {
  const call = async (authorization: Authorization) =>
    read(await fetch(`${api.baseUrl()}${api.path}`, { headers: authorization === undefined ? {} : { authorization } }));

  it("accepts the genuine token, also with the scheme in another case (auth schemes are case-insensitive, RFC 9110)", async () => {
    for (const scheme of ["Bearer", "bearer", "BEARER"]) expect((await call(`${scheme} ${api.genuine()}`)).status).toBe(200);
  });

  it("forged signatures, algorithms and keys, and claims altered under the genuine signature", async () => {
    for (const [what, token] of await forgeries(api.genuine())) api.expectRefused(await call(`Bearer ${token}`), what);
  });

  it("tokens signed with the service's key but of the wrong issuer, expired, or not yet valid", async () => {
    for (const [what, token] of await reissued(api.kind)) api.expectRefused(await call(`Bearer ${token}`), what);
  });

  it("malformed Authorization headers", async () => {
    for (const [what, authorization] of malformed) api.expectRefused(await call(authorization), what);
  });

  it("another API's token and refresh tokens", async () => {
    for (const [what, token] of api.misplaced()) api.expectRefused(await call(`Bearer ${token}`), what);
  });

  it("two Authorization headers are refused, even when one of them, or both, are genuine", async () => {
    const genuine = `Bearer ${api.genuine()}`;
    expect(await rawStatus(api.baseUrl(), api.path, [genuine])).toBe(200);
    expect(await rawStatus(api.baseUrl(), api.path, [genuine, "Bearer garbage"])).toBe(401);
    expect(await rawStatus(api.baseUrl(), api.path, ["Bearer garbage", genuine])).toBe(401);
    expect(await rawStatus(api.baseUrl(), api.path, [genuine, genuine])).toBe(401);
  });
});

describe("revoked grants and sessions, other integrations, other roles", () => {
  it("a revoked grant is refused at once on the Integration API, and its refresh token no longer refreshes", async () => {
    const own = await t.sandbox();
    const tokens = await testTokens((await adminLogin(own)).idToken);
    expect((await integrationCall(`Bearer ${tokens.idToken}`)).status).toBe(200);
    const revoked = await read(
      await postJson(`${t.authUrl}/integration/oauth2/revoke`, {
        token: tokens.refreshToken,
        clientId: own.integration.clientId,
        clientSecret: own.integration.clientSecret,
      }),
    );
    expect(revoked.status, revoked.text).toBe(200);
    expectIntegrationUnauthorized(await integrationCall(`Bearer ${tokens.idToken}`), "idToken of a revoked grant");
    const refreshed = await read(
      await postJson(`${t.authUrl}/integration/oauth2/refresh`, {
        refreshToken: tokens.refreshToken,
        clientId: own.integration.clientId,
        clientSecret: own.integration.clientSecret,
      }),
    );
    expect(refreshed.status).not.toBe(200);
  });

  it("the idToken of a signed-out admin session is refused at once on the Admin API", async () => {
    const session = await adminLogin(sandbox);
    expect((await adminCall(`Bearer ${session.idToken}`)).status).toBe(200);
    const loggedOut = await postJson(`${t.authUrl}/integration/admin/logout`, { refreshToken: session.refreshToken });
    expect(loggedOut.status).toBe(204);
    expectAdminUnauthorized(await adminCall(`Bearer ${session.idToken}`), "signed-out session");
  });

  it("another integration's merchant token cannot read a charge of this one's merchant: 404 as for a charge that does not exist", async () => {
    const mine = await read(await postJson(`${t.integrationUrl}/payment-request`, chargeBody(), { authorization: `Bearer ${merchant.idToken}` }));
    expect(mine.status, mine.text).toBe(201);
    const other = await t.sandbox();
    const theirs = await testTokens((await adminLogin(other)).idToken);
    const read404 = await integrationCall(`Bearer ${theirs.idToken}`, `/payment-request/${mine.json.referenceId}`);
    expect(read404.status).toBe(404);
    expect(read404.json).toEqual({ message: "Payment request not found" });
    expect((await integrationCall(`Bearer ${merchant.idToken}`, `/payment-request/${mine.json.referenceId}`)).status).toBe(200);
    // The other integration's token carrying this integration's clientId as audience breaks its signature.
    expectIntegrationUnauthorized(
      await integrationCall(`Bearer ${withAlteredClaims(theirs.idToken, { aud: sandbox.integration.clientId })}`, `/payment-request/${mine.json.referenceId}`),
      "aud swapped",
    );
  });

  it("a platform admin's genuine token on an integration admin's operation is 403 ForbiddenError, and the reverse too", async () => {
    const platform = await signedInAdmin(t, sandbox.platformAdmin);
    const result = await adminCall(`Bearer ${platform.token}`);
    expect(result.status).toBe(403);
    expect(result.json).toEqual({ code: "ForbiddenError", message: expect.any(String), id: expect.any(String) });
    const integrationAdmin = await sandboxAdmin(t, sandbox);
    const reverse = await integrationAdmin.call("GET", "/integration-admin/setup/clients");
    expect(reverse.status).toBe(403);
    expect(reverse.json).toEqual({ code: "ForbiddenError", message: expect.any(String), id: expect.any(String) });
  });
});

/** The status of a request sent over a raw socket, with each `authorizations` value as its own header line. */
function rawStatus(baseUrl: string, path: string, authorizations: string[]): Promise<number> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("error", reject);
    socket.on("end", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0)));
    socket.write(
      `GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\n${authorizations.map((value) => `Authorization: ${value}\r\n`).join("")}Connection: close\r\n\r\n`,
    );
  });
}
