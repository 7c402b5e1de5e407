// Ids in paths and token claims are UUIDs. A value of another shape names nothing, and PostgreSQL would
// refuse to compare it with a uuid column: callers check the shape first and answer "not found".

export function isUuid(value: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);
}
