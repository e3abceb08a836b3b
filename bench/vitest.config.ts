import { defineConfig } from "vitest/config"

// Benchmarks run as vitest files so TypeScript needs no extra build step; each file
// measures, prints a table, records its figures for bench/report.mjs, and asserts the
// targets (the short mode CI runs fails when a target is missed).
export default defineConfig({
  test: {
    include: ["bench/**/*.measure.ts"],
    testTimeout: 600_000,
    fileParallelism: false,
  },
})
