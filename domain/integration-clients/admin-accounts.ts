// Admin accounts (integration admins and platform admins): created with a password hash and a role; a
// temporary password (the welcome email's) allows only changing it, until it expires.

import type { Executor } from "../../db/transactions.ts";
import type { AdminRole } from "../../db/tables/admins.table.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { DomainError } from "../errors.ts";
import { hashSecret } from "../secrets/hashing.ts";

export async function createAdminUser(
  db: Executor,
  input: { email: string; password: string; role: AdminRole; integrationClientId?: string | null; name?: string | null; temporaryPasswordExpiresAt?: Date },
): Promise<{ id: string }> {
  try {
    return await db
      .insertInto("admin_users")
      .values({
        email: input.email,
        password_hash: await hashSecret(input.password),
        role: input.role,
        integration_client_id: input.integrationClientId ?? null,
        name: input.name ?? null,
        // A temporary password (mailed in a welcome) allows only changing it, until it expires.
        ...(input.temporaryPasswordExpiresAt ? { password_change_required: true, password_expires_at: input.temporaryPasswordExpiresAt } : {}),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError("AdminEmailAlreadyExistsError", `An admin with email ${input.email} already exists`);
    throw error;
  }
}
