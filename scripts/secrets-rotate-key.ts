// `npm run secrets:rotate-key [-- --batch-size 500]`: re-seals every secret stored sealed (domain/secrets)
// under the current key of COBRO_SECRET_KEY (its first), in batches, and prints how many values of each
// column it wrote. Run it once the new key leads the ring of every process; the running service keeps
// working throughout, since every process opens values under any key of its ring. Running it again
// writes nothing. When it reports no value left under another key, drop the old keys from the ring.
// The procedure is in docs/secrets.md.
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { openConfiguredKeyring } from "../runtime/secret-key-file.ts";
import { CobroStartupError } from "../db/errors.ts";
import { SealedValueError } from "../domain/secrets/keyring.ts";
import { installSecretKeyring } from "../domain/secrets/process-keyring.ts";
import { resealColumns, SEALED_COLUMNS } from "../domain/secrets/sealed-columns.ts";
import { fail, withConfiguredDatabase } from "./operator-database.ts";

const USAGE = "usage: npm run secrets:rotate-key [-- --batch-size <rows per batch, default 500>]";

let batchSize = 500;
try {
  const { values } = parseArgs({ options: { "batch-size": { type: "string" } }, strict: true });
  if (values["batch-size"] !== undefined) batchSize = Number(values["batch-size"]);
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`);
}
if (!(Number.isInteger(batchSize) && batchSize > 0)) fail(`--batch-size must be a whole number above 0\n${USAGE}`);

try {
  const config = loadConfig(process.env, []);
  const { counts, left, keyring } = await withConfiguredDatabase(config, async (db) => {
    const { keyring } = await openConfiguredKeyring(config, db);
    installSecretKeyring(keyring);
    process.stdout.write(`re-sealing under the key "${keyring.currentKeyId}" (batches of ${batchSize})\n`);
    const counts = await resealColumns(db, keyring, "not-current", {
      batchSize,
      onBatch: (batch) => process.stdout.write(`  ${batch.table}.${batch.column}: ${batch.resealed} re-sealed\n`),
    });
    // What a process still sealing under an older key may have written meanwhile: run the command again.
    let left = 0;
    for (const column of SEALED_COLUMNS) {
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from ${sql.table(column.table)}
        where ${sql.ref(column.column)} is not null and ${sql.ref(column.column)} not like ${`v1.${keyring.currentKeyId}.%`}`.execute(db);
      left += rows[0]!.n;
    }
    return { counts, left, keyring };
  });
  for (const count of counts) process.stdout.write(`${`${count.table}.${count.column}`.padEnd(36)} ${count.resealed} re-sealed\n`);
  const total = counts.reduce((sum, count) => sum + count.resealed, 0);
  process.stdout.write(`${total} values re-sealed; ${left} left under another key\n`);
  process.stdout.write(
    left === 0
      ? `every sealed value is under "${keyring.currentKeyId}": the other keys can leave COBRO_SECRET_KEY once every process runs with "${keyring.currentKeyId}" first\n`
      : "some values were written meanwhile under another key (a process whose ring does not start with the new key?): run the command again\n",
  );
} catch (error) {
  if (error instanceof ConfigError || error instanceof CobroStartupError || error instanceof SealedValueError) fail(error.message);
  throw error;
}
