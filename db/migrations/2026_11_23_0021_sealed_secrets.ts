import { type Kysely, sql } from "kysely";

// Secrets that must be read back are sealed at rest (domain/secrets): webhook signing secrets, the private
// JWKs that sign idTokens, and webhook validation tokens. A sealed value is text (`v1.<keyId>.…`), so the
// private JWK leaves jsonb for text; the other columns are text already.
//
// A migration has no access to COBRO_SECRET_KEY, so it cannot seal the rows already there. Instead the
// columns hold sealed text, and a value not starting with `v1.` is a legacy value in clear: every start
// of the service seals those (resealColumns "clear", idempotent) before it serves, and reads accept them
// meanwhile (a process of the previous version may still write one during a rolling deploy).
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table signing_keys alter column private_jwk type text using private_jwk::text`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  // Sealed values open only with the key, which a migration does not have: going back needs them in clear.
  const sealed = await sql<{ n: number }>`select count(*)::int as n from signing_keys where private_jwk like 'v1.%'`.execute(db);
  if (sealed.rows[0]!.n > 0) throw new Error("signing_keys holds sealed private keys: going back below 2026_11_23_0021 would leave them unreadable");
  await sql`alter table signing_keys alter column private_jwk type jsonb using private_jwk::jsonb`.execute(db);
}
