// The published SDK as an integrator gets it: `npm pack` in sdk/ (its prepack builds it with tsc), the
// tarball installed into an empty project, then imported and used there with Node (the Node running this
// suite, and the machine's older Node too when there is one, since the package promises Node 18 and
// later), and its type declarations checked by a strict TypeScript consumer.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { CodeChallengeMethod, OAuth2Client } from "arctic";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand as run } from "./run-command.ts";

const root = resolve(import.meta.dirname, "../..");
const sdkDir = join(root, "sdk");
const systemNode = "/usr/bin/node";

let workDir: string;
let projectDir: string;
let tarball: string;

beforeAll(() => {
  workDir = mkdtempSync(join(tmpdir(), "cobro-sdk-pack-"));
  const packed = JSON.parse(run("npm", ["pack", "--json", "--pack-destination", workDir], sdkDir)) as Array<{
    filename: string;
    files: Array<{ path: string }>;
  }>;
  tarball = join(workDir, packed[0]!.filename);
  projectDir = join(workDir, "integrator-app");
  mkdirSync(projectDir);
  writeFileSync(join(projectDir, "package.json"), JSON.stringify({ name: "integrator-app", version: "1.0.0", private: true, type: "module" }));
  // The package has no dependencies, so the install needs no registry.
  run("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], projectDir);
  copyFileSync(join(root, "test", "sdk", "fixtures", "consumer.mjs"), join(projectDir, "consumer.mjs"));
}, 120_000);

afterAll(() => {
  if (workDir) rmSync(workDir, { recursive: true, force: true });
});

describe("the packed @cobro/sdk", () => {
  it("holds the built ESM and declarations, and no sources, tests or generator leftovers", () => {
    const listed = JSON.parse(run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], sdkDir)) as Array<{ files: Array<{ path: string }> }>;
    const files = listed[0]!.files.map((file) => file.path);
    expect(files).toContain("package.json");
    expect(files).toContain("README.md");
    expect(files).toContain("dist/index.js");
    expect(files).toContain("dist/index.d.ts");
    expect(files).toContain("dist/generated/integration/apis/PaymentRequestsApi.js");
    expect(files).toContain("dist/cli/main.js");
    expect(files).toContain("bin/cobro.js");
    expect(files).toContain("dist/event-stream.js");
    expect(files).toContain("dist/event-stream.d.ts");
    expect(files.filter((file) => !file.startsWith("dist/") && !["package.json", "README.md", "bin/cobro.js"].includes(file))).toEqual([]);
    expect(files.some((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toBe(false);
  });

  it("installs into an empty project with nothing else", () => {
    // .bin holds the package's command line, `cobro`.
    expect(readdirSync(join(projectDir, "node_modules")).sort()).toEqual([".bin", ".package-lock.json", "@cobro"]);
    expect(existsSync(join(projectDir, "node_modules", "@cobro", "sdk", "dist", "index.js"))).toBe(true);
  });

  const nodes = [process.execPath, ...(existsSync(systemNode) ? [systemNode] : [])];
  it.each(nodes)("imports and works under %s", { timeout: 60_000 }, (node) => {
    const version = run(node, ["--version"], projectDir).trim();
    const output = JSON.parse(run(node, ["consumer.mjs"], projectDir).trim().split("\n").pop()!) as Record<string, any>;
    expect(output.error, version).toBeUndefined();

    expect(output.exports).toEqual({ integration: "function", auth: "function", admin: "function", subpathIsSame: true, errorsSubpathIsSame: true });
    expect(output.webhook).toEqual({ valid: true, wrongSecret: false });

    // The authorization URL: the parameters of the Auth API, state, and the PKCE S256 challenge that an
    // independent OAuth library (arctic) computes for the same verifier.
    const url = new URL(output.authorization.url);
    expect(url.pathname).toBe("/integration/oauth2/authorize");
    expect(url.searchParams.get("response_type")).toBe("code");
    expect(url.searchParams.get("client_id")).toBe("cli_123");
    expect(url.searchParams.get("redirect_uri")).toBe("https://app.example.com/callback");
    expect(url.searchParams.get("state")).toBe(output.authorization.state);
    expect(output.authorization.state).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(output.authorization.codeVerifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get("code_challenge_method")).toBe("S256");
    const arctic = new OAuth2Client("cli_123", null, "https://app.example.com/callback").createAuthorizationURLWithPKCE(
      `${url.origin}${url.pathname}`,
      output.authorization.state,
      CodeChallengeMethod.S256,
      output.authorization.codeVerifier,
      [],
    );
    expect(url.searchParams.get("code_challenge")).toBe(arctic.searchParams.get("code_challenge"));

    // The code exchange in the documented JSON form.
    expect(output.exchange.sent).toEqual({
      grantType: "authorization_code",
      code: "ac_789",
      clientId: "cli_123",
      clientSecret: "cs_456",
      redirectUri: "https://app.example.com/callback",
      codeVerifier: output.authorization.codeVerifier,
    });
    expect(output.exchange.tokens).toMatchObject({ refreshToken: "rt_1", tokenType: "Bearer", expiresIn: 3600 });

    // Refresh before expiry: one refresh for three concurrent requests, all sent with the new token.
    expect(output.client.refreshes).toBe(1);
    expect(output.client.refreshBody).toEqual({ grantType: "refresh_token", refreshToken: "rt_1", clientId: "cli_123", clientSecret: "cs_456" });
    expect(output.client.authorizations).toHaveLength(4);
    for (const authorization of output.client.authorizations) expect(authorization).toBe(`Bearer ${output.exchange.tokens.idToken}`);
    expect(output.client.refreshedTo).toEqual([output.exchange.tokens.idToken]);
    expect(output.client.expiresInSeconds).toBeGreaterThan(3500);
    expect(output.client.me).toMatchObject({ merchantUserId: "merchant-1" });
    expect(output.expiryFromJwt).toBeGreaterThan(3500);

    // The retry guidance: 500 → GET 404 → create again → 201; 409 ReferenceIdAlreadyExists → GET → existing.
    expect(output.createAfter500).toEqual({ outcome: "created", referenceId: "INV-NEW-000001", creates: 2, gets: 1 });
    expect(output.createExisting).toEqual({ outcome: "existing", referenceId: "INV-EXISTS-0001" });
    expect(output.bulk).toEqual({ createdEarlier: "created_earlier", rejected: "rejected" });
  });

  it.each(nodes)("installs the `cobro` command, which runs under %s", { timeout: 60_000 }, (node) => {
    const help = run(node, [join(projectDir, "node_modules", ".bin", "cobro"), "--help"], projectDir);
    expect(help).toMatch(/^Usage: cobro <command> \[options\]/);
    expect(help).toContain("listen");
    // What `npx cobro` runs: the linked bin, by its shebang.
    expect(run(join(projectDir, "node_modules", ".bin", "cobro"), ["clock", "advance", "--help"], projectDir)).toMatch(/^Usage: cobro clock advance/);
  });

  it("has declarations that a strict TypeScript project compiles against", () => {
    writeFileSync(
      join(projectDir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          lib: ["es2022", "dom"],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        include: ["consumer-types.ts"],
      }),
    );
    writeFileSync(
      join(projectDir, "consumer-types.ts"),
      `import { CobroClient, CobroOAuth, createOrGet, verifyWebhookSignature, integration, type CreateOrGetResult } from "@cobro/sdk";
import { PaymentRequestsApi, type PaymentRequest } from "@cobro/sdk/integration";
import type { TokenSet } from "@cobro/sdk/auth";
import { TenantsApi } from "@cobro/sdk/admin";
import { errorBodyOf, errorCodeOf, validationDetailsOf, type ValidationDetailLike } from "@cobro/sdk/errors";
import { EventStream, type StreamedEvent } from "@cobro/sdk";
import { Configuration as AdminConfiguration } from "@cobro/sdk/admin";

const valid: boolean = verifyWebhookSignature("{}", "t=1,v1=00", "secret", { toleranceSeconds: 60, now: new Date() });
const oauth = new CobroOAuth({ authUrl: "https://auth.example", clientId: "c", clientSecret: "s" });
const exchanged: Promise<TokenSet> = oauth.exchangeCode({ code: "x", redirectUri: "https://app.example/cb" });
const client = new CobroClient({ integrationUrl: "https://api.example", authUrl: "https://auth.example", clientId: "c", clientSecret: "s", tokens: { idToken: "i", refreshToken: "r" } });
const api: PaymentRequestsApi = client.paymentRequests;
const charge: Promise<PaymentRequest> = api.getPaymentRequest({ referenceId: "INV-0001-abc" });
const outcome: Promise<CreateOrGetResult> = createOrGet(api, { referenceId: "INV-0001-abc", description: "Cuota", dueDates: ["2026-12-10"], customer: { name: "Juan", taxDocument: "20301234563" } });
const state: integration.PaymentRequestState | undefined = undefined;
const fields: Promise<ValidationDetailLike[]> = charge.then(() => [], async (error: unknown) => validationDetailsOf(await errorBodyOf(error)));
const code: string | undefined = errorCodeOf(undefined);
const stream = new EventStream({ configuration: new AdminConfiguration({ basePath: "https://admin.example", accessToken: "t" }), events: ["payment.unmatched"] });
const followed: AsyncIterable<StreamedEvent> = stream;
const position: string | undefined = stream.lastEventId;
export { valid, exchanged, charge, outcome, state, fields, code, TenantsApi, followed, position };
`,
    );
    run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.json"], projectDir);
  }, 60_000);
});
