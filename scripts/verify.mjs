#!/usr/bin/env node
// The README's test command: every check the project has, in order, stopping at the
// first failure. Prints one closing summary line so a reader (or CI) sees the outcome.
import { spawnSync } from "node:child_process"

const steps = [
  ["build", ["npm", "run", "build"]],
  ["check", ["npm", "run", "check"]],
  ["unit tests", ["npm", "test"]],
  ["end-to-end smoke", ["npm", "run", "smoke"]],
  ["benchmarks (short)", ["npm", "run", "bench:short"]],
]

let passed = 0
const started = Date.now()
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
