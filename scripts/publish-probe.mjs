#!/usr/bin/env node
// Checks the package as users get it, from a fresh clone of the commit under test with no build
// run before: `npm pack` there must build and ship both entries. Then, for each install way the
// README documents, `npm run install-plugin` (the clone's own) writes the sandbox's config, and the
// real OpenCode TUI (tmux) must load both entries against a scripted model: the `todo` tool reaches
// the model (server entry) and the sidebar shows the list (TUI entry). The ways: the packed tarball
// (also imported with plain Node from where it was installed) and the checkout folder. Last, npm
// installs the clone as a git dependency (git+file://, no network): it must build and import.
// Exits non-zero with a message on the first failure, after cleaning up.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { startMockModel } from "./lib/mock-model.mjs"
import { hasTmux, screenText, sidebarBlock, startTui, todoConversation } from "./lib/tui.mjs"
import { sleep } from "./lib/wait.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const started = Date.now()
const secs = (ms) => `${(ms / 1000).toFixed(1)}s`
const since = () => secs(Date.now() - started)
const work = mkdtempSync(join(tmpdir(), "octodo-publish-"))

function fail(message, detail = "") {
  const error = new Error(message)
  error.detail = detail
  throw error
}

/** Runs a command with a hard timeout; returns stdout or fails with its output. */
function run(step, cmd, args, { cwd = root, timeoutMs = 180_000, env = cleanEnv() } = {}) {
  const t0 = Date.now()
  const r = spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout: timeoutMs, killSignal: "SIGKILL" })
  if (r.error || r.status !== 0) {
    const why = r.error ? r.error.message : `exit ${r.status}${r.signal ? ` (${r.signal})` : ""}`
    fail(`${step} failed: ${cmd} ${args.join(" ")}: ${why}`, `${r.stdout ?? ""}\n${r.stderr ?? ""}`.trim())
  }
  console.log(`  ok   ${step} (${secs(Date.now() - t0)})`)
  return r.stdout
}

/**
 * This environment without the variables `npm run` sets that describe this checkout (its package,
 * its script, its folder). The user's npm config stays in force (npm_config_globalconfig, cafile,
 * userconfig, proxies, NODE_EXTRA_CA_CERTS): npm here must work as it does for them.
 */
function cleanEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) => !/^npm_(?:package_|lifecycle_|config_local_prefix$)|^INIT_CWD$/i.test(k),
    ),
  )
}

/**
 * Starts the real TUI in a sandbox whose config `setUp(dirs, env)` writes, and checks that the
 * host loaded both entries: the todo tool reaches the model, and the sidebar renders the list.
 */
async function bothEntriesLoad(way, setUp) {
  const t0 = Date.now()
  const model = await startMockModel({ decide: todoConversation() })
  let tui
  try {
    tui = await startTui({
      modelUrl: model.url,
      serverPlugins: [],
      tuiPlugins: [],
      env: { OPENCODE_TODO_REMINDERS: "false" },
      prepare: setUp,
    })
    await tui.waitReady({ timeoutMs: 240_000 })
    await tui.submit("Plan the work and start on it.")
    const deadline = Date.now() + 240_000
    while (model.mainRequests().length === 0 && Date.now() < deadline && !tui.paneDead()) await sleep(250)
    const firstMain = model.mainRequests()[0]
    if (!firstMain) fail(`${way}: the model received no request`, screenText(tui.capture()))
    const tools = (firstMain.body.tools ?? []).map((t) => t.function?.name)
    if (!tools.includes("todo")) {
      fail(
        `${way}: the todo tool did not reach the model: the host did not load the server entry`,
        tools.join(", "),
      )
    }
    const screen = await tui
      .waitFor(
        (s) => {
          const block = sidebarBlock(tui.sidebar(s), "Todo")
          return Boolean(block && /1\/5 done/.test(block.lines[0] ?? ""))
        },
        { timeoutMs: 180_000 },
      )
      .catch((error) =>
        fail(`${way}: the sidebar did not show the list (TUI entry not loaded)`, error.message),
      )
    const block = sidebarBlock(tui.sidebar(screen), "Todo")
    console.log(`  ok   ${way}: both entries loaded, tool and sidebar work (${secs(Date.now() - t0)})`)
    for (const line of block.lines) console.log(`       | ${line}`)
  } finally {
    try {
      await tui?.stop()
    } catch {}
    try {
      await model.close()
    } catch {}
  }
}

/** Plain Node, in the folder npm installed into, imports the server entry and finds server(). */
function importServerEntry(file, cwd) {
  const probe = `import(${JSON.stringify(file)}).then((m) => {
    const d = m.default
    if (!d || typeof d.server !== "function") throw new Error("default export has no server()")
    console.log(JSON.stringify({ id: d.id, exports: Object.keys(m), server: typeof d.server }))
  })`
  const imported = run("node imports dist/server.mjs from the install", process.execPath, ["-e", probe], {
    cwd,
    timeoutMs: 60_000,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
  })
  console.log(`       ${imported.trim()}`)
}

/**
 * `npm run install-plugin -- <args>` of the clone, writing the sandbox's config and data folders:
 * the user's environment (so npm runs under their own npm config) with only the two folders
 * install-plugin writes moved into the sandbox.
 */
function installPlugin(clone, args, sandbox) {
  return run(
    `install-plugin ${args.join(" ")}`.trim(),
    process.execPath,
    [join(clone, "scripts", "install-plugin.mjs"), ...args],
    {
      cwd: clone,
      env: {
        ...cleanEnv(),
        XDG_CONFIG_HOME: sandbox.XDG_CONFIG_HOME,
        XDG_DATA_HOME: sandbox.XDG_DATA_HOME,
        INIT_CWD: work,
      },
      timeoutMs: 300_000,
    },
  )
}

let code = 0
try {
  if (!hasTmux()) fail("tmux is not installed (apt-get install -y tmux)")
  const sha = run("git rev-parse HEAD", "git", ["rev-parse", "HEAD"]).trim()
  if (run("git status", "git", ["status", "--porcelain", "--untracked-files=no"]).trim()) {
    console.log(
      `       note: uncommitted changes are not part of this check (it packs commit ${sha.slice(0, 12)})`,
    )
  }

  // A fresh clone of the commit under test: committed files only, no dist/. Its node_modules is this
  // checkout's (what `npm ci` would install there), so packing it runs the same build tools.
  const clone = join(work, "opencode-todo")
  run("git clone", "git", ["clone", "--quiet", "--no-checkout", root, clone])
  run(`git checkout ${sha.slice(0, 12)}`, "git", ["-C", clone, "checkout", "--quiet", "--detach", sha])
  if (existsSync(join(clone, "dist"))) fail("the clone has a dist/ folder: build output is committed")
  symlinkSync(join(root, "node_modules"), join(clone, "node_modules"), "dir")

  // As a tool would run it: the build (`prepare`) prints to stderr, so stdout is npm's JSON alone.
  const packOut = run(
    "npm pack --json (fresh clone, no build before)",
    "npm",
    ["pack", "--json", "--pack-destination", work],
    { cwd: clone, timeoutMs: 300_000 },
  )
  let packed
  try {
    packed = JSON.parse(packOut)
  } catch {
    fail("npm pack --json printed more than npm's JSON on stdout", packOut.slice(0, 2000))
  }
  const info = packed[0]
  const files = info.files.map((f) => f.path)
  for (const wanted of [
    "package.json",
    "dist/server.mjs",
    "dist/tui.mjs",
    "skills/todo-discipline/SKILL.md",
  ]) {
    if (!files.includes(wanted)) fail(`the tarball lacks ${wanted}`, files.join("\n"))
  }
  const stray = files.filter((f) => /^(src|test|scripts|bench|\.tmp)\//.test(f))
  if (stray.length > 0) fail("the tarball ships development files", stray.join("\n"))
  const tarball = join(work, info.filename)
  console.log(`       ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(1)} kB packed`)
  console.log(`       ${files.join(", ")}`)

  // Way 1: the tarball. install-plugin npm-installs it into the sandbox's data folder.
  await bothEntriesLoad("tarball via install-plugin", (dirs, env) => {
    installPlugin(clone, [tarball], env)
    const installed = join(
      dirs.xdgData,
      "opencode-todo",
      info.filename.replace(/\.tgz$/, ""),
      "node_modules",
      "opencode-todo",
    )
    importServerEntry(join(installed, "dist", "server.mjs"), dirname(dirname(installed)))
  })

  // Way 2: the checkout itself (install-plugin builds it and lists its folder).
  await bothEntriesLoad("checkout via install-plugin", (_dirs, env) => installPlugin(clone, [], env))

  // Way 3: a git dependency, from a git+file:// URL of the clone (no network). npm clones it, runs
  // `prepare` (the build) and installs it as node_modules/opencode-todo: the layout way 1 loaded in
  // the TUI, so plain Node importing the server entry is the check left.
  const gitApp = join(work, "git-app")
  mkdirSync(gitApp)
  writeFileSync(join(gitApp, "package.json"), `${JSON.stringify({ private: true }, null, 2)}\n`)
  run(
    `npm install git+file://…#${sha.slice(0, 12)}`,
    "npm",
    ["install", `git+file://${clone}#${sha}`, "--prefer-offline", "--no-audit", "--no-fund"],
    { cwd: gitApp, timeoutMs: 600_000 },
  )
  const fromGit = join(gitApp, "node_modules", "opencode-todo")
  for (const f of ["dist/server.mjs", "dist/tui.mjs"]) {
    if (!existsSync(join(fromGit, f))) fail(`the git install lacks ${f}: prepare did not build`)
  }
  importServerEntry(join(fromGit, "dist", "server.mjs"), gitApp)
} catch (error) {
  code = 1
  console.error(`  FAIL ${error.message}`)
  if (error.detail) console.error(String(error.detail).split("\n").slice(-40).join("\n"))
} finally {
  rmSync(work, { recursive: true, force: true })
}
console.log(`\npublish-probe: ${code === 0 ? "passed" : "FAILED"} (${since()})`)
process.exit(code)
