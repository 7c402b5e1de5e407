// The admins of an integration client: listed by its own admins and by platform admins; invited by a
// platform admin (with a temporary password, mailed in the welcome email).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { createAdminWithTemporaryPassword, renewTemporaryPassword, type AdminWelcome } from "./admin-welcome.ts";
import { isUuid } from "../ids.ts";
import { integrationClientById } from "./integration-clients.ts";

export interface ClientAdmin {
  id: string;
  email: string;
  /** Pending until the admin's first sign-in (with the temporary password or a chosen one). */
  status: "active" | "pending";
  invitedAt: Date;
}

function clientAdmin(row: { id: string; email: string; first_login_at: Date | null; invited_at: Date }): ClientAdmin {
  return { id: row.id, email: row.email, status: row.first_login_at ? "active" : "pending", invitedAt: row.invited_at };
}

export async function listClientAdmins(db: Kysely<Database>, integrationClientId: string): Promise<ClientAdmin[]> {
  const rows = await db.selectFrom("admin_users").selectAll().where("integration_client_id", "=", integrationClientId).orderBy("invited_at").execute();
  return rows.map(clientAdmin);
}

/** A new temporary password for an admin of the client, for a welcome email sent again. */
export async function renewClientAdminWelcome(
  db: Kysely<Database>,
  integrationClientId: string,
  adminUserId: string,
  now: Date,
): Promise<{ admin: ClientAdmin; welcome: AdminWelcome }> {
  const client = await integrationClientById(db, integrationClientId);
  if (!isUuid(adminUserId)) throw new DomainError("ClientAdminNotFoundError", "No admin with that id in this integration client");
  const welcome = await renewTemporaryPassword(db, { adminUserId, integrationClientId: client.id }, now);
  const row = await db.selectFrom("admin_users").selectAll().where("id", "=", welcome.adminUserId).executeTakeFirstOrThrow();
  return { admin: clientAdmin(row), welcome };
}

/**
 * A new integration admin of the client. `clientId` is optional (the client is named by its id); a body
 * that still sends it must name this client's OAuth clientId.
 */
export async function inviteClientAdmin(
  db: Kysely<Database>,
  integrationClientId: string,
  input: { clientId?: string; email: string; name: string | null },
  now: Date,
): Promise<{ admin: ClientAdmin; welcome: AdminWelcome }> {
  const client = await integrationClientById(db, integrationClientId);
  if (input.clientId !== undefined && input.clientId !== client.provider_client_id)
    throw new DomainError("ClientIdMismatchError", "clientId is not the OAuth clientId of the integration client in the path");
  const welcome = await createAdminWithTemporaryPassword(
    db,
    { email: input.email, name: input.name, role: "INTEGRATION_ADMIN", integrationClientId: client.id },
    now,
  );
  const row = await db.selectFrom("admin_users").selectAll().where("id", "=", welcome.adminUserId).executeTakeFirstOrThrow();
  return { admin: clientAdmin(row), welcome };
}
