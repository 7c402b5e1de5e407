import type { Generated, Selectable } from "kysely";
import type { Timestamp, DefaultedTimestamp } from "./column-types.ts";

// The platform's and the integrations' admins (migration 2026_11_22_0002_identity).

export type AdminRole = "PLATFORM_ADMIN" | "INTEGRATION_ADMIN";

export interface AdminUsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  name: string | null;
  role: AdminRole;
  integration_client_id: string | null;
  invited_at: DefaultedTimestamp;
  first_login_at: Timestamp | null;
  created_at: DefaultedTimestamp;
  /** A temporary password (the welcome email's) allows only changing it. */
  password_change_required: Generated<boolean>;
  /** When a temporary password stops working; null for a password the admin chose. */
  password_expires_at: Timestamp | null;
  /** When the welcome email was accepted by the mail server (or logged, in the Sandbox without SMTP). */
  welcome_email_sent_at: Timestamp | null;
}

export type AdminUser = Selectable<AdminUsersTable>;
