// The one rule for a system tool a test needs (PHP, Python, promtool…): missing under CI=true is a failure,
// since .ci/run installs it and a test must not pass by skipping; missing elsewhere is a skip with the reason.

/** Throws `reason` under CI=true; otherwise prints it and calls `skip(reason)`. */
export function toolMissing(reason: string, skip: (reason: string) => void): void {
  if (process.env.CI === "true") throw new Error(reason);
  console.warn(`skipped: ${reason}`);
  skip(reason);
}
