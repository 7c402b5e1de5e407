// Who calls an API, as established by its security handler. The identity issue adds the authenticated
// callers (merchant on the Integration API, admins on the Admin API).

export type AnonymousCaller = { kind: "anonymous" };

export const anonymousCaller: AnonymousCaller = { kind: "anonymous" };

export type IntegrationCaller = AnonymousCaller;
export type AuthCaller = AnonymousCaller;
export type AdminCaller = AnonymousCaller;
