// Names no other call of the test file returns, for what the service keeps unique: referenceIds, tenant
// keys, receiver paths. Each test file has its own database, so unique within the file is enough.
let sequence = 0;

/** `<prefix>-<the time in base 36>-<a counter>`. */
export function uniqueRef(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${++sequence}`;
}
