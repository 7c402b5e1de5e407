// The type of a column that holds a sealed secret (AES-256-GCM, domain/secrets/keyring.ts). In PostgreSQL
// it is text; to TypeScript it is not a string, so a sealed value read without being opened cannot be
// signed with, sent or compared: only the keyring's `open` takes it, and only its `seal` makes one.
declare const sealedSecret: unique symbol;

export type Sealed = { readonly [sealedSecret]: "a sealed secret: open it with the keyring" };
