import { defineConfig } from "vitest/config";

// The failover tests and the restore drill (npm run test:ha): they start their own PostgreSQL cluster (scripts/cluster.ts), so
// they need no global setup, run one file at a time, and are not part of `npm test`.
export default defineConfig({
  test: {
    include: ["test/ha/**/*.test.ts"],
    pool: "forks",
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 240_000,
  },
});
