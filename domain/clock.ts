// The one way domain code reads time, so that tests and the sandbox clock can move it.

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that stands still until told to move: for tests. */
export class ManualClock implements Clock {
  #now: Date;

  constructor(start: Date) {
    this.#now = new Date(start);
  }

  now(): Date {
    return new Date(this.#now);
  }

  set(to: Date): void {
    this.#now = new Date(to);
  }

  advance(milliseconds: number): void {
    this.#now = new Date(this.#now.getTime() + milliseconds);
  }
}

/**
 * An integration's time: the service clock plus its Sandbox clock offset (0 in Production). Everything
 * time-dependent for that integration reads it: date validation, surcharges, overdue, expiry, quotas' day.
 */
export function integrationNow(clock: Clock, clockOffsetMs: number): Date {
  return new Date(clock.now().getTime() + clockOffsetMs);
}
