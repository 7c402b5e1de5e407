// The columns that hold sealed secrets, and the two passes over them: the start-up pass that seals any
// value still in clear (rows written before sealing existed: migration 2026_11_23_0021 cannot seal them,
// having no key), and the rotation pass (`npm run secrets:rotate-key`) that re-seals every value under the
// ring's current key. Both go in batches, update a row only if its value is still the one read (a secret
// rotated meanwhile is left as its rotation wrote it), and can run again at any time.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { SealedValueError, sealedKeyId, storedText, type SealedPlace, type SecretKeyring } from "./keyring.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

export interface SealedColumn {
  table: string;
  column: string;
  /** The column that identifies the row, bound into each value's associated data. */
  rowIdColumn: string;
}

export const SIGNING_KEY_PRIVATE_JWK: SealedColumn = { table: "signing_keys", column: "private_jwk", rowIdColumn: "kid" };
export const WEBHOOK_SIGNING_SECRET: SealedColumn = { table: "webhook_signing_secrets", column: "secret", rowIdColumn: "integration_client_id" };
export const CLIENT_URL_VALIDATION_TOKEN: SealedColumn = { table: "client_urls", column: "validation_token", rowIdColumn: "id" };
export const TENANT_VALIDATION_TOKEN: SealedColumn = { table: "integration_tenants", column: "validation_token", rowIdColumn: "id" };

export const SEALED_COLUMNS: readonly SealedColumn[] = [SIGNING_KEY_PRIVATE_JWK, WEBHOOK_SIGNING_SECRET, CLIENT_URL_VALIDATION_TOKEN, TENANT_VALIDATION_TOKEN];

export function placeOf(column: SealedColumn, rowId: string): SealedPlace {
  return { table: column.table, column: column.column, rowId };
}

/** The secret of a stored value: opened, or as is if still in clear (a row the start-up pass has not sealed yet). */
export function openStored(keyring: SecretKeyring, column: SealedColumn, rowId: string, stored: Sealed): string {
  return sealedKeyId(stored) === undefined ? storedText(stored) : keyring.open(stored, placeOf(column, rowId));
}

export function openStoredOrNull(keyring: SecretKeyring, column: SealedColumn, rowId: string, stored: Sealed | null): string | null {
  return stored === null ? null : openStored(keyring, column, rowId, stored);
}

export function sealOrNull(keyring: SecretKeyring, column: SealedColumn, rowId: string, secret: string | null): Sealed | null {
  return secret === null ? null : keyring.seal(secret, placeOf(column, rowId));
}

export interface ResealCount {
  table: string;
  column: string;
  resealed: number;
}

/**
 * Seals each value of the sealed columns that is in clear (`clear`) or, for a rotation, each value not
 * sealed under the current key (`not-current`). Returns how many values of each column it wrote.
 */
export async function resealColumns(
  db: Kysely<Database>,
  keyring: SecretKeyring,
  scope: "clear" | "not-current",
  options: { batchSize?: number; onBatch?: (count: ResealCount) => void } = {},
): Promise<ResealCount[]> {
  const batchSize = options.batchSize ?? 500;
  const counts: ResealCount[] = [];
  for (const column of SEALED_COLUMNS) {
    const count = { table: column.table, column: column.column, resealed: 0 };
    const table = sql.table(column.table);
    const value = sql.ref(column.column);
    const rowId = sql.ref(column.rowIdColumn);
    const pending =
      scope === "clear"
        ? sql`${value} is not null and ${value} not like 'v1.%'`
        : sql`${value} is not null and ${value} not like ${`v1.${keyring.currentKeyId}.%`}`;
    // Keyset pages: a row written meanwhile by a process that still seals under an older key is met once per
    // pass, never in a loop. A value that does not open stops the pass with the reason (a key missing from the ring).
    let after = "";
    for (;;) {
      const { rows } = await sql<{ row_id: string; value: Sealed }>`
        select ${rowId}::text as row_id, ${value} as value from ${table}
        where ${pending} and ${rowId}::text > ${after} order by ${rowId}::text limit ${batchSize}`.execute(db);
      if (rows.length === 0) break;
      let resealed = 0;
      for (const row of rows) {
        const secret = openStored(keyring, column, row.row_id, row.value);
        const updated = await sql`update ${table} set ${value} = ${keyring.seal(secret, placeOf(column, row.row_id))}
          where ${rowId}::text = ${row.row_id} and ${value} = ${row.value}`.execute(db);
        resealed += Number(updated.numAffectedRows ?? 0n);
      }
      after = rows[rows.length - 1]!.row_id;
      count.resealed += resealed;
      options.onBatch?.({ ...count, resealed });
    }
    counts.push(count);
  }
  return counts;
}

/** A few of the values the sealed columns hold: up to three under each key id, and up to three still in clear. */
export interface StoredSecretsSample {
  /** The ids of the keys that sealed what the database holds, each once. */
  keyIds: string[];
  /** Some value is still in clear (a row written before sealing existed, or by an older version). */
  inClear: boolean;
  sealed: Array<{ column: SealedColumn; rowId: string; value: Sealed }>;
}

/** The sample of every sealed column, in one query: what start-up and the rotation check before they use the ring. */
export async function sampleStoredSecrets(db: Kysely<Database>): Promise<StoredSecretsSample> {
  const perColumn = SEALED_COLUMNS.map((column, index) => {
    const value = sql.ref(column.column);
    return sql`select ${index}::int as column_index, row_id, value from (
        select ${sql.ref(column.rowIdColumn)}::text as row_id, ${value}::text as value,
          row_number() over (partition by case when ${value} like 'v1.%' then split_part(${value}, '.', 2) end) as nth
        from ${sql.table(column.table)} where ${value} is not null) sample
      where nth <= 3`;
  });
  const { rows } = await sql<{ column_index: number; row_id: string; value: Sealed }>`${sql.join(perColumn, sql` union all `)}`.execute(db);
  const sample: StoredSecretsSample = { keyIds: [], inClear: false, sealed: [] };
  for (const row of rows) {
    if (sealedKeyId(row.value) === undefined) sample.inClear = true;
    else sample.sealed.push({ column: SEALED_COLUMNS[row.column_index]!, rowId: row.row_id, value: row.value });
  }
  sample.keyIds = [...new Set(sample.sealed.map((row) => sealedKeyId(row.value)!))].sort();
  return sample;
}

/**
 * The sampled values opened: a ring that lacks a key, or holds another key under the same id (a key file
 * generated anew after a restore), fails here, before it is used, with a SealedValueError naming `keySource`,
 * rather than at the first request that needs the secret. A key is taken as the right one when any of its
 * values opens (one altered row is that row's problem, met when used).
 */
export function checkSampleOpens(sample: StoredSecretsSample, keyring: SecretKeyring, keySource: string): void {
  const opened = new Map<string, boolean>();
  for (const { column, rowId, value } of sample.sealed) {
    const keyId = sealedKeyId(value)!;
    if (!keyring.keyIds.includes(keyId))
      throw new SealedValueError(`${column.table}.${column.column} of ${rowId} is sealed under the key "${keyId}", which is not in ${keySource}`);
    if (opened.get(keyId)) continue;
    try {
      keyring.open(value, placeOf(column, rowId));
      opened.set(keyId, true);
    } catch (error) {
      if (!(error instanceof SealedValueError)) throw error;
      opened.set(keyId, false);
    }
  }
  for (const [keyId, opens] of opened)
    if (!opens)
      throw new SealedValueError(
        `the secrets the database holds under the key "${keyId}" do not open with the key "${keyId}" of ${keySource}: it is another key than the one that sealed them`,
      );
}
