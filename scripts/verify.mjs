#!/usr/bin/env node
// The README's test command: every check the project has, in order, stopping at the
// first failure. Prints one closing summary line so a reader (or CI) sees the outcome.
import { spawnSync } from "node:child_process"

/** The TUI checks drive the real TUI in tmux: install it from Debian's packages when missing. */
function ensureTmux() {
  if (spawnSync("tmux", ["-V"]).status === 0) return true
  const root = process.getuid?.() === 0
  if (!root || spawnSync("apt-get", ["--version"]).status !== 0) {
    process.stdout.write("verify: tmux is missing and cannot be installed here; install tmux and rerun.\n")
    return false
  }
  process.stdout.write("verify: installing tmux (apt-get)\n")
  const update = spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
  const install = spawnSync("apt-get", ["install", "-y", "-qq", "tmux"], {
    stdio: "inherit",
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  })
  return update.status === 0 && install.status === 0
}

const steps = [
  ["build", ["npm", "run", "build"]],
  ["check", ["npm", "run", "check"]],
  ["unit tests", ["npm", "test"]],
  ["end-to-end smoke", ["npm", "run", "smoke"]],
  ["sidebar check (TUI in tmux)", ["node", "scripts/sidebar-check.mjs"]],
  ["publish probe (packed tarball)", ["node", "scripts/publish-probe.mjs"]],
  ["benchmarks (short)", ["npm", "run", "bench:short"]],
]

const started = Date.now()
let passed = 0
if (!ensureTmux()) {
  process.stdout.write("verify: 0 passed, 1 failed\n")
  process.exit(1)
}
for (const [name, [cmd, ...args]] of steps) {
  const t0 = Date.now()
  process.stdout.write(`\n=== ${name}: ${[cmd, ...args].join(" ")}\n`)
  const run = spawnSync(cmd, args, { stdio: "inherit" })
  const secs = ((Date.now() - t0) / 1000).toFixed(1)
  if (run.status !== 0) {
    process.stdout.write(`\n=== ${name} FAILED after ${secs}s\n`)
    process.stdout.write(`verify: ${passed} passed, 1 failed\n`)
    process.exit(1)
  }
  passed++
  process.stdout.write(`=== ${name} passed in ${secs}s\n`)
}
process.stdout.write(
  `\nverify: ${passed} passed, 0 failed (${((Date.now() - started) / 1000).toFixed(0)}s)\n`,
)
