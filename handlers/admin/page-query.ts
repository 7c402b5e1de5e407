// The page of an Admin API list: `limit` 1 to 100 (the contract checks the range), default 20; `offset` default 0.

export function pageOf(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: query.limit ?? 20, offset: query.offset ?? 0 };
}
