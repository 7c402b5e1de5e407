import { type Kysely, sql } from "kysely";

// A change to what a token check reads also tells the connection that wrote it, with a notice
// (`cobro_auth_changed`): the API process that made the change forgets its remembered token checks as
// soon as the transaction ends, before its answer leaves (server/auth-change-listener.ts), without
// waiting for the notification to reach its listening connection, and without forgetting after writes
// that change nothing a token check reads.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function cobro_notify_auth_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('cobro_auth_changed', '');
      raise notice 'cobro_auth_changed';
      return null;
    end $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function cobro_notify_auth_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('cobro_auth_changed', '');
      return null;
    end $$`.execute(db);
}
