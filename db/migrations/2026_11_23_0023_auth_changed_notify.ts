import { sql, type Kysely } from "kysely";

// Every change to what a token check reads (grants, links, integrations, admin sessions and users)
// notifies `cobro_auth_changed` in the writing transaction, delivered at its commit: each API process
// listens and forgets the token checks it remembered (domain/sign-in/token-check-cache.ts). A trigger,
// so that no write path (a use case, a script, an operator's SQL) can forget to notify.
const TABLES = ["oauth_grants", "merchant_links", "integration_clients", "admin_sessions", "admin_users"];

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function cobro_notify_auth_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('cobro_auth_changed', '');
      return null;
    end $$`.execute(db);
  for (const table of TABLES) {
    await sql`create trigger ${sql.id(`${table}_auth_changed`)} after insert or update or delete or truncate on ${sql.table(table)}
              for each statement execute function cobro_notify_auth_changed()`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) await sql`drop trigger ${sql.id(`${table}_auth_changed`)} on ${sql.table(table)}`.execute(db);
  await sql`drop function cobro_notify_auth_changed()`.execute(db);
}
