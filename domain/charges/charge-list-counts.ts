// The total of a charge list (`X-Total-Count`) without counting a large range on every page. A range of
// up to EXACT_COUNT_UP_TO charges is counted on each request by a count that stops one row past the
// bound, so it reads at most that many index entries. A larger range is counted whole once and that
// count is remembered by the process for COUNT_REMEMBERED_MS per merchant account and range: the
// following pages answer it without counting (it misses charges created or discarded since).
import type { Clock } from "../clock.ts";

/** Up to this many charges in a range, the total is counted on each request. */
export const EXACT_COUNT_UP_TO = 1000;
/** How long a larger range's count is answered before it is counted again. */
export const COUNT_REMEMBERED_MS = 60_000;
/** Past this many remembered counts the memory starts over (it only saves counting). */
const COUNTS_KEPT = 10_000;

export interface ListTotal {
  total: number;
  /** Counted on this request (the range holds at most the bound), not a remembered count. */
  exact: boolean;
}

export class ChargeListCounts {
  #entries = new Map<string, { total: Promise<number>; until: number }>();
  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /**
   * The total of the range `key`: `countUpTo(EXACT_COUNT_UP_TO + 1)` when it stays within the bound,
   * otherwise `countAll()`'s, remembered (one count at a time per range, however many pages ask).
   */
  async total(key: string, countUpTo: (limit: number) => Promise<number>, countAll: () => Promise<number>): Promise<ListTotal> {
    const now = this.#clock.now().getTime();
    const known = this.#entries.get(key);
    if (known && known.until > now) return { total: await known.total, exact: false };
    const bounded = await countUpTo(EXACT_COUNT_UP_TO + 1);
    if (bounded <= EXACT_COUNT_UP_TO) return { total: bounded, exact: true };
    const counting = this.#entries.get(key);
    if (counting && counting.until > now) return { total: await counting.total, exact: false };
    const total = countAll();
    if (this.#entries.size >= COUNTS_KEPT) this.#entries.clear();
    const entry = { total, until: now + COUNT_REMEMBERED_MS };
    this.#entries.set(key, entry);
    // A failed count is not remembered: the next page counts again.
    total.catch(() => {
      if (this.#entries.get(key) === entry) this.#entries.delete(key);
    });
    return { total: await total, exact: false };
  }
}
