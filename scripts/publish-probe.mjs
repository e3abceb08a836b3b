#!/usr/bin/env node
// Checks the package as users get it: builds, packs it with `npm pack`, installs the tarball into an
// empty folder outside this checkout, then (1) imports the server entry with plain Node from there,
// and (2) runs the real OpenCode TUI (tmux) with both entries loaded from that node_modules against
// a scripted model: the `todo` tool must reach the model and the sidebar must render the list.
// Exits non-zero with a message on the first failure, after cleaning up.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { startMockModel } from "./lib/mock-model.mjs"
import { hasTmux, screenText, sidebarBlock, startTui, todoConversation } from "./lib/tui.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const started = Date.now()
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`
const since = () => secs(Date.now() - started)
const work = mkdtempSync(join(tmpdir(), "octodo-publish-"))
let model
let tui

function fail(message, detail = "") {
  const error = new Error(message)
  error.detail = detail
  throw error
}

/** Runs a command with a hard timeout; returns stdout or fails with its output. */
function run(step, cmd, args, { cwd = root, timeoutMs = 180_000, env = process.env } = {}) {
  const t0 = Date.now()
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: timeoutMs, killSignal: "SIGKILL" })
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}${r.signal ? ` (${r.signal})` : ""}`
    fail(`${step} failed: ${cmd} ${args.join(" ")}: ${why}`, `${r.stdout ?? ""}\n${r.stderr ?? ""}`.trim())
  }
  console.log(`  ok   ${step} (${secs(Date.now() - t0)})`)
  return r.stdout
}

function cleanEnv() {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)))
}

let code = 0
try {
  run("build", "npm", ["run", "build"])

  const packed = JSON.parse(run("npm pack", "npm", ["pack", "--json", "--pack-destination", work]))
  const info = packed[0]
  const files = info.files.map((f) => f.path)
  for (const wanted of ["package.json", "dist/server.mjs", "dist/tui.mjs"]) {
    if (!files.includes(wanted)) fail(`the tarball lacks ${wanted}`, files.join("\n"))
  }
  const stray = files.filter((f) => /^(src|test|scripts|bench|\.tmp)\//.test(f))
  if (stray.length > 0) fail("the tarball ships development files", stray.join("\n"))
  console.log(`       ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(1)} kB packed`)
  console.log(`       ${files.join(", ")}`)

  // An empty consumer project outside this checkout: nothing can resolve from the repo's node_modules.
  const app = join(work, "app")
  mkdirSync(app)
  writeFileSync(
    join(app, "package.json"),
    `${JSON.stringify({ name: "probe-app", version: "1.0.0", private: true }, null, 2)}\n`,
  )
  run(
    "npm install <tarball>",
    "npm",
    ["install", join(work, info.filename), "--prefer-offline", "--no-audit", "--no-fund"],
    // Without the npm_* variables `npm run` sets, so the install sees only the consumer project.
    { cwd: app, timeoutMs: 300_000, env: cleanEnv() },
  )
  const pkgDir = join(app, "node_modules", "opencode-todo")
  const pkg = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"))
  const serverFile = join(pkgDir, pkg.exports["./server"].import)
  const tuiFile = join(pkgDir, pkg.exports["./tui"].import)
  for (const f of [serverFile, tuiFile]) if (!existsSync(f)) fail(`installed package lacks ${f}`)

  // (1) Plain Node, cwd in the consumer project, importing the installed server entry.
  const probe = `import(${JSON.stringify(serverFile)}).then((m) => {
    const d = m.default
    if (!d || typeof d.server !== "function") throw new Error("default export has no server()")
    console.log(JSON.stringify({ id: d.id, exports: Object.keys(m), server: typeof d.server }))
  })`
  const imported = run("node imports dist/server.mjs from the install", process.execPath, ["-e", probe], {
    cwd: app,
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  })
  console.log(`       ${imported.trim()}`)

  // (2) The real host with both entries from the install.
  if (!hasTmux()) fail("tmux is not installed (apt-get install -y tmux)")
  model = await startMockModel({ decide: todoConversation() })
  tui = await startTui({
    modelUrl: model.url,
    serverPlugins: [pkgDir],
    tuiPlugins: [pkgDir],
    env: { OPENCODE_TODO_REMINDERS: "false" },
  })
  await tui.waitReady({ timeoutMs: 120_000 })
  console.log(`  ok   TUI ready with both entries from the install (${since()})`)
  await tui.submit("Plan the work and start on it.")
  const t0 = Date.now()
  // The first main request shows whether the host loaded the server entry (it offers the tool).
  const deadline = Date.now() + 240_000
  while (model.mainRequests().length === 0 && Date.now() < deadline && !tui.paneDead())
    await new Promise((r) => setTimeout(r, 250))
  const firstMain = model.mainRequests()[0]
  if (!firstMain) fail("the model received no request", screenText(tui.capture()))
  const tools = (firstMain.body.tools ?? []).map((t) => t.function?.name)
  if (!tools.includes("todo"))
    fail("the todo tool did not reach the model: the host did not load the server entry", tools.join(", "))
  console.log(`  ok   the todo tool reached the model (${secs(Date.now() - t0)} after the prompt)`)
  const screen = await tui
    .waitFor(
      (s) => {
        const block = sidebarBlock(tui.sidebar(s), "Todo")
        return Boolean(block && /1\/5 done/.test(block.lines[0] ?? ""))
      },
      { timeoutMs: 180_000 },
    )
    .catch((error) => fail("the sidebar did not show the list", error.message))
  const block = sidebarBlock(tui.sidebar(screen), "Todo")
  console.log(`  ok   the sidebar rendered the list (${secs(Date.now() - t0)} after the prompt)`)
  for (const line of block.lines) console.log(`       | ${line}`)
} catch (error) {
  code = 1
  console.error(`  FAIL ${error.message}`)
  if (error.detail) console.error(String(error.detail).split("\n").slice(-40).join("\n"))
} finally {
  try {
    await tui?.stop()
  } catch {}
  try {
    await model?.close()
  } catch {}
  rmSync(work, { recursive: true, force: true })
}
console.log(`\npublish-probe: ${code === 0 ? "passed" : "FAILED"} (${since()})`)
process.exit(code)
