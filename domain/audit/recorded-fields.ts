// What an audit entry says of a request's body: the names of its fields always, their values only for the
// fields on VALUE_RECORDED_FIELDS. The list is an allow-list on purpose: a field added to the contract is
// recorded by name until someone decides its value is harmless. No secret is ever on it: passwords, client
// secrets, webhook signing secrets, API secret keys, validation tokens, refresh tokens, reset tokens and
// codes are named in SECRET_FIELDS, and a rotation of one is recorded as its operation, not as a value.
// Nor are people's emails and names and payers' data: an entry says what changed, not who was typed in.

/** Fields of the Admin and Auth APIs' bodies whose values an entry keeps (settings and decisions). */
export const VALUE_RECORDED_FIELDS: ReadonlySet<string> = new Set([
  // integration settings
  "name",
  "description",
  "companyName",
  "logoUrl",
  "contactEmail",
  "type",
  "scopes",
  "redirectUrls",
  "logoutUrls",
  "serviceCommissionPercentage",
  "allowedOrigins",
  "enabledEvents",
  "graceSeconds",
  // tenants and URLs
  "key",
  "webhook_url",
  "url",
  "urlType",
  // limits, offers, commissions, decisions
  "requestedPerDay",
  "approvedPerDay",
  "reason",
  "percentage",
  "fixedAmount",
  "status",
  // unmatched money assigned: to which charge; returned: whether the Sandbox was asked to fail it
  "paymentRequestId",
  "referenceId",
  "simulateFailure",
  // merchant provisioning (a business, not a person)
  "legalName",
  "tradeName",
  "cuit",
  // Sandbox tools
  "advanceTo",
  "advanceBy",
  "event",
  "tenantKey",
  "amount",
  "dueDate",
  "simulated",
  "forcePspFailure",
]);

/** Fields that carry a secret or a password: never a value in an entry, whatever else changes. */
export const SECRET_FIELDS: ReadonlySet<string> = new Set([
  "password",
  "currentPassword",
  "newPassword",
  "clientSecret",
  "client_secret",
  "refreshToken",
  "refresh_token",
  "token",
  "code",
  "csrf",
  "validationToken",
  "webhook_validation_token",
  "signingSecret",
  "apiSecretKey",
  "secretKey",
]);

/** The names of a JSON or form body's fields (none for a body that is not an object, such as an image). */
export function bodyFieldNames(body: unknown): string[] {
  if (typeof body !== "object" || body === null || Array.isArray(body) || Buffer.isBuffer(body)) return [];
  return Object.keys(body).sort();
}

/** The values an entry keeps: the allow-listed fields' values, never a secret's. */
export function recordedValues(body: unknown): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const name of bodyFieldNames(body)) {
    if (VALUE_RECORDED_FIELDS.has(name) && !SECRET_FIELDS.has(name)) values[name] = (body as Record<string, unknown>)[name];
  }
  return values;
}
