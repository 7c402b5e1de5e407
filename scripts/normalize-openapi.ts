// Normalisations of the documents TypeSpec emits, so that every consumer (openapi-backend's Ajv,
// openapi-typescript, Prism, openapi-generator, schemathesis) reads them the same way. Each rule says
// which consumer stumbled on the raw form.

export const API_NAMES = ["integration", "auth", "admin"] as const;
export type ApiName = (typeof API_NAMES)[number];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const COMMON_PREFIX = "Cobro.Common.";

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function walk(value: Json, visit: (node: JsonObject) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (isObject(value)) {
    visit(value);
    for (const child of Object.values(value)) walk(child, visit);
  }
}

export function normalizeOpenApi(input: JsonObject): JsonObject {
  const document = structuredClone(input);
  const components = (document.components ?? {}) as JsonObject;
  const schemas = (components.schemas ?? {}) as JsonObject;

  // 1. Shared models live in the `Cobro.Common` namespace; TypeSpec names them `Cobro.Common.X`. The SDK
  //    generator turns that into `CobroCommonX`: publish them as plain `X`.
  const renamed: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const plain = name.startsWith(COMMON_PREFIX) ? name.slice(COMMON_PREFIX.length) : name;
    if (plain in renamed) throw new Error(`schema name collision after removing ${COMMON_PREFIX}: ${plain}`);
    renamed[plain] = schema;
  }
  if (document.components) components.schemas = renamed;
  walk(document, (node) => {
    if (typeof node.$ref === "string" && node.$ref.startsWith(`#/components/schemas/${COMMON_PREFIX}`)) {
      node.$ref = `#/components/schemas/${node.$ref.slice(`#/components/schemas/${COMMON_PREFIX}`.length)}`;
    }
  });

  // 2. Sealed models are emitted as `additionalProperties: {not: {}}`; openapi-generator reads that as a
  //    map of "anything not", and Ajv reports it with keyword `not`. `false` says the same to everyone.
  walk(document, (node) => {
    if (
      isObject(node.additionalProperties) &&
      isObject(node.additionalProperties.not) &&
      Object.keys(node.additionalProperties.not).length === 0 &&
      Object.keys(node.additionalProperties).length === 1
    ) {
      node.additionalProperties = false;
    }
  });

  // 3. A nullable reference is emitted as `{allOf: [$ref], nullable: true}`: the referenced schema
  //    still rejects null inside allOf (Ajv, schemathesis). Inline the referenced schema instead, and
  //    list null among the values of a nullable enum (OpenAPI 3.0.3's reading of nullable + enum).
  const referencedBefore = referencedSchemas(document);
  const resolve = (ref: string): JsonObject => {
    const name = ref.replace("#/components/schemas/", "");
    const target = renamed[name];
    if (!isObject(target)) throw new Error(`unresolvable ${ref}`);
    return target;
  };
  walk(document, (node) => {
    if (node.nullable !== true || !Array.isArray(node.allOf) || node.allOf.length !== 1) return;
    const only = node.allOf[0];
    if (!isObject(only) || typeof only.$ref !== "string") return;
    const target = structuredClone(resolve(only.$ref));
    delete node.allOf;
    for (const [key, value] of Object.entries(target)) {
      if (key === "description" && node.description !== undefined) continue;
      node[key] = value;
    }
    node.nullable = true;
  });
  walk(document, (node) => {
    if (node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null)) node.enum.push(null);
  });
  //    A named schema that only such references used (the scalar `EndpointUrl` of the Integration API's
  //    nullable `webhookUrl`) is now referenced by nothing: drop it, or every linter reports it as an
  //    unused component. Schemas that were unreferenced before (the webhook events, published on
  //    purpose) are kept.
  const referencedAfter = referencedSchemas(document);
  for (const name of Object.keys(renamed)) {
    if (referencedBefore.has(name) && !referencedAfter.has(name)) delete renamed[name];
  }

  // 4. TypeSpec marks every query parameter `explode: false`. For a primitive it means nothing in OpenAPI,
  //    but openapi-backend then splits the value on commas (a `state` of "a,b" became an array). Only
  //    arrays and objects keep it.
  walk(document, (node) => {
    if (node.in !== "query" || node.explode !== false || !isObject(node.schema)) return;
    const type = node.schema.type;
    if (type !== "array" && type !== "object") delete node.explode;
  });

  // 5. TypeSpec has no decorator for OpenAPI links (response `links`, which schemathesis's stateful phase
  //    follows from create to get, patch and cancel). The contract states them as the operation's
  //    `x-links` extension; they become the `links` of each of its success responses.
  walk(document, (node) => {
    if (!isObject(node["x-links"]) || !isObject(node.responses)) return;
    const links = node["x-links"];
    delete node["x-links"];
    for (const [status, response] of Object.entries(node.responses)) {
      if (/^2\d\d$/.test(status) && isObject(response)) response.links = structuredClone(links);
    }
  });

  // 6. TypeSpec has no value of `bytes`, so an @opExample cannot carry a binary body (the Auth API's logo).
  //    The contract states such examples as the operation's `x-binary-examples` extension, by status; each
  //    becomes the `example` of that response's binary media types (what Prism serves, and what
  //    test/contract/examples.test.ts asks of every success response).
  walk(document, (node) => {
    if (!isObject(node["x-binary-examples"]) || !isObject(node.responses)) return;
    const examples = node["x-binary-examples"];
    delete node["x-binary-examples"];
    for (const [status, example] of Object.entries(examples)) {
      const response = node.responses[status];
      const content = isObject(response) && isObject(response.content) ? response.content : {};
      const binary = Object.values(content).filter(
        (media): media is JsonObject => isObject(media) && isObject(media.schema) && media.schema.format === "binary",
      );
      if (binary.length === 0) throw new Error(`x-binary-examples names ${status}, which has no binary body`);
      for (const media of binary) media.example = example;
    }
  });

  return document;
}

/** The names of the component schemas that some `$ref` of the document points to. */
function referencedSchemas(document: JsonObject): Set<string> {
  const names = new Set<string>();
  walk(document, (node) => {
    if (typeof node.$ref === "string" && node.$ref.startsWith("#/components/schemas/")) names.add(node.$ref.slice("#/components/schemas/".length));
  });
  return names;
}
