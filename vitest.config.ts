import { configDefaults, defineConfig } from "vitest/config";

// Test files run in parallel, each in its own process and on its own database (test/helpers/database.ts);
// one PostgreSQL serves the whole run (test/global-setup.ts).
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The failover tests run their own PostgreSQL cluster: npm run test:ha (vitest.ha.config.ts).
    exclude: [...configDefaults.exclude, "test/ha/**"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
