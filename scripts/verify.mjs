#!/usr/bin/env node
// The README's test command: every check the project has, on both real hosts. Every step runs even when an
// earlier one failed, so one run shows everything that is broken; then a table of the steps, their result and
// their time per host, and a closing count. Exits non-zero when any step failed.
//
// Stages run in order; the lanes of a stage run side by side (each lane's steps in order). The two hosts' checks
// share no port (each takes a free one), no data folder (each makes its own sandbox) and no tmux session name, so
// OpenCode 1.18's lane and OpenCode 2's run at once. The benchmarks run alone, last: they time things.
import { spawn, spawnSync } from "node:child_process"

const V1 = "1.18.33"
const V2 = "2.0.15"
/** [name, command, host] per step; host "" is neither. */
const stages = [
  [
    [
      ["build", "npm run build", ""],
      ["check", "npm run check", ""],
    ],
  ],
  [
    [
      ["unit tests", "npm test", ""],
      ["slow tests (crash, fuzz, stress, load)", "npm run test:slow", ""],
      ["end-to-end smoke", "npm run smoke", V1],
      ["demo (the README's first command)", "npm run demo", V1],
      ["sidebar check (TUI in tmux)", "node scripts/sidebar-check.mjs", V1],
    ],
    [
      ["end-to-end smoke", "npm run smoke:2", V2],
      ["undo, redo, fork, compaction", "npm run smoke:2:history", V2],
      ["demo", "npm run demo -- --host=2", V2],
      ["sidebar check (TUI in tmux)", "node scripts/sidebar-check2.mjs", V2],
      // One pack and one git install serve both hosts' ways; it runs in the lane that is otherwise shorter.
      ["publish probe (fresh clone, packed and installed)", "node scripts/publish-probe.mjs", `${V1}, ${V2}`],
    ],
  ],
  [[["benchmarks (short)", "npm run bench:short", ""]]],
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

/** One step; alone in its stage it prints as it goes, beside others its output is printed whole when it ends. */
function runStep([name, command, host], alone) {
  const label = host ? `${name} [OpenCode ${host}]` : name
  const t0 = Date.now()
  const [cmd, ...args] = command.split(" ")
  if (alone) process.stdout.write(`\n=== ${label}: ${command}\n`)
  return new Promise((resolve) => {
    const out = alone ? "inherit" : "pipe"
    const child = spawn(cmd, args, { stdio: ["ignore", out, out] })
    const chunks = []
    if (!alone) {
      child.stdout.on("data", (d) => chunks.push(d))
      child.stderr.on("data", (d) => chunks.push(d))
    }
    child.on("error", (error) => chunks.push(Buffer.from(`${error.message}\n`)))
    child.on("close", (code, signal) => {
      const ok = code === 0
      const result = ok ? "passed" : signal ? `FAILED (${signal})` : `FAILED (exit ${code})`
      const ms = Date.now() - t0
      if (!alone) {
        const text = Buffer.concat(chunks).toString("utf8")
        process.stdout.write(`\n=== ${label}: ${command}\n${text}`)
      }
      process.stdout.write(`=== ${label}: ${result} in ${seconds(ms)}\n`)
      resolve({ name, host, result, ok, ms })
    })
  })
}

const started = Date.now()
ensureTmux()
const results = []
for (const lanes of stages) {
  const alone = lanes.length === 1
  const done = await Promise.all(
    lanes.map(async (lane) => {
      const out = []
      for (const step of lane) out.push(await runStep(step, alone))
      return out
    }),
  )
  for (const lane of done) results.push(...lane)
}

const rows = [
  ["step", "host", "result", "time"],
  ...results.map((r) => [r.name, r.host || "-", r.result, seconds(r.ms)]),
  ["total (the hosts' lanes run side by side)", "", "", seconds(Date.now() - started)],
]
const widths = [0, 1, 2, 3].map((i) => Math.max(...rows.map((row) => row[i].length)))
const line = (row) =>
  `${row[0].padEnd(widths[0])}  ${row[1].padEnd(widths[1])}  ${row[2].padEnd(widths[2])}  ${row[3].padStart(widths[3])}`
const failed = results.filter((r) => !r.ok).length
process.stdout.write(
  `\n${rows.map(line).join("\n")}\n\nverify: ${results.length - failed} passed, ${failed} failed\n`,
)
process.exit(failed === 0 ? 0 : 1)
