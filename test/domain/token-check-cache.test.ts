// The remembered token checks: used only while the process listens for changes, forgotten at each
// change, never remembering an answer read across a change, and never used past a second.
import { afterEach, describe, expect, it, vi } from "vitest";
import { TOKEN_CHECK_REMEMBERED_MS, TokenCheckCache } from "../../domain/sign-in/token-check-cache.ts";

function counter() {
  let reads = 0;
  return { read: async () => ++reads, reads: () => reads };
}

describe("TokenCheckCache", () => {
  afterEach(() => vi.useRealTimers());

  it("reads the database every time while the process is not listening for changes", async () => {
    const cache = new TokenCheckCache();
    const database = counter();
    expect(await cache.read("k", database.read)).toBe(1);
    expect(await cache.read("k", database.read)).toBe(2);
  });

  it("remembers an answer while listening, and forgets it at a change", async () => {
    const cache = new TokenCheckCache();
    cache.listening();
    const database = counter();
    expect(await cache.read("k", database.read)).toBe(1);
    expect(await cache.read("k", database.read)).toBe(1);
    expect(await cache.read("other", database.read)).toBe(2);
    cache.changed();
    expect(await cache.read("k", database.read)).toBe(3);
  });

  it("does not remember an answer read while a change was notified", async () => {
    const cache = new TokenCheckCache();
    cache.listening();
    const database = counter();
    expect(
      await cache.read("k", async () => {
        cache.changed();
        return database.read();
      }),
    ).toBe(1);
    expect(await cache.read("k", database.read)).toBe(2);
  });

  it("forgets everything, and remembers nothing, once the listening connection is lost", async () => {
    const cache = new TokenCheckCache();
    cache.listening();
    const database = counter();
    await cache.read("k", database.read);
    cache.notListening();
    expect(await cache.read("k", database.read)).toBe(2);
    expect(await cache.read("k", database.read)).toBe(3);
  });

  it("uses a remembered answer for at most a second", async () => {
    vi.useFakeTimers({ toFake: ["performance"] });
    const cache = new TokenCheckCache();
    cache.listening();
    const database = counter();
    await cache.read("k", database.read);
    vi.advanceTimersByTime(TOKEN_CHECK_REMEMBERED_MS - 1);
    expect(await cache.read("k", database.read)).toBe(1);
    vi.advanceTimersByTime(1);
    expect(await cache.read("k", database.read)).toBe(2);
  });
});
