#!/usr/bin/env node
// Checks the package as users get it, from a fresh clone of the commit under test with no build
// run before: `npm pack` there must build and ship both entries. Then, for each install way the
// README documents, `npm run install-plugin` (the clone's own) writes the sandbox's config, and each
// real host must load both entries against a scripted model. OpenCode 1.18.33, in its TUI (tmux):
// the `todo` tool reaches the model (server entry) and the sidebar shows the list (TUI entry).
// OpenCode 2.0.15: install-plugin's own check passes (it boots the host and reads its plugin list);
// the host's `opencode serve` lists the plugin active from the folder install-plugin wrote, has
// `/todo`, and offers the model `todo`; its TUI, attached to that server, runs the TUI entry's setup
// (read from the TUI's own log). The ways: the packed tarball (also imported with plain Node from
// where it was installed) and the checkout folder. Last, npm installs the clone as a git dependency
// (git+file://, no network): it must build and import. `--host=1` or `--host=2` checks one host only.
// Exits non-zero with a message on the first failure, after cleaning up.
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { QUIET_ENV } from "./lib/host.mjs"
import { HOST2_VERSION, hasHost2, OPENCODE2_BIN, startHost2 } from "./lib/host2.mjs"
import { startMockModel } from "./lib/mock-model.mjs"
import { hasTmux, screenText, sidebarBlock, startTui, todoConversation } from "./lib/tui.mjs"
import { sleep } from "./lib/wait.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const hostArg = process.argv.slice(2).find((a) => a.startsWith("--host="))
const unknown = process.argv.slice(2).filter((a) => a !== hostArg)
if (unknown.length > 0 || (hostArg && !["--host=1", "--host=2"].includes(hostArg))) {
  console.error("usage: node scripts/publish-probe.mjs [--host=1 | --host=2]  (default: both hosts)")
  process.exit(2)
}
const hosts = hostArg ? [hostArg.slice("--host=".length)] : ["1", "2"]
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

/**
 * OpenCode 2.0.15: `setUp(dirs, env)` runs install-plugin into the sandbox of a real `opencode serve`
 * before it boots (it returns install-plugin's output). Checks, in order: install-plugin's own check
 * passed; the server lists the plugin active from the folder install-plugin wrote, with `/todo`; the
 * model is offered `todo` on a turn; the 2.0.15 TUI attached to that server runs the TUI entry's setup.
 */
async function bothEntriesLoad2(way, setUp) {
  const t0 = Date.now()
  const model = await startMockModel({ decide: todoConversation() })
  let host
  let tui
  try {
    let installed = ""
    host = await startHost2({
      modelUrl: model.url,
      plugins: [],
      env: { OPENCODE_TODO_REMINDERS: "false" },
      prepare: (dirs) => {
        installed = setUp(dirs, host2InstallEnv(dirs))
      },
    })
    const checked = /^install-plugin: checked: .*$/m.exec(installed)?.[0]
    if (!checked) fail(`${way}: install-plugin did not check that OpenCode 2 lists the plugin`, installed)
    console.log(`       ${checked}`)
    const folder = join(host.dirs.config, "plugins", "opencode-todo")
    let ours
    const deadline = Date.now() + 60_000
    while (!ours && Date.now() < deadline) {
      ours = (await host.plugins()).find((p) => p.id === "opencode-todo")
      if (!ours) await sleep(300)
    }
    if (ours?.state?.status !== "active" || dirname(ours.source?.path ?? "") !== folder)
      fail(`${way}: the host does not list opencode-todo active from ${folder}`, JSON.stringify(ours))
    if (!ours.features?.tui) fail(`${way}: the host found no TUI entry in ${folder}`, JSON.stringify(ours))
    if (!(await host.commands()).some((c) => c.name === "todo")) fail(`${way}: /todo is not registered`)
    const session = await host.createSession()
    await host.turn(session.id, "Plan the work and start on it.", { settle: false })
    const tools = (model.mainRequests()[0]?.body.tools ?? []).map((t) => t.function?.name)
    if (!tools.includes("todo"))
      fail(
        `${way}: the todo tool did not reach the model: the host did not load the server entry`,
        tools.join(", "),
      )
    tui = await startTui({ host2: host, args: ["--print-logs", "--log-level", "debug"] })
    await tui.waitReady({ timeoutMs: 120_000 })
    const setUpLine = (state) =>
      new RegExp(`message="plugin operation ${state}".* stage=setup .*plugin=opencode-todo `)
    const tuiDeadline = Date.now() + 60_000
    let log = ""
    for (;;) {
      log = existsSync(tui.stderrFile) ? readFileSync(tui.stderrFile, "utf8") : ""
      if (setUpLine("completed").test(log)) break
      if (setUpLine("failed").test(log) || Date.now() > tuiDeadline)
        fail(
          `${way}: the OpenCode 2 TUI did not run the TUI entry's setup`,
          log
            .split("\n")
            .filter((l) => /opencode-todo/.test(l))
            .join("\n"),
        )
      await sleep(250)
    }
    console.log(
      `  ok   ${way}: both entries loaded on ${HOST2_VERSION} (listed active, /todo, the todo tool, the TUI's setup) (${secs(Date.now() - t0)})`,
    )
  } finally {
    for (const stop of [() => tui?.stop(), () => host?.stop(), () => model.close()]) {
      try {
        await stop()
      } catch {}
    }
  }
}

/**
 * install-plugin's environment for OpenCode 2: the user's (npm runs under their npm config, their
 * userconfig named since HOME moves), with OpenCode's folders in the sandbox and the 2.0.15 binary
 * first on PATH, so the check it makes boots that host there and nowhere else.
 */
function host2InstallEnv(dirs) {
  const user = cleanEnv()
  return {
    ...user,
    ...QUIET_ENV,
    npm_config_userconfig: user.npm_config_userconfig ?? join(user.HOME ?? "", ".npmrc"),
    npm_config_cache: user.npm_config_cache ?? join(user.HOME ?? "", ".npm"),
    HOME: dirs.home,
    XDG_CONFIG_HOME: dirs.xdgConfig,
    XDG_DATA_HOME: dirs.xdgData,
    XDG_CACHE_HOME: dirs.xdgCache,
    XDG_STATE_HOME: dirs.xdgState,
    PATH: `${dirname(OPENCODE2_BIN)}:${user.PATH ?? ""}`,
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

/** The same for OpenCode 2, in the environment host2InstallEnv() made, from the host's project folder. */
function installPlugin2(clone, args, env, dirs) {
  return run(
    `install-plugin --host=2 ${args.join(" ")}`.trim(),
    process.execPath,
    [join(clone, "scripts", "install-plugin.mjs"), "--host=2", ...args],
    { cwd: clone, env: { ...env, INIT_CWD: dirs.project }, timeoutMs: 300_000 },
  )
}

let code = 0
try {
  if (!hasTmux()) fail("tmux is not installed (apt-get install -y tmux)")
  if (hosts.includes("2") && !hasHost2())
    fail(`OpenCode ${HOST2_VERSION} is not in node_modules (npm ci on linux-x64), or run with --host=1`)
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

  const installedIn = (dirs) =>
    join(dirs.xdgData, "opencode-todo", info.filename.replace(/\.tgz$/, ""), "node_modules", "opencode-todo")
  if (hosts.includes("1")) {
    console.log("       OpenCode 1.18.33")
    // Way 1: the tarball. install-plugin npm-installs it into the sandbox's data folder.
    await bothEntriesLoad("tarball via install-plugin", (dirs, env) => {
      installPlugin(clone, [tarball], env)
      const installed = installedIn(dirs)
      importServerEntry(join(installed, "dist", "server.mjs"), dirname(dirname(installed)))
    })

    // Way 2: the checkout itself (install-plugin builds it and lists its folder).
    await bothEntriesLoad("checkout via install-plugin", (_dirs, env) => installPlugin(clone, [], env))
  }
  if (hosts.includes("2")) {
    console.log(`       OpenCode ${HOST2_VERSION}`)
    // The same two ways: install-plugin writes the host's plugin folder, loading the tarball's install
    // folder or the checkout.
    await bothEntriesLoad2("tarball via install-plugin --host=2", (dirs, env) => {
      const out = installPlugin2(clone, [tarball], env, dirs)
      const installed = installedIn(dirs)
      importServerEntry(join(installed, "dist", "server.mjs"), dirname(dirname(installed)))
      return out
    })
    await bothEntriesLoad2("checkout via install-plugin --host=2", (dirs, env) =>
      installPlugin2(clone, [], env, dirs),
    )
  }

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
