// A path that is not percent-encoded UTF-8 (`%FF`, a truncated `%E0%A4`, the overlong `%C0%AF`) names no
// resource: every API answers 400 ValidationError in its documented shape, never a 500 and never an
// error-level log line, before any router tries to decode it.
import { describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile();

const MALFORMED = ["%FF", "%E0%A4", "%C0%AF"];

describe("paths that do not decode", () => {
  it("answer 400 ValidationError on the Integration, Auth and Admin APIs", async () => {
    const paths = [
      ...MALFORMED.flatMap((bad) => [`${t.integrationUrl}/p/${bad}`, `${t.integrationUrl}/payment-request/${bad}`, `${t.integrationUrl}/integration/p/${bad}`]),
      ...MALFORMED.map((bad) => `${t.authUrl}/integration/oauth2/logos/${bad}`),
      ...MALFORMED.flatMap((bad) => [`${t.adminUrl}/my-integration/tenant/${bad}`, `${t.adminUrl}/portal/${bad}`]),
    ];
    for (const url of paths) {
      const answer = await read(await fetch(url));
      expect({ url, status: answer.status, body: answer.json }).toEqual({
        url,
        status: 400,
        body: {
          code: "ValidationError",
          message: "the path is not valid percent-encoded UTF-8",
          id: expect.any(String),
          validationDetails: [{ field: "path", rule: "malformed", message: "the path is not valid percent-encoded UTF-8" }],
        },
      });
    }
    expect(t.logLines.filter((line) => (line.level as number) >= 50)).toEqual([]);
  });

  it("leave well-encoded paths alone: an encoded referenceId is still looked up (404 for a charge that does not exist)", async () => {
    const answer = await read(await fetch(`${t.integrationUrl}/p/%C3%B1and%C3%BA`));
    expect(answer.status).toBe(404);
  });
});
