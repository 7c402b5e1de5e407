// `npm run fuzz`: schemathesis against a live Sandbox, from the documents each API serves at /openapi.yaml.
// Starts `npm start`'s bundle of server/main.ts on free ports with a fresh embedded PostgreSQL in a temporary folder, creates a
// Sandbox set with `scripts/sandbox-bootstrap.ts --json` (it attaches to that server's database), signs in
// the integration admin and the platform admin (Auth API) and gets a merchant idToken
// (`POST /my-integration/test-tokens`), then runs schemathesis once per API and token with every check
// and every phase (stateful included: the contract has no OpenAPI links, schemathesis infers them from the
// schemas and Location headers), prints a summary, stops the server and exits non-zero on any failure.
//
// Environment:
//   FUZZ_MAX_EXAMPLES  test cases per operation and phase (default 15)
//   FUZZ_MAX_TIME      optional time budget per run, in seconds (schemathesis --max-time: fuzzing and
//                      stateful testing then repeat until it is spent)
//   FUZZ_SEED          the seed (default: a random one; the same for every run, printed with the command that replays it)
//   FUZZ_APIS          which APIs (default integration,auth,admin)
//   FUZZ_WORKERS       schemathesis workers (default 1, see below)
//   FUZZ_RUN_TIMEOUT   seconds after which one run is stopped and counted as failed (default 600)
//   FUZZ_REPORT_DIR    keep schemathesis's JUnit reports and the server log there
//   SCHEMATHESIS       the command (default: `.venv-fuzz/bin/python -m schemathesis.cli` when that virtual
//                      environment exists, else `python3 -m schemathesis.cli`; see INSTALL below)
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { chmodSync, copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiName } from "../runtime/config.ts";
import { servedUrls } from "./cobro-process.ts";
import { serverBundle } from "./build-server.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const API_NAMES: ApiName[] = ["integration", "auth", "admin"];

const deep = process.argv.includes("--deep");
const maxExamples = positiveInt("FUZZ_MAX_EXAMPLES", deep ? 100 : 15);
const STATELESS_PHASES = "examples,coverage,fuzzing";
const phases = deep ? `${STATELESS_PHASES},stateful` : STATELESS_PHASES;
const maxTime = process.env.FUZZ_MAX_TIME ? positiveInt("FUZZ_MAX_TIME", 60) : undefined;
const seed = process.env.FUZZ_SEED ? positiveInt("FUZZ_SEED", 1) : 1 + Math.floor(Math.random() * 2 ** 31);
/** The command that draws the same test cases again: the seed, and the settings given that shape the draws. */
const replay = [
  `FUZZ_SEED=${seed}`,
  ...["FUZZ_MAX_EXAMPLES", "FUZZ_MAX_TIME", "FUZZ_APIS", "FUZZ_WORKERS"].filter((name) => process.env[name]).map((name) => `${name}=${process.env[name]}`),
  `npm run ${deep ? "fuzz:deep" : "fuzz"}`,
].join(" ");
// One worker: with several, schemathesis's threads race in Python 3.11's `ast.parse` (hypothesis describes
// its lambdas) and a run can end with "AST constructor recursion depth mismatch", an error of the tool.
const workers = positiveInt("FUZZ_WORKERS", 1);
const runTimeoutMs = positiveInt("FUZZ_RUN_TIMEOUT", 600) * 1000;
const apis = (process.env.FUZZ_APIS ?? API_NAMES.join(","))
  .split(",")
  .map((name) => name.trim())
  .filter(Boolean) as ApiName[];
/**
 * The harness's own calls (sign-ins, test tokens, widget keys) come from 127.0.0.2, not from
 * schemathesis's 127.0.0.1: the fuzzing's wrong passwords make its address wait (credential throttling,
 * 429), as they should, and the admin who signs in next is another client with an address of its own.
 */
const HARNESS_ADDRESS = "127.0.0.2";

const reportDir = process.env.FUZZ_REPORT_DIR ? resolve(process.env.FUZZ_REPORT_DIR) : undefined;
/** Debian's Python refuses a global `pip install` (PEP 668): schemathesis goes into a virtual environment in the repository. */
const VENV_PYTHON = join(root, ".venv-fuzz", "bin", "python");
const INSTALL = ["python3 -m venv .venv-fuzz", ".venv-fuzz/bin/pip install -r requirements-fuzz.txt"];
const schemathesis = (process.env.SCHEMATHESIS || `${existsSync(VENV_PYTHON) ? VENV_PYTHON : "python3"} -m schemathesis.cli`).split(/\s+/).filter(Boolean);
for (const api of apis) if (!API_NAMES.includes(api)) usage(`FUZZ_APIS: unknown API "${api}" (use ${API_NAMES.join(", ")})`);

/**
 * Operations whose documented refusals also cover rules that a JSON Schema cannot state (a date relative
 * to today, a check digit, one field against another), so that a request that fits the schema may rightly
 * be refused. For these alone, the check that a schema-valid request is accepted (positive_data_acceptance,
 * ST202) also takes the statuses listed here; every other check applies in full, and the refusal must still
 * be a documented status with a body that fits the contract. A rule the schema can state belongs in spec/.
 */
const BUSINESS_RULES: Record<ApiName, Record<string, { statuses: string[]; rules: string }>> = {
  integration: {
    createPaymentRequest: {
      statuses: ["400"],
      rules:
        "due dates: real calendar dates, after today and at most 35 days ahead (Argentina time), two in order, one for a draft; a surcharge needs an amount and two dates; at most 2 decimals; the CUIL check digit",
    },
    createPaymentRequestsBulk: {
      statuses: ["400", "422"],
      rules: "the create rules for every item (400), and the 422 item refusals: CUIL check digit, duplicates within the batch, referenceIds that exist",
    },
    completePaymentRequestAmount: {
      statuses: ["400"],
      rules: "at most 2 decimals (not a JSON Schema multipleOf, which binary floating point judges wrongly: 19.99)",
    },
    updatePaymentRequestCustomer: { statuses: ["400"], rules: "the taxDocument's check digit" },
    listPaymentRequests: { statuses: ["400"], rules: "endDate not before startDate" },
    listUnmatchedPayments: { statuses: ["400"], rules: "from before to" },
    assignUnmatchedPayment: { statuses: ["400"], rules: "exactly one of paymentRequestId and referenceId" },
    createCheckoutPayment: {
      statuses: ["400", "422"],
      rules:
        "the create rules of a checkout charge (at most 2 decimals, metadata's 8 KB) (400); merchantUserId of a merchant account linked to the integration (422)",
    },
    lookupPayer: { statuses: ["400"], rules: "a CUIL or CUIT with a known prefix and a valid check digit" },
  },
  auth: {
    authorize: { statuses: ["400"], rules: "one spelling (snake_case or camelCase) of response_type, client_id and redirect_uri is required" },
    exchangeToken: { statuses: ["400"], rules: "RFC 6749 §5.2: the parameters each grant_type needs, a code that exists (invalid_request, invalid_grant)" },
    refreshToken: { statuses: ["400"], rules: "RFC 6749 §5.2: a refresh token that exists (invalid_grant)" },
    completeAdminPasswordReset: { statuses: ["410"], rules: "a token that was mailed, unused, within its hour and not replaced" },
    showAdminPasswordResetPage: { statuses: ["410"], rules: "a token that was mailed, unused, within its hour and not replaced" },
    submitAdminPasswordResetPage: { statuses: ["400", "410"], rules: "the form shows a too short password on the page (400); a live token (410)" },
    showMerchantPasswordResetPage: { statuses: ["410"], rules: "a token that was mailed, unused, within its lifetime and not replaced" },
    submitMerchantPasswordResetPage: { statuses: ["400", "410"], rules: "the form shows a too short password on the page (400); a live token (410)" },
    showPayoutLinkAcceptPage: {
      statuses: ["410"],
      rules: "a token that was mailed, unused, within its 7 days and not replaced by a newer invitation or a resend",
    },
    acceptPayoutLink: { statuses: ["410"], rules: "a token that was mailed, unused, within its 7 days and not replaced by a newer invitation or a resend" },
    showCommissionProposalPage: {
      statuses: ["410"],
      rules: "a token of a proposal still pending: mailed, unanswered, not withdrawn or superseded, within its 7 days, its merchant account still linked",
    },
    answerCommissionProposal: {
      statuses: ["410"],
      rules: "a token of a proposal still pending: mailed, unanswered, not withdrawn or superseded, within its 7 days, its merchant account still linked",
    },
  },
  admin: {
    advanceSandboxClock: { statuses: ["400"], rules: "the clock only moves forward, and no further than 9999-12-31T23:59:59Z" },
    simulatePayment: { statuses: ["400"], rules: "the cvu belongs to a charge of the integration; at most 2 decimals" },
    createTestCharge: {
      statuses: ["400"],
      rules: "the charge create rules: a due date after today by the integration's clock and at most 35 days ahead, at most 2 decimals",
    },
    replaceOffer: { statuses: ["400"], rules: "at most 2 decimals" },
    getEarnings: { statuses: ["400"], rules: "startDate not after endDate, at most 366 days, real calendar dates" },
    exportEarningsCsv: { statuses: ["400"], rules: "startDate not after endDate, at most 366 days, real calendar dates" },
    getPlatformEarnings: { statuses: ["400"], rules: "startDate not after endDate, at most 366 days, real calendar dates" },
    listAuditLog: { statuses: ["400"], rules: "from not after to" },
    listMyAuditLog: { statuses: ["400"], rules: "from not after to" },
    listUnmatchedPayments: { statuses: ["400"], rules: "from before to" },
    listPlatformUnmatchedPayments: { statuses: ["400"], rules: "from before to" },
    assignUnmatchedPayment: { statuses: ["400"], rules: "exactly one of paymentRequestId and referenceId" },
    getDailyStatement: { statuses: ["400"], rules: "a real calendar date, not after the integration's today" },
    getPlatformDailyStatement: { statuses: ["400"], rules: "a real calendar date, not after today" },
    proposeCommissionChange: { statuses: ["400"], rules: "percentage with at most 2 decimals" },
    createMessageCapRequest: { statuses: ["400"], rules: "requestedPerDay above the integration's cap in force" },
    approveMessageCapRequest: { statuses: ["400"], rules: "approvedPerDay above the integration's cap in force" },
    // The ones below are for the owners of webhooks, client URLs and tenants to settle (see the fuzz
    // report): a schema could state some (validationToken only with urlType webhook; enabledEvents from the
    // catalog), and a refusal that depends on the stored resource may rather be a 409.
    createClientUrl: {
      statuses: ["400"],
      rules: "validationToken only with urlType webhook; a redirect_uri is an http(s) URL whose host is a host name or an IP address",
    },
    updateClientUrl: {
      statuses: ["400"],
      rules: "validationToken only on a webhook URL (the URL's stored type); a redirect_uri is an http(s) URL whose host is a host name or an IP address",
    },
    createIntegrationClient: {
      statuses: ["400"],
      rules: "redirectUrls and logoutUrls are http(s) URLs whose host is a host name or an IP address (it goes into the sign-in screen's CSP)",
    },
    provisionMerchantAccount: {
      statuses: ["400", "409"],
      rules: "the CUIT's prefix and check digit (400); an email no other merchant account has, and a closed account accepts no change (409)",
    },
    testClientUrl: { statuses: ["400"], rules: "only webhook URLs are tested (the URL's stored type)" },
    createTenant: { statuses: ["400"], rules: "webhook_url must resolve to a public address (DNS, the SSRF guard)" },
    updateTenant: { statuses: ["400"], rules: "webhook_url must resolve to a public address (DNS, the SSRF guard)" },
    replaceWebhookSubscriptions: { statuses: ["422"], rules: "enabledEvents are names of the event catalog (GET /my-integration/webhook-events)" },
  },
};

/**
 * Operations where a request outside the schema may be refused before validation, with the status that
 * refuses it besides schemathesis's own expected ones (for negative_data_rejection), and why.
 */
const REFUSED_BEFORE_VALIDATION: Partial<Record<ApiName, Record<string, { statuses: string[]; reason: string }>>> = {
  auth: {
    authorize: {
      statuses: ["431"],
      reason:
        "a query whose strings pass their maxLength (redirect_uri 2,048, state and scope 1,024) in 4-byte characters, each 12 bytes percent-encoded, is a request line over the HTTP server's 16 KB: 431 before any validation",
    },
  },
};

/**
 * Operations for which no request outside the schema exists, so that they are fuzzed with schema-valid data
 * only (schemathesis `generation.mode = "positive"` for them alone). Their one parameter is a string in
 * the path with no constraint (the server answers any unknown value with its 404), optional headers aside:
 * every value sent in a path or a header is text, which such a schema accepts, and schemathesis drops the
 * objects and arrays it would draw instead (a path segment cannot carry them). Its negative strategy then
 * has nothing left, and with both modes half of the draws were filtered out: "Too many generated examples
 * are filtered out" (Hypothesis's filter_too_much health check) on some seeds. The health check stays on
 * for their positive data, and for every other operation.
 */
const POSITIVE_ONLY: Partial<Record<ApiName, Record<string, string>>> = {
  integration: {
    requestPaymentConfirmation:
      "its one parameter is the payer page's token, any string: an unknown or malformed one gets the Spanish 404 page, not a JSON 400",
  },
  auth: {
    getIntegrationLogo: "the logo's id in the path, any string: one that is no logo's, a UUID or not, answers 404; and If-None-Match, any string",
  },
};

/**
 * Operations left out of every run, with the reason. A `text/event-stream` answer that never ends: schemathesis
 * reads each response to its end before it checks it, so a run would only wait for its timeout.
 */
const NOT_FUZZED: Partial<Record<ApiName, Record<string, string>>> = {
  admin: {
    streamEvents:
      "an endless text/event-stream, which schemathesis would read until the run's timeout; its framing and every refusal are tested over HTTP in test/webhooks/event-stream.test.ts",
  },
};

/** schemathesis's own expected statuses for negative_data_rejection (schemathesis/config/_checks.py). */
const NEGATIVE_DATA_REJECTION_DEFAULT = ["400", "401", "403", "404", "405", "406", "409", "415", "422", "428", "429", "5xx"];

/** schemathesis's own expected statuses for positive_data_acceptance (schemathesis/config/_checks.py). */
const POSITIVE_DATA_ACCEPTANCE_DEFAULT = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"];

interface Run {
  api: ApiName;
  /** Whose token. */
  as: string;
  /** The security scheme the token is for, and the token. */
  scheme: string;
  token: string;
  includeOperationIds?: string[];
  excludeOperationIds?: string[];
  includePathRegex?: string;
  excludePathRegex?: string;
}

interface RunResult {
  run: Run;
  exitCode: number | null;
  seconds: number;
  operations: string;
  cases: string;
  outcome: string;
}

interface SandboxSet {
  integrationApiUrl: string;
  authApiUrl: string;
  adminApiUrl: string;
  platformAdmin: { email: string; password: string };
  integrationAdmin: { email: string; password: string };
}

const started = Date.now();
const version = schemathesisVersion();
const work = mkdtempSync(join(tmpdir(), "cobro-fuzz-"));
chmodSync(work, 0o711); // the embedded PostgreSQL runs as "postgres" when we are root: it must pass through
const dataDir = join(work, "data");
const serverLog = join(work, "server.log");
const urls: Partial<Record<ApiName, string>> = {};
let server: ChildProcess | undefined;
let serverLogClosed: Promise<void> = Promise.resolve();
let current: ChildProcess | undefined;
let interrupted = false;

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    interrupted = true;
    current?.kill("SIGTERM");
  });
}

let exitCode = 1;
try {
  log(
    `schemathesis ${version} (${schemathesis.join(" ")}); seed ${seed}; phases ${phases}; ${maxExamples} examples per operation${maxTime ? `; ${maxTime} s per run` : ""}; ${workers} worker(s)`,
  );
  log(`replay this run: ${replay}`);
  const notImplemented = await startServer();
  for (const [api, ids] of Object.entries(notImplemented)) if (ids.length > 0) log(`excluded (${api}: answer 501, not implemented yet): ${ids.join(", ")}`);
  for (const api of apis) for (const [operationId, reason] of Object.entries(NOT_FUZZED[api] ?? {})) log(`excluded (${api} ${operationId}): ${reason}`);

  const sandbox = bootstrapSandbox();
  const results: RunResult[] = [];
  for (const plan of plannedRuns(sandbox, notImplemented)) {
    if (interrupted) break;
    results.push(await fuzz(await plan()));
  }
  const serverExit = server?.exitCode ?? null;
  printSummary(results, notImplemented, version);
  if (serverExit !== null) log(`the server exited during the run (exit code ${serverExit}): see its log`);
  exitCode = !interrupted && serverExit === null && results.length > 0 && results.every((result) => result.exitCode === 0) ? 0 : 1;
} catch (error) {
  process.stderr.write(`fuzz: ${error instanceof Error ? error.message : String(error)}\n`);
  exitCode = 2;
} finally {
  await stopServer();
  if (reportDir && existsSync(serverLog)) {
    mkdirSync(reportDir, { recursive: true });
    copyFileSync(serverLog, join(reportDir, "server.log"));
  } else if (exitCode !== 0 && existsSync(serverLog)) {
    const kept = join(tmpdir(), `cobro-fuzz-server-${process.pid}.log`);
    copyFileSync(serverLog, kept);
    log(`server log kept in ${kept}`);
  }
  rmSync(work, { recursive: true, force: true });
}
log(`done in ${seconds(started)} s`);
process.exit(exitCode);

// ---------------------------------------------------------------------------------------------------

/**
 * One run per API and token. Tokens are taken right before the run that uses them (an earlier run may
 * have ended them: the Admin API unlinks merchants), and the Admin API's runs go last for that reason.
 */
function plannedRuns(sandbox: SandboxSet, notImplemented: Partial<Record<ApiName, string[]>>): Array<() => Promise<Run>> {
  const skip = (api: ApiName) => [...(notImplemented[api] ?? []), ...Object.keys(NOT_FUZZED[api] ?? {})];
  const plans: Array<() => Promise<Run>> = [];
  if (apis.includes("integration")) {
    // The checkout widget's /v1/payments takes the widget keys instead of a merchant token: one run per key.
    const widgetOperations = { WidgetSecretKey: "createCheckoutPayment", WidgetPublishableKey: "getCheckoutPayment" };
    let keys: ReturnType<typeof createWidgetKeys> | undefined;
    const widgetKeys = () => (keys ??= createWidgetKeys(sandbox));
    plans.push(async () => ({
      api: "integration",
      as: "merchant",
      scheme: "MerchantBearer",
      token: await merchantToken(sandbox),
      excludeOperationIds: [...Object.values(widgetOperations), ...skip("integration")],
    }));
    plans.push(async () => ({
      api: "integration",
      as: "widget secret key",
      scheme: "WidgetSecretKey",
      token: (await widgetKeys()).secretKey,
      includeOperationIds: [widgetOperations.WidgetSecretKey],
    }));
    plans.push(async () => ({
      api: "integration",
      as: "widget publishable key",
      scheme: "WidgetPublishableKey",
      token: (await widgetKeys()).publishableKey,
      includeOperationIds: [widgetOperations.WidgetPublishableKey],
    }));
  }
  if (apis.includes("auth")) {
    // BearerAuth is the merchant's idToken for client-info, the admin's for the admin session.
    plans.push(async () => ({
      api: "auth",
      as: "merchant",
      scheme: "BearerAuth",
      token: await merchantToken(sandbox),
      includeOperationIds: ["getClientInfo"],
    }));
    plans.push(async () => ({
      api: "auth",
      as: "integration admin",
      scheme: "BearerAuth",
      token: await adminToken(sandbox, sandbox.integrationAdmin),
      excludeOperationIds: ["getClientInfo", ...skip("auth")],
    }));
  }
  if (apis.includes("admin")) {
    plans.push(async () => ({
      api: "admin",
      as: "integration admin",
      scheme: "AdminBearer",
      token: await adminToken(sandbox, sandbox.integrationAdmin),
      excludePathRegex: "^/integration-admin/",
      excludeOperationIds: skip("admin"),
    }));
    plans.push(async () => ({
      api: "admin",
      as: "platform admin",
      scheme: "AdminBearer",
      token: await adminToken(sandbox, sandbox.platformAdmin),
      includePathRegex: "^/integration-admin/",
      excludeOperationIds: skip("admin"),
    }));
  }
  return plans;
}

/**
 * The schemathesis configuration of one run. The token goes through the environment (`${…}`), never into
 * the file. Per-operation settings are used for the check's expected statuses only: schemathesis 4.32.5
 * applies an `[[operations]]` entry's `headers` to every operation, hence one run per token.
 */
function configOf(run: Run): string {
  const lines = [
    `[auth.openapi.${run.scheme}]`,
    // biome-ignore lint/suspicious/noTemplateCurlyInString: schemathesis expands the environment variable in its configuration
    'bearer = "${COBRO_FUZZ_TOKEN}"',
    "",
    "[generation]",
    'database = "none"',
    // PostgreSQL's text cannot hold U+0000: every API refuses it with a 400 ValidationError (each API's
    // description says so), so the strings of schema-valid requests must not carry it.
    "allow-x00 = false",
    "",
    "[cache]",
    "enabled = false",
  ];
  // One operation's check told the extra statuses it may see, beside schemathesis's own.
  const expectStatuses = (operationId: string, check: string, defaults: string[], statuses: string[]) =>
    lines.push(
      "",
      "[[operations]]",
      `include-operation-id = ${JSON.stringify(operationId)}`,
      `checks.${check}.expected-statuses = [${[...defaults, ...statuses].map((status) => JSON.stringify(status)).join(", ")}]`,
    );
  for (const [operationId, { statuses }] of Object.entries(BUSINESS_RULES[run.api]))
    expectStatuses(operationId, "positive_data_acceptance", POSITIVE_DATA_ACCEPTANCE_DEFAULT, statuses);
  for (const [operationId, { statuses }] of Object.entries(REFUSED_BEFORE_VALIDATION[run.api] ?? {}))
    expectStatuses(operationId, "negative_data_rejection", NEGATIVE_DATA_REJECTION_DEFAULT, statuses);
  for (const operationId of Object.keys(POSITIVE_ONLY[run.api] ?? {}))
    lines.push("", "[[operations]]", `include-operation-id = ${JSON.stringify(operationId)}`, 'generation.mode = "positive"');
  return `${lines.join("\n")}\n`;
}

async function fuzz(run: Run): Promise<RunResult> {
  const baseUrl = urlOf(run.api);
  const label = `${run.api} as ${run.as}`;
  const runDir = mkdtempSync(join(work, `${run.api}-`));
  const configFile = join(runDir, "schemathesis.toml");
  writeFileSync(configFile, configOf(run), { mode: 0o600 });
  const args = [
    ...schemathesis.slice(1),
    "--config-file",
    configFile,
    "run",
    `${baseUrl}/openapi.yaml`,
    "--url",
    baseUrl,
    "--checks",
    "all",
    "--max-examples",
    String(maxExamples),
    "--phases",
    // A run of one operation (the widget keys') has no links to follow: schemathesis fails a stateful phase without any.
    run.includeOperationIds?.length === 1 ? STATELESS_PHASES : phases,
    "--seed",
    String(seed),
    "--workers",
    String(workers),
    "--request-timeout",
    "15",
    "--no-color",
    ...(maxTime ? ["--max-time", String(maxTime)] : []),
    ...(run.includePathRegex ? ["--include-path-regex", run.includePathRegex] : []),
    ...(run.excludePathRegex ? ["--exclude-path-regex", run.excludePathRegex] : []),
    ...(run.includeOperationIds ?? []).flatMap((id) => ["--include-operation-id", id]),
    ...(run.excludeOperationIds ?? []).flatMap((id) => ["--exclude-operation-id", id]),
    ...(reportDir ? ["--report", "junit", "--report-junit-path", join(reportDir, `${run.api}-${run.as.replace(/\s+/g, "-")}.xml`)] : []),
  ];
  log(`\n=== ${label} (${baseUrl}) ===`);
  const runStarted = Date.now();
  const child = spawn(schemathesis[0]!, args, {
    cwd: runDir, // its reports and caches stay out of the repository
    env: {
      ...process.env,
      COBRO_FUZZ_TOKEN: run.token,
      PYTHONUNBUFFERED: "1",
      NO_COLOR: "1",
      // scripts/fuzz_hooks.py: realistic charge creates in the stateful phase.
      SCHEMATHESIS_HOOKS: "fuzz_hooks",
      PYTHONPATH: [join(root, "scripts"), process.env.PYTHONPATH].filter(Boolean).join(":"),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  current = child;
  let output = "";
  const forward = (chunk: Buffer) => {
    output += chunk.toString("utf8");
    process.stdout.write(chunk);
  };
  child.stdout!.on("data", forward);
  child.stderr!.on("data", forward);
  const timer = setTimeout(() => {
    log(`\n${label}: stopped after ${runTimeoutMs / 1000} s (FUZZ_RUN_TIMEOUT)`);
    child.kill("SIGTERM");
  }, runTimeoutMs);
  const exitCode = await new Promise<number | null>((resolvePromise) => child.on("close", (code) => resolvePromise(code)));
  clearTimeout(timer);
  current = undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips the terminal colour codes (ESC [ … m) from schemathesis's output
  const text = output.replace(/\u001b\[[0-9;]*m/g, "");
  const lastLine = [...text.matchAll(/^=+ (.+?) =+$/gm)].at(-1)?.[1] ?? `exit code ${exitCode}`;
  return {
    run,
    exitCode,
    seconds: (Date.now() - runStarted) / 1000,
    operations: /Selected:\s*(\d+\/\d+)/.exec(text)?.[1] ?? "?",
    cases: /(\d+) generated/.exec(text)?.[1] ?? "?",
    outcome: lastLine,
  };
}

function printSummary(results: RunResult[], notImplemented: Partial<Record<ApiName, string[]>>, version: string): void {
  const lines = ["", "=== fuzz summary ===", `schemathesis ${version}, seed ${seed}, ${maxExamples} examples per operation`, `replay this run: ${replay}`];
  for (const result of results) {
    const mark = result.exitCode === 0 ? "ok  " : "FAIL";
    lines.push(
      `  ${mark} ${`${result.run.api} as ${result.run.as}`.padEnd(30)} ${`${result.operations} operations`.padEnd(17)} ${`${result.cases} cases`.padEnd(12)} ${result.seconds.toFixed(1).padStart(6)} s  ${result.outcome}`,
    );
  }
  for (const [api, ids] of Object.entries(notImplemented)) if (ids.length > 0) lines.push(`  not fuzzed (${api}, 501 not implemented yet): ${ids.join(", ")}`);
  for (const api of apis) {
    for (const [operationId, { statuses, rules }] of Object.entries(BUSINESS_RULES[api]))
      lines.push(`  ${api} ${operationId}: a schema-valid request may get ${statuses.join("/")} (${rules})`);
    for (const [operationId, { statuses, reason }] of Object.entries(REFUSED_BEFORE_VALIDATION[api] ?? {}))
      lines.push(`  ${api} ${operationId}: a request outside the schema may get ${statuses.join("/")} (${reason})`);
    for (const [operationId, reason] of Object.entries(POSITIVE_ONLY[api] ?? {}))
      lines.push(`  ${api} ${operationId}: schema-valid requests only, none is outside its schema (${reason})`);
    for (const [operationId, reason] of Object.entries(NOT_FUZZED[api] ?? {})) lines.push(`  not fuzzed (${api} ${operationId}): ${reason}`);
  }
  const errors = serverErrorLines();
  lines.push(`  server: ${errors.length} unexpected error(s) logged${errors.length ? `: ${errors.slice(0, 5).join("; ")}` : ""}`);
  process.stdout.write(`${lines.join("\n")}\n`);
}

// ---------------------------------------------------------------------------------------------------
// The server, the Sandbox set and the tokens.

function urlOf(api: ApiName): string {
  const url = urls[api];
  if (!url) throw new Error(`no URL for the ${api} API`);
  return url;
}

/** Starts the server on free ports; resolves with the operations it lists as not implemented (501). */
async function startServer(): Promise<Partial<Record<ApiName, string[]>>> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    // A fresh embedded PostgreSQL and free ports, whatever the caller's environment says.
    if (name === "DATABASE_URL" || /^(INTEGRATION|AUTH|ADMIN)_PORT$/.test(name) || /^COBRO_/.test(name)) continue;
    env[name] = value;
  }
  Object.assign(env, {
    SERVICE_ENV: "sandbox",
    COBRO_DATA_DIR: dataDir,
    COBRO_ALLOW_LOOPBACK_URLS: "true",
    INTEGRATION_PORT: "0",
    AUTH_PORT: "0",
    ADMIN_PORT: "0",
    COBRO_METRICS_PORT: "0",
    LOG_LEVEL: "warn",
  });
  const logFile = createWriteStream(serverLog);
  let banner = "";
  server = spawn(process.execPath, [serverBundle()], { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
  server.stdout!.on("data", (chunk: Buffer) => {
    banner += chunk.toString("utf8");
    logFile.write(chunk);
  });
  server.stderr!.on("data", (chunk: Buffer) => {
    banner += chunk.toString("utf8");
    logFile.write(chunk);
  });
  serverLogClosed = new Promise<void>((resolvePromise) => logFile.on("close", () => resolvePromise()));
  server.on("close", () => logFile.end()); // after its stdout and stderr are drained
  const deadline = Date.now() + 120_000;
  // main.ts writes running.json after it printed the whole banner.
  while (!existsSync(join(dataDir, "running.json"))) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}):\n${banner}`);
    if (Date.now() > deadline) throw new Error(`the server did not start within 120 s:\n${banner}`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 100));
  }
  Object.assign(urls, servedUrls(banner));
  const notImplemented: Partial<Record<ApiName, string[]>> = {};
  for (const match of banner.matchAll(/not implemented yet \((\w+), answer 501\): (.+)$/gm)) {
    notImplemented[match[1] as ApiName] = match[2]!
      .split(",")
      .map((id) => id.trim())
      .filter(Boolean);
  }
  log(`server: integration ${urls.integration}, auth ${urls.auth}, admin ${urls.admin}; embedded PostgreSQL in ${dataDir}`);
  return notImplemented;
}

async function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child) return;
  if (child.exitCode !== null) return serverLogClosed;
  const exited = new Promise<void>((resolvePromise) => child.once("exit", () => resolvePromise()));
  child.kill("SIGTERM");
  const timeout = new Promise<"timeout">((resolvePromise) => setTimeout(() => resolvePromise("timeout"), 30_000).unref());
  if ((await Promise.race([exited, timeout])) === "timeout") {
    child.kill("SIGKILL");
    await exited;
  }
  await serverLogClosed;
}

/** `sandbox-bootstrap.ts --json` on the same data folder: it attaches to the running server's database. */
function bootstrapSandbox(): SandboxSet {
  const output = execFileSync(process.execPath, [join(root, "scripts", "sandbox-bootstrap.ts"), "--json"], {
    cwd: root,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), SERVICE_ENV: "sandbox", COBRO_DATA_DIR: dataDir },
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  const sandbox = JSON.parse(output) as SandboxSet;
  log(`sandbox: integration admin ${sandbox.integrationAdmin.email}, platform admin ${sandbox.platformAdmin.email}`);
  return sandbox;
}

function postJson(url: string, body: unknown, token?: string): Promise<any> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = {
    ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) }),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
  return new Promise((resolvePromise, reject) => {
    const call = request(url, { method: "POST", headers, localAddress: HARNESS_ADDRESS }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        const status = response.statusCode ?? 0;
        if (status < 200 || status > 299) reject(new Error(`POST ${url} answered ${status}: ${text.slice(0, 300)}`));
        else resolvePromise(JSON.parse(text));
      });
    });
    call.on("error", reject);
    call.end(payload);
  });
}

/** An admin's idToken (Auth API `POST /integration/admin/login`). */
async function adminToken(sandbox: SandboxSet, admin: { email: string; password: string }): Promise<string> {
  return (await postJson(`${sandbox.authApiUrl}/integration/admin/login`, admin)).idToken as string;
}

/** A merchant idToken of the Sandbox integration (Admin API `POST /my-integration/test-tokens`). */
async function merchantToken(sandbox: SandboxSet): Promise<string> {
  return (await postJson(`${sandbox.adminApiUrl}/my-integration/test-tokens`, undefined, await adminToken(sandbox, sandbox.integrationAdmin)))
    .idToken as string;
}

/** Creates the Sandbox integration's checkout widget keys (Admin API `/my-integration/api-keys`); once per fuzz. */
async function createWidgetKeys(sandbox: SandboxSet): Promise<{ publishableKey: string; secretKey: string }> {
  const token = await adminToken(sandbox, sandbox.integrationAdmin);
  const { publishableKey } = await postJson(`${sandbox.adminApiUrl}/my-integration/api-keys`, undefined, token);
  const { secretKey } = await postJson(`${sandbox.adminApiUrl}/my-integration/api-keys/rotate-secret`, undefined, token);
  return { publishableKey, secretKey };
}

/** The server's `unexpected error` log lines (level 50): each is a 500 that the checks also report. */
function serverErrorLines(): string[] {
  if (!existsSync(serverLog)) return [];
  const found: string[] = [];
  for (const line of readFileSync(serverLog, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      const entry = JSON.parse(line) as { level?: number; path?: string; err?: { message?: string } };
      if ((entry.level ?? 0) >= 50) found.push(`${entry.path ?? "?"}: ${entry.err?.message ?? "error"}`);
    } catch {
      // not a log line
    }
  }
  return found;
}

function schemathesisVersion(): string {
  try {
    const output = execFileSync(schemathesis[0]!, [...schemathesis.slice(1), "--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    return /version\s+(\S+)/.exec(output)?.[1] ?? output.trim();
  } catch {
    usage(
      process.env.SCHEMATHESIS
        ? `SCHEMATHESIS="${process.env.SCHEMATHESIS}" does not run schemathesis (its --version failed)`
        : [
            `schemathesis is not installed (${schemathesis.join(" ")} failed). Install it in a virtual environment, from the repository's root:`,
            ...INSTALL.map((command) => `  ${command}`),
            `(or set SCHEMATHESIS to a command that runs it; with docker, see docs/fuzzing.md)`,
          ].join("\n"),
    );
  }
}

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) usage(`${name} must be a positive integer, not "${raw}"`);
  return value;
}

function usage(message: string): never {
  process.stderr.write(`fuzz: ${message}\n`);
  process.exit(2);
}

function seconds(since: number): string {
  return ((Date.now() - since) / 1000).toFixed(1);
}

function log(message: string): void {
  process.stdout.write(`${message}\n`);
}
