// The page of a list (the contract's PageQuery: the Admin API's lists, and the Integration API's unmatched
// payments): `limit` 1 to 100 (the contract checks the range), default 20; `offset` default 0.

export function pageOf(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  return { limit: query.limit ?? 20, offset: query.offset ?? 0 };
}
