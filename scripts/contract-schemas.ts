// What the operator commands that read files (merchants:import, bank-feed:import) check each line with:
// the contract's own schemas, compiled as the API's validation compiles them, so a line is judged as the
// API would judge the call it becomes.
import { readFileSync } from "node:fs";
import { Ajv, type ValidateFunction } from "ajv";
import YAML from "yaml";
import { addContractFormats } from "../server/http/media-types.ts";
import { ROOT } from "./cobro-process.ts";
import { fail } from "./operator-database.ts";

/** The Admin API's schema of that name (`#/components/schemas/<name>`), as a validator. */
export function adminSchemas(): (name: string) => ValidateFunction {
  const document = YAML.parse(readFileSync(`${ROOT}/generated/openapi/admin.yaml`, "utf8"));
  const ajv = new Ajv({ allErrors: false, strict: false });
  addContractFormats(ajv);
  ajv.addSchema(document, "admin");
  return (name) => ajv.getSchema(`admin#/components/schemas/${name}`)!;
}

/** The file's text, or the command ends with one line saying why it cannot be read. */
export function readFileOrFail(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    return fail(`cannot read ${file}: ${(error as Error).message}`);
  }
}
