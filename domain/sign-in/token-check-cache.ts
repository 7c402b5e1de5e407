// What the token checks read from the database (grant revoked? merchant still linked? admin session
// live?), remembered per process for at most a second, so that a caller's requests do not each pay that
// round trip. Changes take effect at once all the same: every write to those tables notifies
// `cobro_auth_changed` (a trigger, db/migrations/2026_11_23_0023_auth_changed_notify.ts) and each API
// process, listening, forgets everything it remembered. A change made through the process itself is
// forgotten when its transaction ends, before its answer leaves (the trigger's notice to the writing
// connection, server/auth-change-listener.ts), since the notification may arrive after the caller's next
// request. While a process is not listening (starting, or its listening connection lost)
// nothing is remembered: every check reads the database.
/** The longest a remembered answer is used, even if no notification came. */
export const TOKEN_CHECK_REMEMBERED_MS = 1000;
/** Past this many remembered answers the memory starts over (it is only a saving of round trips). */
const TOKEN_CHECKS_KEPT = 10_000;

export class TokenCheckCache {
  #entries = new Map<string, { value: unknown; until: number }>();
  /** Moves at each change notified: an answer read before a change is not remembered after it. */
  #generation = 0;
  #listening = false;

  /** The process is listening for changes: answers may be remembered. */
  listening(): void {
    this.#listening = true;
    this.changed();
  }

  /** The process stopped listening (connection lost): nothing is remembered until it listens again. */
  notListening(): void {
    this.#listening = false;
    this.changed();
  }

  /** Something a token check reads changed: forget every answer. */
  changed(): void {
    this.#generation++;
    this.#entries.clear();
  }

  /** The remembered answer for `key`, or `read`'s (remembered when nothing changed while it read). */
  async read<T>(key: string, read: () => Promise<T>): Promise<T> {
    if (!this.#listening) return read();
    const now = performance.now();
    const known = this.#entries.get(key);
    if (known && known.until > now) return known.value as T;
    const generation = this.#generation;
    const value = await read();
    if (this.#listening && generation === this.#generation) {
      if (this.#entries.size >= TOKEN_CHECKS_KEPT) this.#entries.clear();
      this.#entries.set(key, { value, until: now + TOKEN_CHECK_REMEMBERED_MS });
    }
    return value;
  }
}
