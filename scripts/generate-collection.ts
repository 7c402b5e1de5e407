// The collection for API clients: generated/openapi/{api}.yaml → generated/postman/cobro.postman_collection.json,
// a Postman collection v2.1 (Insomnia and Bruno import it too) for the integrators who try the API in an API
// client before writing code. One folder per API (a subfolder per tag), a request per operation with its
// path variables, query parameters, headers, auth and an example body from the contract (built from the
// schema where it has none), and the contract's examples of answers as saved responses. Collection
// variables hold the three hosts, the credentials and the tokens; a collection-level pre-request script
// signs in when a request needs a token the collection lacks or holds expired. A last folder, "Sandbox
// walkthrough", is docs/sandbox-walkthrough.md as requests, in its order, each with `pm.test`s on its
// answer and chaining ids through variables: test/sdks/postman-collection.test.ts runs it with Newman
// against a live Sandbox. Called by scripts/generate.ts (`npm run generate`, and `--check`).
import { STATUS_CODES } from "node:http";
import type { Json } from "./generate-sdk.ts";
import type { ApiName } from "./normalize-openapi.ts";

/** Where the collection lives, under generated/ (the file the README tells integrators to import). */
export const COLLECTION_PATH = "postman/cobro.postman_collection.json";

type JsonObject = { [key: string]: Json };

interface Parameter {
  name: string;
  in: "path" | "query" | "header" | "cookie";
  required?: boolean;
  description?: string;
  schema?: JsonObject;
  example?: Json;
}
interface Media {
  schema?: JsonObject;
  example?: Json;
  examples?: Record<string, { value: Json; summary?: string }>;
}
interface Operation {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Array<Parameter | { $ref: string }>;
  requestBody?: { content: Record<string, Media>; description?: string };
  responses: Record<string, { description?: string; content?: Record<string, Media> }>;
  security?: Array<Record<string, string[]>>;
}
interface Document {
  info: { title: string; description?: string };
  servers?: Array<{ url: string; variables?: Record<string, { default: string }> }>;
  security?: Array<Record<string, string[]>>;
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas?: Record<string, JsonObject>; parameters?: Record<string, Parameter> };
}

const METHODS = ["get", "put", "post", "patch", "delete"] as const;
const API_FOLDERS: Record<ApiName, { name: string; hostVariable: string }> = {
  integration: { name: "Integration API", hostVariable: "integrationUrl" },
  auth: { name: "Auth API", hostVariable: "authUrl" },
  admin: { name: "Admin API", hostVariable: "adminUrl" },
};

// --- Postman collection v2.1 (https://schema.getpostman.com/json/collection/v2.1.0/collection.json) ---

type Auth = { type: "noauth" } | { type: "bearer"; bearer: KeyValue[] } | { type: "apikey"; apikey: KeyValue[] };
type KeyValue = { key: string; value: string; type?: string; description?: string; disabled?: boolean };
type Event = { listen: "prerequest" | "test"; script: { type: "text/javascript"; exec: string[] } };
type Body =
  | { mode: "raw"; raw: string; options: { raw: { language: "json" } } }
  | { mode: "urlencoded"; urlencoded: KeyValue[] }
  | { mode: "file"; file: { src: null } };
interface Url {
  raw: string;
  host: string[];
  path: string[];
  query?: KeyValue[];
  variable?: KeyValue[];
}
interface Request {
  method: string;
  header: KeyValue[];
  auth?: Auth;
  body?: Body;
  url: Url;
  description?: string;
}
interface SavedResponse {
  name: string;
  originalRequest: { method: string; header: KeyValue[]; url: Url };
  status: string;
  code: number;
  _postman_previewlanguage: "json";
  header: KeyValue[];
  body: string;
}
interface RequestItem {
  name: string;
  event?: Event[];
  request: Request;
  response: SavedResponse[];
}
interface Folder {
  name: string;
  description?: string;
  item: Array<Folder | RequestItem>;
}
interface PostmanCollection {
  info: { name: string; description: string; schema: string };
  auth: Auth;
  event: Event[];
  variable: KeyValue[];
  item: Folder[];
}

const bearer = (variable: string): Auth => ({ type: "bearer", bearer: [{ key: "token", value: `{{${variable}}}`, type: "string" }] });
const script = (listen: Event["listen"], lines: string[]): Event => ({ listen, script: { type: "text/javascript", exec: lines } });
/** A JSON body, as the client shows it (indented). */
const rawJson = (value: Json): Body => ({ mode: "raw", raw: JSON.stringify(value, null, 2), options: { raw: { language: "json" } } });

/**
 * Which variable holds the credential of a security scheme, for an operation of `api`. A scheme the table
 * does not know stops the generation: a new way to authenticate needs a decision here, not a guess.
 */
function authOf(api: ApiName, operation: Operation, document: Document): { auth: Auth; event?: Event } {
  const requirement = (operation.security ?? document.security ?? [{}])[0] ?? {};
  const scheme = Object.keys(requirement)[0];
  if (scheme === undefined) return { auth: { type: "noauth" } };
  const platform = (operation.tags ?? []).some((tag) => tag.startsWith("Platform:"));
  switch (`${api}:${scheme}`) {
    case "integration:MerchantBearer":
      return { auth: bearer("merchantToken") };
    case "integration:WidgetSecretKey":
      return { auth: bearer("widgetSecretKey") };
    case "integration:WidgetPublishableKey":
      return { auth: bearer("widgetPublishableKey") };
    case "admin:AdminBearer":
      // The platform's operations take a platform admin's token; the rest an integration admin's.
      return { auth: bearer(platform ? "platformAdminToken" : "adminToken") };
    case "auth:BearerAuth":
      // The Auth API's bearer operations: the admin's own session, or a merchant's idToken (client-info).
      return { auth: bearer((operation.tags ?? []).includes("Admin session") ? "adminToken" : "merchantToken") };
    case "admin:BankFeedSignature":
      // The bank's HMAC of the raw body, as the bank's integration computes it (COBRO_BANK_FEED_SECRET).
      return {
        auth: { type: "noauth" },
        event: script("prerequest", [
          "// X-Bank-Feed-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of `${t}.${raw body}`, keyed with bankFeedSecret>.",
          "const t = Math.floor(Date.now() / 1000);",
          'const body = pm.variables.replaceIn(pm.request.body ? pm.request.body.toString() : "");',
          'const v1 = CryptoJS.HmacSHA256(`${t}.${body}`, pm.variables.get("bankFeedSecret") || "").toString(CryptoJS.enc.Hex);',
          'pm.request.headers.upsert({ key: "X-Bank-Feed-Signature", value: `t=${t},v1=${v1}` });',
        ]),
      };
    default:
      throw new Error(`the collection has no credential for the ${api} API's security scheme ${scheme} (${operation.operationId})`);
  }
}

// --- Examples: the contract's, else one built from the schema ---

function resolve(document: Document, schema: JsonObject | undefined): JsonObject {
  let current = schema ?? {};
  for (let depth = 0; typeof current.$ref === "string" && depth < 20; depth++) {
    current = document.components.schemas?.[current.$ref.split("/").pop()!] ?? {};
  }
  return current;
}

const FORMAT_EXAMPLES: Record<string, string> = {
  uuid: "3f6c1a2e-8b4d-4c7a-9e1f-2a5b6c7d8e9f",
  date: "2026-12-10",
  "date-time": "2026-12-10T13:05:00Z",
  email: "pagos@donpepe.com.ar",
  uri: "https://app.gestioncomercios.com.ar/",
  url: "https://app.gestioncomercios.com.ar/",
};

/**
 * An example of `schema`: its own example, default, enum or const, else one made from its type; a string
 * of no known format is a placeholder named after what it is (`<document>`), for the reader to fill in.
 */
function exampleOf(document: Document, schema: JsonObject | undefined, name = "value", seen: string[] = []): Json {
  if (schema === undefined) return null;
  if (typeof schema.$ref === "string") {
    if (seen.includes(schema.$ref)) return null;
    return exampleOf(document, resolve(document, schema), name, [...seen, schema.$ref]);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]!;
  for (const key of ["oneOf", "anyOf"] as const) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) return exampleOf(document, options[0] as JsonObject, name, seen);
  }
  if (Array.isArray(schema.allOf)) {
    const merged: JsonObject = {};
    for (const part of schema.allOf) Object.assign(merged, exampleOf(document, part as JsonObject, name, seen) as JsonObject);
    return merged;
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== "null") : schema.type;
  if (type === "object" || schema.properties !== undefined) {
    const properties = (schema.properties ?? {}) as Record<string, JsonObject>;
    const required = new Set((schema.required ?? []) as string[]);
    const example: JsonObject = {};
    // Required properties, or all of them when none is: an example shows what must be sent.
    for (const [key, property] of Object.entries(properties)) {
      if (required.size === 0 || required.has(key)) example[key] = exampleOf(document, property, key, seen);
    }
    return example;
  }
  if (type === "array") return [exampleOf(document, schema.items as JsonObject | undefined, name, seen)];
  if (type === "integer" || type === "number") return typeof schema.minimum === "number" ? schema.minimum : 1;
  if (type === "boolean") return false;
  if (typeof schema.format === "string" && FORMAT_EXAMPLES[schema.format]) return FORMAT_EXAMPLES[schema.format]!;
  return `<${name}>`;
}

function mediaExample(document: Document, media: Media): Json {
  if (media.example !== undefined) return media.example;
  const first = Object.values(media.examples ?? {})[0];
  if (first !== undefined) return first.value;
  return exampleOf(document, media.schema);
}

function asText(value: Json): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

// --- Requests ---

function parametersOf(document: Document, operation: Operation): Parameter[] {
  return (operation.parameters ?? []).map((parameter) => {
    if ("$ref" in parameter) {
      const found = document.components.parameters?.[parameter.$ref.split("/").pop()!];
      if (!found) throw new Error(`${operation.operationId}: unknown parameter ${parameter.$ref}`);
      return found;
    }
    return parameter;
  });
}

function urlOf(hostVariable: string, path: string, query: KeyValue[] = [], variable: KeyValue[] = []): Url {
  const segments = path
    .split("/")
    .filter((segment) => segment !== "")
    .map((segment) => segment.replace(/^\{(.+)\}$/, ":$1"));
  const enabled = query.filter((parameter) => !parameter.disabled);
  const search = enabled.length > 0 ? `?${enabled.map((parameter) => `${parameter.key}=${parameter.value}`).join("&")}` : "";
  return {
    raw: `{{${hostVariable}}}/${segments.join("/")}${search}`,
    host: [`{{${hostVariable}}}`],
    path: segments,
    ...(query.length > 0 ? { query } : {}),
    ...(variable.length > 0 ? { variable } : {}),
  };
}

function bodyOf(document: Document, operation: Operation): { body?: Body; contentType?: string } {
  const content = operation.requestBody?.content;
  if (!content) return {};
  const contentType = Object.keys(content).find((type) => type === "application/json") ?? Object.keys(content)[0]!;
  const media = content[contentType]!;
  if (contentType === "application/json") {
    return { contentType, body: rawJson(mediaExample(document, media)) };
  }
  if (contentType === "application/x-www-form-urlencoded") {
    const example = mediaExample(document, media) as JsonObject;
    return {
      contentType,
      body: { mode: "urlencoded", urlencoded: Object.entries(example).map(([key, value]) => ({ key, value: asText(value), type: "text" })) },
    };
  }
  // A file (the integration's logo): the client asks which one to send.
  return { contentType, body: { mode: "file", file: { src: null } } };
}

function descriptionOf(api: ApiName, operation: Operation): string {
  const text = operation.description ?? operation.summary ?? "";
  return `${text}\n\nOperation \`${operation.operationId}\` of the ${API_FOLDERS[api].name} (generated/openapi/${api}.yaml).`;
}

function savedResponses(operation: Operation, method: string, url: Url): SavedResponse[] {
  const saved: SavedResponse[] = [];
  for (const [code, response] of Object.entries(operation.responses)) {
    const media = response.content?.["application/json"];
    if (!media || (media.example === undefined && media.examples === undefined)) continue;
    const examples = media.example !== undefined ? [{ name: response.description ?? code, value: media.example }] : [];
    for (const [name, example] of Object.entries(media.examples ?? {})) examples.push({ name: example.summary ?? name, value: example.value });
    for (const example of examples) {
      saved.push({
        name: `${code} ${example.name}`.split("\n")[0]!,
        originalRequest: { method, header: [], url },
        status: STATUS_CODES[Number(code)] ?? code,
        code: Number(code),
        _postman_previewlanguage: "json",
        header: [{ key: "Content-Type", value: "application/json" }],
        body: JSON.stringify(example.value, null, 2),
      });
    }
  }
  return saved;
}

function requestItem(api: ApiName, document: Document, path: string, method: string, operation: Operation): RequestItem {
  const parameters = parametersOf(document, operation);
  const exampleValue = (parameter: Parameter) => asText(parameter.example ?? exampleOf(document, parameter.schema, parameter.name));
  const described = (parameter: Parameter) => (parameter.description ? { description: parameter.description } : {});
  const query = parameters
    .filter((parameter) => parameter.in === "query")
    .map((parameter) => ({ key: parameter.name, value: exampleValue(parameter), ...described(parameter), ...(parameter.required ? {} : { disabled: true }) }));
  const variable = parameters
    .filter((parameter) => parameter.in === "path")
    .map((parameter) => ({ key: parameter.name, value: exampleValue(parameter), ...described(parameter) }));
  const url = urlOf(API_FOLDERS[api].hostVariable, path, query, variable);
  const { body, contentType } = bodyOf(document, operation);
  const header: KeyValue[] = [
    ...(contentType ? [{ key: "Content-Type", value: contentType }] : []),
    ...parameters
      .filter((parameter) => parameter.in === "header")
      .map((parameter) => ({
        key: parameter.name,
        value: exampleValue(parameter),
        ...described(parameter),
        ...(parameter.required ? {} : { disabled: true }),
      })),
  ];
  const { auth, event } = authOf(api, operation, document);
  return {
    name: operation.summary ?? operation.operationId,
    ...(event ? { event: [event] } : {}),
    request: { method: method.toUpperCase(), header, auth, ...(body ? { body } : {}), url, description: descriptionOf(api, operation) },
    response: savedResponses(operation, method.toUpperCase(), url),
  };
}

function apiFolder(api: ApiName, document: Document): Folder {
  const byTag = new Map<string, RequestItem[]>();
  for (const tag of document.tags ?? []) byTag.set(tag.name, []);
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const tag = operation.tags?.[0] ?? "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push(requestItem(api, document, path, method, operation));
    }
  }
  const descriptions = new Map((document.tags ?? []).map((tag) => [tag.name, tag.description]));
  return {
    name: API_FOLDERS[api].name,
    description: document.info.description ?? document.info.title,
    item: [...byTag]
      .filter(([, items]) => items.length > 0)
      .map(([tag, items]) => ({ name: tag, ...(descriptions.get(tag) ? { description: descriptions.get(tag) } : {}), item: items })),
  };
}

// --- Signing in: the collection's pre-request script ---

/** Where a script stores a variable: in the environment when it has one of that name, else in the collection's. */
const STORE_TARGET = "(pm.environment.has(name) ? pm.environment : pm.collectionVariables)";

/**
 * Runs before every request. A request whose bearer token is one of the collection's sign-in tokens gets
 * it fresh: the admins sign in on the Auth API (POST /integration/admin/login) with the credentials in
 * the variables; the merchant's token comes from the Sandbox's test tokens (POST
 * /my-integration/test-tokens, the integration admin's), as docs/sandbox-walkthrough.md does. A token is
 * kept until a minute before its JWT `exp`; one pasted into the variable (a merchant linked through
 * OAuth, say) is used as it is while it is valid.
 */
const SIGN_IN_SCRIPT = [
  "// Signs in when this request needs a token the collection lacks or holds expired (see the collection's description).",
  'const auth = pm.request.auth && pm.request.auth.type === "bearer" ? pm.request.auth.parameters().get("token") : "";',
  'const needed = (/^\\{\\{(adminToken|platformAdminToken|merchantToken)\\}\\}$/.exec(String(auth || "")) || [])[1];',
  "",
  "function expiresAt(token) {",
  "  try {",
  '    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");',
  '    return JSON.parse(atob(part + "===".slice((part.length + 3) % 4))).exp * 1000 || Infinity;',
  "  } catch (error) {",
  "    return Infinity; // not a JWT: used as it is",
  "  }",
  "}",
  "function fresh(name) {",
  "  const token = pm.variables.get(name);",
  "  return Boolean(token) && expiresAt(token) - 60000 > Date.now();",
  "}",
  "function store(name, token) {",
  `  ${STORE_TARGET}.set(name, token);`,
  "}",
  "function post(url, token, body, then) {",
  "  const header = { 'Content-Type': 'application/json' };",
  "  if (token) header.Authorization = `Bearer ${token}`;",
  "  pm.sendRequest({ url, method: 'POST', header, body: { mode: 'raw', raw: JSON.stringify(body || {}) } }, (error, response) => {",
  "    if (error || response.code !== 200) {",
  "      console.error(`${url}: ${error || response.code + ' ' + response.text()}`);",
  "      return;",
  "    }",
  "    then(response.json());",
  "  });",
  "}",
  "function signIn(name, emailVariable, passwordVariable, then) {",
  "  if (fresh(name)) return then();",
  "  const email = pm.variables.get(emailVariable);",
  "  if (!email) return console.warn(`${name}: set ${emailVariable} and ${passwordVariable} to sign in`);",
  "  post(`${pm.variables.get('authUrl')}/integration/admin/login`, null, { email, password: pm.variables.get(passwordVariable) }, (session) => {",
  "    store(name, session.idToken);",
  "    then();",
  "  });",
  "}",
  "",
  'if (needed === "adminToken") signIn("adminToken", "adminEmail", "adminPassword", () => {});',
  'if (needed === "platformAdminToken") signIn("platformAdminToken", "platformAdminEmail", "platformAdminPassword", () => {});',
  'if (needed === "merchantToken" && !fresh("merchantToken")) {',
  '  signIn("adminToken", "adminEmail", "adminPassword", () =>',
  "    post(`${pm.variables.get('adminUrl')}/my-integration/test-tokens`, pm.variables.get('adminToken'), {}, (tokens) => store('merchantToken', tokens.idToken)),",
  "  );",
  "}",
];

// --- The Sandbox walkthrough ---

interface Step {
  name: string;
  api: ApiName;
  method: (typeof METHODS)[number];
  path: string;
  description: string;
  pathValues?: Record<string, string>;
  query?: Record<string, string>;
  body?: Json;
  /** Without a `webhookUrl`, the step is skipped (the webhook receiver's steps). */
  needsWebhookUrl?: boolean;
  prerequest?: string[];
  /** `pm.test`s on the answer, after the one on its status (`json` is the parsed body). */
  tests: string[];
}

/** The sign-in script's store() again, for a walkthrough step's scripts: what the collection's script defines, a request's script does not see. */
const STORE = `const store = (name, value) => ${STORE_TARGET}.set(name, value);`;

/** docs/sandbox-walkthrough.md's calls, in its order. */
const WALKTHROUGH: Step[] = [
  {
    name: "Sign in as the integration admin",
    api: "auth",
    method: "post",
    path: "/integration/admin/login",
    description: "The answer's `idToken` is the Admin API's bearer token (`adminToken`).",
    body: { email: "{{adminEmail}}", password: "{{adminPassword}}" },
    tests: ['pm.test("gives an admin idToken", () => pm.expect(json.idToken).to.be.a("string").and.not.empty);', STORE, 'store("adminToken", json.idToken);'],
  },
  {
    name: "Get test tokens",
    api: "admin",
    method: "post",
    path: "/my-integration/test-tokens",
    description:
      "Tokens of the integration's own test merchant account (Sandbox only). Its `idToken` is the Integration API's bearer token (`merchantToken`); a real integration gets the same tokens by linking a merchant through the OAuth authorization screen.",
    tests: [
      'pm.test("gives a merchant idToken valid for an hour", () => {',
      '  pm.expect(json.idToken).to.be.a("string").and.not.empty;',
      "  pm.expect(json.expiresIn).to.equal(3600);",
      "});",
      STORE,
      'store("merchantToken", json.idToken);',
    ],
  },
  {
    name: "Subscribe to the events",
    api: "admin",
    method: "put",
    path: "/my-integration/webhook-subscriptions",
    description: "The events the integration's webhook URL receives (the catalog is `GET /my-integration/webhook-events`).",
    body: { enabledEvents: ["payment_request.payment_received", "payment_request.expired", "payment.unmatched"] },
    tests: ['pm.test("subscribes to payment_request.payment_received", () => pm.expect(json.enabledEvents).to.include("payment_request.payment_received"));'],
  },
  {
    name: "Register the webhook receiver",
    api: "admin",
    method: "post",
    path: "/my-integration/urls",
    description:
      "Registers `webhookUrl` as the integration's webhook URL; Cobro pings it at once and says whether it answered 2xx. Skipped when `webhookUrl` is empty (a Sandbox on your machine reaches a receiver on 127.0.0.1 only when started with `COBRO_ALLOW_LOOPBACK_URLS=true`).",
    body: { url: "{{webhookUrl}}", urlType: "webhook" },
    needsWebhookUrl: true,
    tests: [
      'pm.test("the receiver answered the ping", () => pm.expect(json.verification.status).to.equal("ok"));',
      'pm.test("receives the events", () => pm.expect(json.receivesEvents).to.equal(true));',
      STORE,
      'store("clientUrlId", json.clientUrlId);',
    ],
  },
  {
    name: "The webhook signing secret",
    api: "admin",
    method: "get",
    path: "/my-integration/webhook-signing-secret",
    description: "The secret that signs every webhook (`X-Service-Signature` and the Standard Webhooks headers); it exists once a webhook URL is registered.",
    needsWebhookUrl: true,
    tests: ['pm.test("is a whsec_ secret", () => pm.expect(json.webhookSigningSecret).to.match(/^whsec_/));'],
  },
  {
    name: "The Sandbox clock",
    api: "admin",
    method: "get",
    path: "/my-integration/sandbox-clock",
    description: "The integration's Sandbox today, which due dates are judged by: the charge is due five days after it (`dueDate`).",
    tests: [
      'pm.test("gives today", () => pm.expect(json.today).to.match(/^\\d{4}-\\d{2}-\\d{2}$/));',
      STORE,
      'store("sandboxToday", json.today);',
      'store("dueDate", new Date(Date.parse(`${json.today}T00:00:00Z`) + 5 * 86400000).toISOString().slice(0, 10));',
    ],
  },
  {
    name: "Create a charge",
    api: "integration",
    method: "post",
    path: "/payment-request",
    description:
      "A charge for the merchant, due on `dueDate`, with a `referenceId` of this run (`WALK-<time>-<random>`); the answer holds the `CVU` the payer transfers to.",
    prerequest: [
      "// A referenceId is taken for good once used: each run makes its own.",
      STORE,
      'store("referenceId", `WALK-${Date.now()}-${Math.floor(Math.random() * 100000)}`);',
    ],
    body: {
      referenceId: "{{referenceId}}",
      description: "Cuota de diciembre",
      dueDates: ["{{dueDate}}"],
      amount: 1500.5,
      customer: { name: "Juan Pérez" },
      sendWhatsappNotification: false,
      sendEmailNotification: false,
    },
    tests: [
      'pm.test("is pending, with a CVU", () => {',
      '  pm.expect(json.referenceId).to.equal(pm.variables.get("referenceId"));',
      '  pm.expect(json.state).to.equal("pending");',
      "  pm.expect(json.CVU).to.match(/^\\d{22}$/);",
      "});",
      STORE,
      'store("cvu", json.CVU);',
      'store("paymentRequestId", json.paymentRequestId);',
    ],
  },
  {
    name: "Read the charge",
    api: "integration",
    method: "get",
    path: "/payment-request/{referenceId}",
    description: "The charge by its `referenceId`.",
    pathValues: { referenceId: "{{referenceId}}" },
    tests: [
      'pm.test("is the charge, pending", () => {',
      '  pm.expect(json.paymentRequestId).to.equal(pm.variables.get("paymentRequestId"));',
      '  pm.expect(json.state).to.equal("pending");',
      "});",
    ],
  },
  {
    name: "List today's charges",
    api: "integration",
    method: "get",
    path: "/payment-request",
    description: "The charges created since the start of the Sandbox's today, oldest first.",
    query: { startDate: "{{sandboxToday}}" },
    tests: ['pm.test("include the charge", () => pm.expect(json.map((charge) => charge.referenceId)).to.include(pm.variables.get("referenceId")));'],
  },
  {
    name: "Simulate the payer's transfer",
    api: "admin",
    method: "post",
    path: "/my-integration/simulate-payment",
    description: "A transfer of the whole amount to the charge's CVU (Sandbox only), reconciled at once as a transfer from the bank.",
    body: {
      cvu: "{{cvu}}",
      amount: 1500.5,
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
    },
    tests: [
      'pm.test("is reconciled with the charge, and fires its webhook", () => {',
      "  pm.expect(json.conciliated).to.equal(true);",
      '  pm.expect(json.paymentRequestId).to.equal(pm.variables.get("paymentRequestId"));',
      '  pm.expect(json.webhookEvent).to.equal("payment_request.payment_received");',
      "});",
    ],
  },
  {
    name: "Read the charge back",
    api: "integration",
    method: "get",
    path: "/payment-request/{referenceId}",
    description: "The charge is paid: `total_payment`.",
    pathValues: { referenceId: "{{referenceId}}" },
    tests: ['pm.test("is total_payment", () => pm.expect(json.state).to.equal("total_payment"));'],
  },
  {
    name: "Delete the webhook receiver",
    api: "admin",
    method: "delete",
    path: "/my-integration/urls/{clientUrlId}",
    description: "Leaves the integration's webhook URLs as they were before the walkthrough (skipped when no receiver was registered).",
    pathValues: { clientUrlId: "{{clientUrlId}}" },
    needsWebhookUrl: true,
    tests: [],
  },
];

function walkthroughItem(step: Step, documents: Record<ApiName, Document>): RequestItem {
  const document = documents[step.api];
  const operation = document.paths[step.path]?.[step.method];
  if (!operation) throw new Error(`the Sandbox walkthrough calls ${step.method.toUpperCase()} ${step.path}, which the ${step.api} API does not have`);
  const status = Number(Object.keys(operation.responses).find((code) => /^2\d\d$/.test(code)));
  const query = Object.entries(step.query ?? {}).map(([key, value]) => ({ key, value }));
  const variable = Object.entries(step.pathValues ?? {}).map(([key, value]) => ({ key, value }));
  const url = urlOf(API_FOLDERS[step.api].hostVariable, step.path, query, variable);
  const prerequest = [
    ...(step.needsWebhookUrl ? ['if (!pm.variables.get("webhookUrl")) pm.execution.skipRequest(); // no webhook receiver to register'] : []),
    ...(step.needsWebhookUrl && variable.length > 0 ? ['else if (!pm.variables.get("clientUrlId")) pm.execution.skipRequest();'] : []),
    ...(step.prerequest ?? []),
  ];
  const tests = [
    `pm.test("answers ${status}", () => pm.response.to.have.status(${status}));`,
    ...(step.tests.length > 0 ? ["const json = pm.response.json();", ...step.tests] : []),
  ];
  return {
    name: step.name,
    event: [...(prerequest.length > 0 ? [script("prerequest", prerequest)] : []), script("test", tests)],
    request: {
      method: step.method.toUpperCase(),
      header: step.body !== undefined ? [{ key: "Content-Type", value: "application/json" }] : [],
      auth: authOf(step.api, operation, document).auth,
      ...(step.body !== undefined ? { body: rawJson(step.body) } : {}),
      url,
      description: `${step.description}\n\n${operation.summary ?? ""} (\`${operation.operationId}\`, ${API_FOLDERS[step.api].name}).`,
    },
    response: [],
  };
}

// --- The collection ---

function hostOf(document: Document): string {
  const server = document.servers?.[0];
  if (!server) throw new Error(`${document.info.title} has no server`);
  return server.url.replace(/\{(\w+)\}/g, (_, name: string) => server.variables?.[name]?.default ?? "");
}

const DESCRIPTION = `Cobro's three APIs (Integration, Auth, Admin), generated from the contract by \`npm run generate\` (do not edit: regenerate).

**Setting up.** The collection's variables hold the hosts of the three APIs (a local Sandbox of \`npm start\` by default) and the credentials that \`.data/sandbox.json\` and the first start print: \`adminEmail\`/\`adminPassword\` (the integration admin), \`platformAdminEmail\`/\`platformAdminPassword\` (the platform admin, for the Admin API's *Platform* folders). Set them in the collection's variables, or in an environment.

**Tokens.** A pre-request script of the collection signs in when a request needs a token the collection lacks or holds expired, and stores it in \`adminToken\`, \`platformAdminToken\` or \`merchantToken\`: the admins on the Auth API (\`POST /integration/admin/login\`), the merchant through the Sandbox's test tokens (\`POST /my-integration/test-tokens\`, the integration's own test merchant). To act for a merchant linked through OAuth instead, paste its \`idToken\` into \`merchantToken\`. The widget keys (\`widgetSecretKey\`, \`widgetPublishableKey\`, from \`POST /my-integration/api-keys\`) and the bank feed's secret (\`bankFeedSecret\`) are yours to set.

**Sandbox walkthrough.** The last folder is docs/sandbox-walkthrough.md as requests: run it with the collection runner (or \`newman run\`) for a paid charge, each answer checked by its tests. Set \`webhookUrl\` to a receiver Cobro can reach to see the webhook; left empty, the webhook steps are skipped.`;

const VARIABLES: Array<[string, string, string]> = [
  ["adminEmail", "", "The integration admin's email (the Sandbox's first start prints it; .data/sandbox.json keeps it)."],
  ["adminPassword", "", "The integration admin's password."],
  ["platformAdminEmail", "", "The platform admin's email, for the Admin API's Platform operations."],
  ["platformAdminPassword", "", "The platform admin's password."],
  ["adminToken", "", "The integration admin's idToken (signed in by the collection's pre-request script)."],
  ["platformAdminToken", "", "The platform admin's idToken (signed in by the collection's pre-request script)."],
  ["merchantToken", "", "A merchant account's idToken: the Sandbox's test tokens by default, or paste one of a merchant linked through OAuth."],
  ["widgetSecretKey", "", "The integration's secret widget key (sk_test_…), for POST /v1/payments."],
  ["widgetPublishableKey", "", "The integration's publishable widget key (pk_test_…), for GET /v1/payments/{paymentRequestId}."],
  ["bankFeedSecret", "", "The bank feed's shared secret (COBRO_BANK_FEED_SECRET), which signs the bank-feed requests."],
  ["webhookUrl", "", "The Sandbox walkthrough's webhook receiver (empty: its webhook steps are skipped)."],
  // What the Sandbox walkthrough's requests pass on to the next ones.
  ["clientUrlId", "", "Set by the Sandbox walkthrough: the webhook URL it registered."],
  ["sandboxToday", "", "Set by the Sandbox walkthrough: the integration's Sandbox today."],
  ["dueDate", "", "Set by the Sandbox walkthrough: the charge's due date, five days after the Sandbox's today."],
  ["referenceId", "", "Set by the Sandbox walkthrough: the charge's referenceId, new at each run."],
  ["paymentRequestId", "", "Set by the Sandbox walkthrough: the charge's id."],
  ["cvu", "", "Set by the Sandbox walkthrough: the CVU the payer transfers to."],
];

function postmanCollection(documents: Record<ApiName, Document>): PostmanCollection {
  const hosts = (Object.keys(API_FOLDERS) as ApiName[]).map((api): KeyValue => {
    return { key: API_FOLDERS[api].hostVariable, value: hostOf(documents[api]), type: "string", description: `The ${API_FOLDERS[api].name}'s URL.` };
  });
  return {
    info: { name: "Cobro", description: DESCRIPTION, schema: "https://schema.getpostman.com/json/collection/v2.1.0/collection.json" },
    auth: { type: "noauth" },
    event: [script("prerequest", SIGN_IN_SCRIPT)],
    variable: [...hosts, ...VARIABLES.map(([key, value, description]) => ({ key, value, type: "string", description }))],
    item: [
      apiFolder("integration", documents.integration),
      apiFolder("auth", documents.auth),
      apiFolder("admin", documents.admin),
      {
        name: "Sandbox walkthrough",
        description:
          "docs/sandbox-walkthrough.md's calls in its order, from signing in to a paid charge read back, each answer checked by `pm.test`s; ids pass from one request to the next through the collection's variables (`referenceId`, `cvu`, `paymentRequestId`, `clientUrlId`). The webhook receiver it registers (`webhookUrl`, if set) is deleted at the end, as the SDKs' examples do, so that the integration's webhook URLs are left as they were.",
        item: WALKTHROUGH.map((step) => walkthroughItem(step, documents)),
      },
    ],
  };
}

/** The collection's file text, as committed. */
export function collectionText(documents: Record<ApiName, unknown>): string {
  return `${JSON.stringify(postmanCollection(documents as Record<ApiName, Document>), null, 2)}\n`;
}
