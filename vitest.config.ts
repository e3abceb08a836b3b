import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"
import { solidUniversal } from "./scripts/lib/solid-universal.ts"

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

// The TUI's .tsx is compiled as the build compiles it, against a plain-object renderer
// (test/fixtures/opentui-fake.ts), with Solid's reactive build (Node would otherwise get its
// server build, where nothing updates).
const tui = {
  plugins: [{ ...solidUniversal(here("test/fixtures/opentui-fake.ts")), enforce: "pre" as const }],
  resolve: {
    alias: [
      { find: /^solid-js$/, replacement: here("node_modules/solid-js/dist/solid.js") },
      {
        find: /^solid-js\/universal$/,
        replacement: here("node_modules/solid-js/universal/dist/universal.js"),
      },
    ],
  },
}

// `npm test` runs the "fast" projects: every unit, property and storage test, in worker threads, and the few
// files that need a process of their own beside them, on every core (`--maxWorkers=100%`: by default vitest
// leaves one core free, which on two cores runs the files one at a time). "slow" is `npm run test:slow`: the
// suites that kill processes, fuzz, stress and load the plugin for minutes; `npm run verify` (and CI) runs both.

// Files that need a process of their own: libuv reads HOME for os.homedir() from the process, not a thread's env.
const OWN_PROCESS = ["test/unit/todo-file.test.ts"]

export default defineConfig({
  ...tui,
  test: {
    // Solid's own files go through the aliases too, so the renderer and the plugin share one Solid.
    server: { deps: { inline: [/[/\\]solid-js[/\\]/] } },
    // One seed for every random test of a run, printed at the start; TEST_SEED=<n> replays it.
    globalSetup: ["test/fixtures/seed-setup.ts"],
    setupFiles: ["test/fixtures/seed-apply.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: ["test/unit/**/*.test.ts", "test/host/**/*.test.ts"],
          exclude: OWN_PROCESS,
          // Threads start and import faster than one process per file; process.env stays per thread.
          pool: "threads",
          testTimeout: 20_000,
        },
      },
      { extends: true, test: { name: "fast-own-process", include: OWN_PROCESS, testTimeout: 20_000 } },
      { extends: true, test: { name: "slow", include: ["test/slow/**/*.test.ts"], testTimeout: 180_000 } },
    ],
  },
})
