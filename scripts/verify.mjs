#!/usr/bin/env node
// The README's test command: every check the project has. Every step runs even when an earlier one
// failed, so one run shows everything that is broken; then a table of the steps, their result and
// their time, and a closing count. Exits non-zero when any step failed.
import { spawnSync } from "node:child_process"

// One line per step: [name, command]. Steps run in this order.
const steps = [
  ["build", "npm run build"],
  ["check", "npm run check"],
  ["unit tests", "npm test"],
  ["slow tests (crash, fuzz, stress, load)", "npm run test:slow"],
  ["end-to-end smoke", "npm run smoke"],
  ["demo (the README's first command)", "npm run demo"],
  ["sidebar check (TUI in tmux)", "node scripts/sidebar-check.mjs"],
  ["publish probe (fresh clone, packed and installed)", "node scripts/publish-probe.mjs"],
  ["benchmarks (short)", "npm run bench:short"],
]

/** The TUI checks drive the real TUI in tmux: install it from Debian's packages when missing. */
function ensureTmux() {
  if (spawnSync("tmux", ["-V"]).status === 0) return
  const root = process.getuid?.() === 0
  if (!root || spawnSync("apt-get", ["--version"]).status !== 0) {
    process.stdout.write("verify: tmux is missing and cannot be installed here; the TUI steps will fail.\n")
    return
  }
  process.stdout.write("verify: installing tmux (apt-get)\n")
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
  spawnSync("apt-get", ["install", "-y", "-qq", "tmux"], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  })
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`
const started = Date.now()
ensureTmux()
const results = []
for (const [name, command] of steps) {
  process.stdout.write(`\n=== ${name}: ${command}\n`)
  const t0 = Date.now()
  const [cmd, ...args] = command.split(" ")
  const run = spawnSync(cmd, args, { stdio: "inherit" })
  const ok = run.status === 0
  const result = ok ? "passed" : run.signal ? `FAILED (${run.signal})` : `FAILED (exit ${run.status})`
  results.push({ name, result, ok, ms: Date.now() - t0 })
  process.stdout.write(`=== ${name}: ${result} in ${seconds(Date.now() - t0)}\n`)
}

const rows = [
  ["step", "result", "time"],
  ...results.map((r) => [r.name, r.result, seconds(r.ms)]),
  ["total", "", seconds(Date.now() - started)],
]
const widths = [0, 1, 2].map((i) => Math.max(...rows.map((row) => row[i].length)))
const line = (row) =>
  `${row[0].padEnd(widths[0])}  ${row[1].padEnd(widths[1])}  ${row[2].padStart(widths[2])}`
const failed = results.filter((r) => !r.ok).length
process.stdout.write(
  `\n${rows.map(line).join("\n")}\n\nverify: ${results.length - failed} passed, ${failed} failed\n`,
)
process.exit(failed === 0 ? 0 : 1)
