// Every operation carries a realistic example (what Prism serves to frontend teams), and every example
// validates against its own schema.
import { describe, expect, it } from "vitest";
import { generatedDocument, schemaValidator, type Media } from "../helpers/openapi-documents.ts";

const apis = ["integration", "auth", "admin"] as const;

function examplesOf(media: Media): unknown[] {
  if (media.example !== undefined) return [media.example];
  return Object.values(media.examples ?? {}).map((example) => example.value);
}

for (const api of apis) {
  const document = generatedDocument(api);
  const validate = schemaValidator(document);
  const operations = Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ path, method, op })));

  describe(`${api} API examples`, () => {
    it.each(operations.map((o) => [o.op.operationId, o] as const))("%s has valid request and response examples", (_id, { op }) => {
      for (const [mediaType, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (mediaType.startsWith("image/")) continue;
        const examples = examplesOf(media);
        expect(examples.length, `request example for ${mediaType}`).toBeGreaterThan(0);
        for (const example of examples) expect(validate(media.schema!, example), `request ${mediaType}`).toBeNull();
      }
      const successes = Object.entries(op.responses).filter(([status]) => status.startsWith("2") || status.startsWith("3"));
      expect(successes.length).toBeGreaterThan(0);
      for (const [status, response] of successes) {
        for (const [mediaType, media] of Object.entries(response.content ?? {})) {
          const examples = examplesOf(media);
          expect(examples.length, `${status} example for ${mediaType}`).toBeGreaterThan(0);
          for (const example of examples) expect(validate(media.schema!, example), `${status} ${mediaType}`).toBeNull();
        }
      }
    });
  });
}
