import { defineConfig } from "vitest/config"

// Two projects. "fast" is `npm test`: every unit, property and storage test, well under a minute on
// two cores. "slow" is `npm run test:slow`: the suites that kill processes, fuzz, stress and load
// the plugin for minutes; `npm run verify` (and so CI) always runs both.

export default defineConfig({
  test: {
    // One seed for every random test of a run, printed at the start; TEST_SEED=<n> replays it.
    globalSetup: ["test/fixtures/seed-setup.ts"],
    setupFiles: ["test/fixtures/seed-apply.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/unit/**/*.test.ts", "test/host/**/*.test.ts"],
          testTimeout: 20_000,
        },
      },
      { extends: true, test: { name: "slow", include: ["test/slow/**/*.test.ts"], testTimeout: 180_000 } },
    ],
  },
})
