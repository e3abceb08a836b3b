#!/usr/bin/env node
// `npm run install-plugin`: lists this package in the user's OpenCode config with both entries (the
// server plugin in opencode.json, the TUI plugin in tui.json), pointing at this checkout (built
// first), at a tarball, or at any other spec OpenCode accepts. Global config by default, the
// project's with --project. Other entries stay as they are, the plugin is never listed twice,
// comments are kept, and a file it cannot read is refused with nothing changed anywhere.
// --dry-run shows the plan; --uninstall removes every entry of this package, and the install folder
// it made for a tarball once neither scope lists it. The edits are pure functions in
// lib/plugin-config.mjs.
// OpenCode 2 (found as `opencode --version` 2.x on PATH, or chosen with --host=2) reads neither file's
// `plugin` list: there the script writes a plugin folder the host discovers, plugins/opencode-todo/ in
// the config folder, whose package.json, server.js and tui.js load this package's two built entries
// (docs/opencode-2.md), then boots that OpenCode privately to check that it lists the plugin; its
// --uninstall removes those files and the folder, and the tarball install folder they loaded once no
// config file lists it and no other plugin folder loads it, as on 1.x.
import { spawnSync } from "node:child_process"
import {
  accessSync,
  chmodSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs"
import { homedir } from "node:os"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { npmFailureSentence, npmLogPath } from "./lib/npm-failure.mjs"
import { editPluginList, isOurSpec, listedSpecs, PACKAGE_NAME } from "./lib/plugin-config.mjs"
import { judgeListing, loadedPlugins } from "./lib/plugin-listing.mjs"

const checkoutDir = resolve(dirname(fileURLToPath(import.meta.url)), "..")
// `npm run` starts scripts in the package folder; relative paths mean the caller's folder.
const callerDir = process.env.INIT_CWD || process.cwd()

const USAGE = `usage: npm run install-plugin -- [options] [tarball | folder | spec]

Adds ${PACKAGE_NAME} to OpenCode's config: the server plugin to opencode.json(c) and the TUI plugin
(sidebar, /todo dialog) to tui.json(c). With no argument both point at this checkout, built first.

  tarball        a .tgz from \`npm pack\`: npm installs it into a folder of its own under
                 $XDG_DATA_HOME/opencode-todo/ (default ~/.local/share), and both entries point there
  folder         a built package folder (written as its absolute path)
  spec           anything else OpenCode accepts, written as given (an npm name, a git URL)
  --project[=DIR]  the project's config (DIR, default the current folder) instead of the global one
  --dry-run      print what would change, change nothing
  --uninstall    remove every ${PACKAGE_NAME} entry instead
  --no-build     do not run \`npm run build\` before pointing at this checkout
  --host=1|2     the OpenCode to install for (default: the \`opencode\` on PATH; 1.x when none is found).
                 OpenCode 2 gets a plugin folder it discovers, plugins/${PACKAGE_NAME}/ in the config
                 folder (package.json, server.js and tui.js loading the built entries), instead of
                 config-file entries; then the script boots that OpenCode privately and checks that
                 it lists the plugin
  --no-check     OpenCode 2: do not boot it to check
`

function parseArgs(argv) {
  // Flags given without `--` reach npm instead, which passes them on as npm_config_* variables.
  const npmFlag = (name) => process.env[`npm_config_${name}`] === "true"
  const opts = {
    dryRun: npmFlag("dry_run"),
    uninstall: npmFlag("uninstall"),
    build: true,
    project: npmFlag("project") ? callerDir : undefined,
    target: undefined,
    host: undefined,
    check: true,
  }
  for (const arg of argv) {
    if (arg === "--dry-run") opts.dryRun = true
    else if (arg === "--uninstall") opts.uninstall = true
    else if (arg === "--no-build") opts.build = false
    else if (arg === "--no-check") opts.check = false
    else if (arg === "--project") opts.project = callerDir
    else if (arg.startsWith("--project=")) opts.project = resolve(callerDir, arg.slice("--project=".length))
    else if (arg === "--host=1" || arg === "--host=2") opts.host = arg.slice("--host=".length)
    else if (arg === "--help" || arg === "-h") opts.help = true
    else if (arg.startsWith("-")) return { error: `unknown option ${JSON.stringify(arg)}` }
    else if (opts.target !== undefined) return { error: "give at most one tarball, folder or spec" }
    else opts.target = arg
  }
  return opts
}

/** Where OpenCode reads its global config: $XDG_CONFIG_HOME/opencode, else ~/.config/opencode. */
function globalDir() {
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "opencode")
}

/** The project's root as OpenCode sees it: the git worktree holding `dir`, else `dir` itself. */
function projectRoot(dir) {
  const r = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, encoding: "utf8" })
  return r.status === 0 && r.stdout.trim() ? r.stdout.trim() : dir
}

/**
 * Config files of one scope that OpenCode reads, per entry kind, in the order this script prefers
 * them; the last one is created when none exists.
 */
function scopeFiles(project) {
  if (project === undefined) {
    const g = globalDir()
    return {
      opencode: [join(g, "opencode.jsonc"), join(g, "config.json"), join(g, "opencode.json")],
      tui: [join(g, "tui.jsonc"), join(g, "tui.json")],
    }
  }
  const root = projectRoot(project)
  const files = (name) => [
    join(root, `${name}.jsonc`),
    join(root, ".opencode", `${name}.jsonc`),
    join(root, ".opencode", `${name}.json`),
    join(root, `${name}.json`),
  ]
  return { opencode: files("opencode"), tui: files("tui") }
}

function fail(message) {
  process.stderr.write(`install-plugin: ${message}\n`)
  process.exit(1)
}

/** The folder holding every tarball install: $XDG_DATA_HOME/opencode-todo. */
function unpackRoot() {
  return join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), PACKAGE_NAME)
}

/** Where a tarball is unpacked: a folder per tarball name under unpackRoot(). */
function unpackDir(tarball) {
  return join(unpackRoot(), basename(tarball).replace(/\.(?:tgz|tar\.gz)$/, ""))
}

// The package.json unpack() writes: a tarball folder holding exactly this one is this script's own.
const UNPACK_MANIFEST = `${JSON.stringify({ private: true }, null, 2)}\n`

/** The tarball install folder a spec points into, when this script made it; else undefined. */
function ownUnpackDir(spec) {
  const dir = dirname(dirname(spec))
  if (spec !== join(dir, "node_modules", PACKAGE_NAME) || dirname(dir) !== unpackRoot()) return undefined
  return readText(join(dir, "package.json")) === UNPACK_MANIFEST ? dir : undefined
}

/**
 * Deletes each tarball install folder this script made among `specs` (the package folders entries pointed at),
 * unless `holder(dir)` names a file that still lists or loads it; then the install root, once empty.
 */
function dropUnpackDirs(specs, { dryRun, holder }) {
  const dirs = new Set(specs.map(ownUnpackDir).filter((d) => d !== undefined))
  for (const dir of dirs) {
    const held = holder(dir)
    if (held) {
      process.stdout.write(`  kept ${dir}: ${held.file} still ${held.verb} it\n`)
      continue
    }
    process.stdout.write(`  ${dryRun ? "would delete" : "deleted"} ${dir} (the tarball's install folder)\n`)
    if (!dryRun) rmSync(dir, { recursive: true, force: true })
  }
  try {
    if (!dryRun && dirs.size > 0 && readdirSync(unpackRoot()).length === 0)
      rmSync(unpackRoot(), { recursive: true })
  } catch {}
}

/** The first of the 1.x config `files` that lists the package in install folder `dir`: { file, verb }. */
function configLister(files, dir) {
  const spec = join(dir, "node_modules", PACKAGE_NAME)
  const file = files.find((f) => (listedSpecs(readText(f)) ?? []).includes(spec))
  return file === undefined ? undefined : { file, verb: "lists" }
}

/** A file of OpenCode 2 plugin folder `folder` that loads the package in install folder `dir`: { file, verb }. */
function v2Loader(folder, dir) {
  const spec = join(dir, "node_modules", PACKAGE_NAME)
  const file = V2_LOADERS.map((f) => join(folder, f)).find((f) => v2LoadedSpec(f) === spec)
  return file === undefined ? undefined : { file, verb: "loads" }
}

/** The package folder a plugin-folder file this script wrote loads (its import, less `dist/<entry>`); else undefined. */
function v2LoadedSpec(file) {
  const text = readText(file)
  if (text === undefined || !text.startsWith(V2_MARK)) return undefined
  const url = /from ("[^"\n]*")/.exec(text)?.[1]
  try {
    return dirname(dirname(fileURLToPath(JSON.parse(url))))
  } catch {
    return undefined
  }
}

/**
 * The spec to write, from the argument (or this checkout): { spec, checkout } or, for a tarball,
 * { spec, tarball, dir }. OpenCode 1.18.33 reads a bare tarball path as a module file to import, and
 * from a `file:` tarball spec it loads the server entry but not the TUI one (which cannot resolve
 * `@opentui/solid` from the host's install folder); a folder works for both, so a tarball is
 * installed into one first.
 */
function targetSpec(target) {
  if (target === undefined) return { spec: checkoutDir, checkout: true }
  const arg = target.trim()
  if (arg === "" || /[\u0000-\u001f\u007f]/.test(arg)) fail(`${JSON.stringify(target)} is not a spec`)
  const looksLikePath = /^(?:\.|\/|~)/.test(arg) || /\.(?:tgz|tar\.gz)$/.test(arg)
  const path = resolve(callerDir, arg.replace(/^~(?=\/)/, homedir()))
  if (!existsSync(path)) {
    if (looksLikePath) fail(`${JSON.stringify(arg)} does not exist`)
    return { spec: arg, checkout: false }
  }
  const stat = statSync(path)
  // OpenCode reads a bare tarball path as a module to import; `file:` makes it install the tarball.
  if (stat.isFile() && /\.(?:tgz|tar\.gz)$/.test(path)) {
    const dir = unpackDir(path)
    return { spec: join(dir, "node_modules", PACKAGE_NAME), checkout: false, tarball: path, dir }
  }
  if (!stat.isDirectory()) fail(`${path} is neither a folder nor a .tgz tarball`)
  if (path === checkoutDir) return { spec: checkoutDir, checkout: true }
  const missing = ["dist/server.mjs", "dist/tui.mjs"].filter((f) => !existsSync(join(path, f)))
  if (missing.length > 0) fail(`${path} has no ${missing.join(" or ")}: build it there first (npm run build)`)
  return { spec: path, checkout: false }
}

/** The newest modification time (ms) of the files under `path` (a file or a folder), or 0. */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

/** Both entries exist and are newer than every source and build input: a build would change nothing. */
function distIsCurrent() {
  const built = ["dist/server.mjs", "dist/tui.mjs"].map((f) => newest(join(checkoutDir, f)))
  if (built.some((t) => t === 0)) return false
  const inputs = ["src", "package.json", "package-lock.json", "tsdown.config.ts", "tsconfig.json"]
  return Math.min(...built) >= Math.max(...inputs.map((f) => newest(join(checkoutDir, f))))
}

function build() {
  if (distIsCurrent()) {
    process.stdout.write("install-plugin: dist/ is newer than src/; not rebuilding\n")
    return
  }
  if (!existsSync(join(checkoutDir, "node_modules", ".bin", "tsdown"))) {
    fail("this checkout has no node_modules: run `npm ci` here first")
  }
  process.stdout.write("install-plugin: building this checkout (npm run build)\n")
  const r = spawnSync("npm", ["run", "build", "--silent"], { cwd: checkoutDir, stdio: "inherit" })
  if (r.status !== 0) fail("the build failed; nothing was changed")
}

/**
 * npm-installs the tarball (with its dependencies) into `dir`, replacing what was there. npm runs
 * in `dir` (its own package.json makes it the project) with the caller's environment, so every npm
 * setting the user has is in force: `--prefix` would also move npm's machine-wide config to
 * DIR/etc/npmrc and lose a `cafile` set there. A failure becomes one sentence with npm's real cause.
 */
function unpack(tarball, dir) {
  process.stdout.write(`install-plugin: npm install ${tarball} into ${dir}\n`)
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "package.json"), UNPACK_MANIFEST)
  // Without the variables of the `npm run` around this script that describe this checkout or this
  // script's own flags; npm's config (npm_config_globalconfig, cafile, userconfig…) stays.
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^npm_(?:package_|lifecycle_|config_(?:local_prefix|dry_run|uninstall|project|build)$)/i.test(k),
    ),
  )
  const args = ["install", tarball, "--no-audit", "--no-fund", "--omit=dev", "--prefer-offline"]
  const r = spawnSync("npm", args, { cwd: dir, env, encoding: "utf8", stdio: ["ignore", "inherit", "pipe"] })
  if (r.error || r.status !== 0) {
    const stderr = r.stderr ?? ""
    const logPath = npmLogPath(stderr)
    let log = ""
    try {
      if (logPath) log = readFileSync(logPath, "utf8")
    } catch {}
    fail(
      npmFailureSentence({
        what: tarball,
        stderr: stderr || (r.error?.message ?? ""),
        log,
        status: r.status,
      }),
    )
  }
  if (r.stderr) process.stderr.write(r.stderr)
  const installed = join(dir, "node_modules", PACKAGE_NAME)
  const missing = ["package.json", "dist/server.mjs", "dist/tui.mjs"].filter(
    (f) => !existsSync(join(installed, f)),
  )
  if (missing.length > 0)
    fail(`${tarball} is not a complete ${PACKAGE_NAME} package (no ${missing.join(", ")})`)
}

function readText(file) {
  try {
    return readFileSync(file, "utf8")
  } catch (error) {
    if (error.code === "ENOENT") return undefined
    fail(`cannot read ${file} (${error.code ?? error.message}); nothing was changed`)
  }
}

/**
 * The planned writes for one entry kind: the entry goes into the first file that already lists
 * this package (re-pointed there), or else into the first existing file, or a new one; every other
 * file loses its entries of this package. Returns { writes, refusals, notes }.
 */
function planKind(kind, files, { spec, uninstall }) {
  const texts = files.map((file) => ({ file, text: readText(file) }))
  const isOurs = (file) => (s) => s === spec || isOurSpec(s, { checkoutDir, configDir: dirname(file) })
  const holders = texts.filter(({ file, text }) => (listedSpecs(text) ?? []).some(isOurs(file)))
  const home = uninstall ? undefined : (holders[0] ?? texts.find((t) => t.text !== undefined) ?? texts.at(-1))
  const plans = []
  for (const entry of texts) {
    const { file, text } = entry
    if (text === undefined && entry !== home) continue
    const result = editPluginList(text, {
      spec: entry === home ? spec : undefined,
      isOurs: isOurs(file),
      kind,
    })
    plans.push({ kind, file, before: text, ...result })
  }
  return plans
}

/** One change in words: done ("removed …"), or planned in a dry run ("would remove …"). */
function describe(change, dryRun) {
  const verb = {
    added: ["added", "would add"],
    removed: ["removed", "would remove"],
    replaced: ["replaced", "would replace"],
    kept: ["already lists", "already lists"],
  }[change.action][dryRun ? 1 : 0]
  const tail = change.action === "replaced" ? ` with ${JSON.stringify(change.with)}` : ""
  return `${verb} ${JSON.stringify(change.spec)}${tail}`
}

/**
 * Write through symlinks, atomically: a temporary file beside the real one, then rename. The new file
 * keeps the old one's mode and owner (a config holding API keys stays private); where the owner cannot
 * be given to the temporary file, the old file is written in place instead, which keeps both.
 */
function writeConfig(file, text) {
  const real = existsSync(file) ? realpathSync(file) : file
  mkdirSync(dirname(real), { recursive: true })
  const old = existsSync(real) ? statSync(real) : undefined
  const tmp = `${real}.install-plugin-${process.pid}.tmp`
  writeFileSync(tmp, text, old ? { mode: old.mode & 0o7777 } : {})
  try {
    if (old) {
      // The umask narrowed the mode given at creation: set it exactly.
      chmodSync(tmp, old.mode & 0o7777)
      const st = statSync(tmp)
      if (st.uid !== old.uid || st.gid !== old.gid) chownSync(tmp, old.uid, old.gid)
    }
  } catch {
    rmSync(tmp, { force: true })
    writeFileSync(real, text)
    return
  }
  renameSync(tmp, real)
}

/**
 * The user's OpenCode: the first `opencode` on PATH without any node_modules/.bin (`npm run` puts
 * this checkout's own, with its pinned 1.18.33 dev binary, there; a project's local install is not the
 * user's OpenCode either), and the version its `--version` prints: { bin, version, major }, or undefined.
 */
function findOpencode() {
  const dirs = (process.env.PATH ?? "")
    .split(":")
    .filter((dir) => dir !== "" && !/[\\/]node_modules[\\/]\.bin[\\/]?$/.test(dir))
  const bin = dirs
    .map((dir) => join(resolve(dir), "opencode"))
    .find((f) => {
      try {
        accessSync(f, constants.X_OK)
        return statSync(f).isFile()
      } catch {
        return false
      }
    })
  if (bin === undefined) return undefined
  const r = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 10_000 })
  const version = r.status === 0 ? /(\d+)\.(\d+)\.(\d+)/.exec(r.stdout ?? "") : null
  return version ? { bin, version: version[0], major: Number(version[1]) } : undefined
}

/** Which OpenCode this installs for: --host, else the major version of findOpencode()'s. { host: "1" | "2", why }. */
function detectHost(chosen, found) {
  if (chosen) return { host: chosen, why: `--host=${chosen}` }
  if (!found)
    return {
      host: "1",
      why: "no `opencode` on PATH (the project's own node_modules copy is not yours): writing the 1.x config; --host=2 for OpenCode 2",
    }
  return {
    host: found.major >= 2 ? "2" : "1",
    why: `found OpenCode ${found.version} (\`opencode --version\`)`,
  }
}

const V2_MARK = `// Written by ${PACKAGE_NAME}'s install-plugin: loads the package's built entry.`

// The plugin folder's files. OpenCode 2.0.15 takes every folder under plugins/ and loads `<folder>/server`
// (else `<folder>/index`) and `<folder>/tui`, any script extension; OpenCode 2's source takes a folder only
// when package.json names a `main` (or `exports`, `module`) or it has index.ts/index.js. This layout is
// found by both. The package.json is constant, so one this script did not write differs from it.
const V2_MANIFEST = `${JSON.stringify(
  {
    private: true,
    description: `Written by ${PACKAGE_NAME}'s install-plugin for OpenCode 2; \`npm run install-plugin -- --uninstall\` removes it.`,
    type: "module",
    main: "server.js",
  },
  null,
  2,
)}\n`
const V2_ENTRIES = { "server.js": "dist/server.mjs", "tui.js": "dist/tui.mjs" }
// What earlier versions of this script wrote (no package.json): replaced on install, removed on uninstall.
const V2_LEGACY = ["index.mjs", "tui.mjs"]
/** The files of a plugin folder that load a package folder (for the tarball install folder's holders). */
const V2_LOADERS = [...Object.keys(V2_ENTRIES), ...V2_LEGACY]

/** The local plugin folder OpenCode 2 loads: plugins/<name>/ in the chosen config folder. */
function v2PluginDir(project) {
  const base = project === undefined ? globalDir() : join(projectRoot(project), ".opencode")
  return join(base, "plugins", PACKAGE_NAME)
}

/** Is `name` in the plugin folder, holding `text`, a file this script wrote? */
function v2Ours(name, text) {
  return name === "package.json" ? text === V2_MANIFEST : text.startsWith(V2_MARK)
}

/**
 * OpenCode 2: writes (or, uninstalling, removes) the plugin folder's package.json, server.js and tui.js,
 * the two scripts each re-exporting one built entry of the package at `spec` (a folder). A folder
 * holding a file of those names (or of the legacy ones) that this script did not write is left alone.
 * Returns the folder.
 */
function installV2(spec, { project, uninstall, dryRun }) {
  const dir = v2PluginDir(project)
  const names = ["package.json", ...V2_LOADERS]
  const foreign = names.filter((f) => {
    const text = readText(join(dir, f))
    return text !== undefined && !v2Ours(f, text)
  })
  if (foreign.length > 0)
    fail(
      `${dir} holds ${foreign.join(" and ")} not written by this script; remove them first. Nothing was changed`,
    )
  const scope = project === undefined ? "global config" : `project config (${projectRoot(project)})`
  const present = names.filter((f) => existsSync(join(dir, f)))
  if (uninstall) {
    process.stdout.write(
      `install-plugin: OpenCode 2: removing ${dir}, ${scope}${dryRun ? " (dry run)" : ""}\n`,
    )
    // The tarball install folders these files load, read before the files go.
    const loaded = V2_LOADERS.flatMap((f) => v2LoadedSpec(join(dir, f)) ?? [])
    for (const f of present)
      process.stdout.write(`  ${dryRun ? "would delete" : "deleted"} ${join(dir, f)}\n`)
    if (present.length === 0) process.stdout.write(`  no ${PACKAGE_NAME} plugin folder found\n`)
    if (!dryRun) {
      for (const f of present) rmSync(join(dir, f), { force: true })
      try {
        if (readdirSync(dir).length === 0) rmSync(dir, { recursive: true })
      } catch {}
    }
    const other = v2PluginDir(project === undefined ? callerDir : undefined)
    const configs = [scopeFiles(undefined), scopeFiles(callerDir)].flatMap((s) => [...s.opencode, ...s.tui])
    dropUnpackDirs(loaded, { dryRun, holder: (d) => v2Loader(other, d) ?? configLister(configs, d) })
    return dir
  }
  if (typeof spec !== "string" || !existsSync(spec))
    fail(
      `OpenCode 2 loads a local folder: give a built package folder or a tarball, not ${JSON.stringify(spec)}; for a published package list it under "plugins" in opencode.json instead (docs/opencode-2.md)`,
    )
  process.stdout.write(
    `install-plugin: OpenCode 2: ${PACKAGE_NAME} -> ${JSON.stringify(spec)}, ${scope}${dryRun ? " (dry run: nothing is written)" : ""}\n`,
  )
  const texts = {
    "package.json": V2_MANIFEST,
    ...Object.fromEntries(
      Object.entries(V2_ENTRIES).map(([file, entry]) => [
        file,
        `${V2_MARK}\nexport { default } from ${JSON.stringify(pathToFileURL(join(spec, entry)).href)}\n`,
      ]),
    ),
  }
  for (const [file, text] of Object.entries(texts)) {
    const path = join(dir, file)
    const same = readText(path) === text
    const label = { "package.json": "folder", "server.js": "server", "tui.js": "tui   " }[file]
    process.stdout.write(
      `  ${label}  ${path}: ${same ? "already there" : dryRun ? "would write" : "written"}\n`,
    )
    if (!dryRun && !same) writeConfig(path, text)
  }
  for (const file of V2_LEGACY.filter((f) => present.includes(f))) {
    process.stdout.write(
      `  ${dryRun ? "would delete" : "deleted"} ${join(dir, file)} (an earlier version's)\n`,
    )
    if (!dryRun) rmSync(join(dir, file), { force: true })
  }
  return dir
}

/**
 * Boots the user's OpenCode 2 privately in the folder it would start in and checks that it lists
 * the plugin from `dir`, active, and registered `/todo`; exits non-zero when it does not. Without an
 * OpenCode 2 on PATH there is nothing to ask: it says so.
 */
async function checkV2(dir, { project, found }) {
  if (!found || found.major < 2) {
    process.stdout.write(
      `install-plugin: not checked: no OpenCode 2 on PATH${found ? ` (found ${found.version})` : ""}; start OpenCode 2 and look for ${PACKAGE_NAME} under /plugins\n`,
    )
    return
  }
  process.stdout.write(
    `install-plugin: checking: booting OpenCode ${found.version} privately to read its plugin list\n`,
  )
  const timeoutMs = Number(process.env.OPENCODE_TODO_CHECK_TIMEOUT_MS) || 90_000
  const cwd = project === undefined ? callerDir : projectRoot(project)
  const listing = await loadedPlugins({ bin: found.bin, cwd, env: process.env, id: PACKAGE_NAME, timeoutMs })
  const host = `OpenCode ${found.version}`
  if (listing.error)
    fail(
      `${host} ${listing.error.replace(/^`[^`]*` /, "")}, so the install is unchecked; run \`${found.bin} serve --print-logs\` to see why`,
    )
  const verdict = judgeListing(listing, { folder: dir, id: PACKAGE_NAME, command: "todo" })
  if (!verdict.ok) fail(`${host} ${verdict.reason}; the files are written, see docs/opencode-2.md (Install)`)
  const halves = verdict.entry.features?.tui
    ? "server and TUI entries"
    : "server entry only: its TUI will not find tui.js"
  const where = verdict.entry.source.path
  if (!verdict.command)
    fail(
      `${host} lists ${PACKAGE_NAME} from ${where} but /todo is not registered: its setup did not finish; run \`${found.bin} serve --print-logs\` to see why`,
    )
  process.stdout.write(
    `install-plugin: checked: ${host} lists ${PACKAGE_NAME} (active, ${halves}) from ${where}, and /todo is registered\n`,
  )
}

const opts = parseArgs(process.argv.slice(2))
if (opts.error) {
  process.stderr.write(`install-plugin: ${opts.error}\n\n${USAGE}`)
  process.exit(2)
}
if (opts.help) {
  process.stdout.write(USAGE)
  process.exit(0)
}

const target = opts.uninstall && opts.target === undefined ? { spec: undefined } : targetSpec(opts.target)
const { spec, checkout } = target
const found = findOpencode()
const detected = detectHost(opts.host, found)
process.stdout.write(`install-plugin: ${detected.why}\n`)
if (detected.host === "2") {
  if (checkout && !opts.uninstall && !opts.dryRun && opts.build) build()
  if (target.tarball && !opts.uninstall && !opts.dryRun) unpack(target.tarball, target.dir)
  const dir = installV2(spec, { project: opts.project, uninstall: opts.uninstall, dryRun: opts.dryRun })
  if (!opts.uninstall && !opts.dryRun) {
    if (opts.check) await checkV2(dir, { project: opts.project, found })
    else process.stdout.write("install-plugin: not checked (--no-check)\n")
    process.stdout.write("Restart OpenCode to pick up the change.\n")
  }
  process.exit(0)
}
const files = scopeFiles(opts.project)
const plans = [
  ...planKind("opencode", files.opencode, { spec, uninstall: opts.uninstall }),
  ...planKind("tui", files.tui, { spec, uninstall: opts.uninstall }),
]
const refused = plans.filter((p) => !p.ok)
if (refused.length > 0) {
  for (const p of refused) process.stderr.write(`install-plugin: cannot edit ${p.file}: ${p.reason}.\n`)
  fail('fix that file (or edit its "plugin" list by hand) and run this again; nothing was changed')
}
if (checkout && !opts.uninstall && !opts.dryRun && opts.build) build()
if (target.tarball && !opts.uninstall) {
  if (opts.dryRun)
    process.stdout.write(`install-plugin: would npm install ${target.tarball} into ${target.dir}\n`)
  else unpack(target.tarball, target.dir)
}
if (checkout && !opts.uninstall) {
  const missing = ["dist/server.mjs", "dist/tui.mjs"].filter((f) => !existsSync(join(checkoutDir, f)))
  if (missing.length > 0 && !opts.dryRun)
    fail(`${missing.join(" and ")} missing: run \`npm run build\` first`)
}

const scope = opts.project === undefined ? "global config" : `project config (${projectRoot(opts.project)})`
const what = opts.uninstall ? `removing ${PACKAGE_NAME}` : `${PACKAGE_NAME} → ${JSON.stringify(spec)}`
process.stdout.write(
  `install-plugin: ${what}, ${scope}${opts.dryRun ? " (dry run: nothing is written)" : ""}\n`,
)
let changed = 0
for (const p of plans) {
  const label = p.kind === "opencode" ? "server" : "tui   "
  for (const c of p.changes) process.stdout.write(`  ${label}  ${p.file}: ${describe(c, opts.dryRun)}\n`)
  if (p.text === p.before) continue
  changed++
  // A file that held nothing but the entry this script created it for goes with the entry.
  if (p.text === undefined) {
    process.stdout.write(
      `  ${label}  ${p.file}: ${opts.dryRun ? "would delete" : "deleted"} the file (it held only this entry)\n`,
    )
    if (!opts.dryRun) rmSync(p.file, { force: true })
  } else if (!opts.dryRun) writeConfig(p.file, p.text)
}
if (plans.every((p) => p.changes.length === 0)) process.stdout.write(`  no ${PACKAGE_NAME} entries found\n`)

// A tarball install folder this script made goes with the last entry pointing at it.
if (opts.uninstall) {
  const removed = plans.flatMap((p) => p.changes.filter((c) => c.action === "removed").map((c) => c.spec))
  // This scope's files list it no more; the other scope's (as the double-listing note reads them) may, and so
  // may an OpenCode 2 plugin folder of either scope.
  const other = scopeFiles(opts.project === undefined ? callerDir : undefined)
  const folders = [v2PluginDir(undefined), v2PluginDir(callerDir)]
  dropUnpackDirs(removed, {
    dryRun: opts.dryRun,
    holder: (d) =>
      configLister([...other.opencode, ...other.tui], d) ??
      folders.reduce((h, f) => h ?? v2Loader(f, d), undefined),
  })
}

// The other scope's entries load too: say so, since the plugin would then load twice.
if (!opts.uninstall) {
  const other = scopeFiles(opts.project === undefined ? callerDir : undefined)
  for (const file of [...other.opencode, ...other.tui]) {
    const listed = (listedSpecs(readText(file)) ?? []).filter((s) =>
      isOurSpec(s, { checkoutDir, configDir: dirname(file) }),
    )
    for (const s of listed) {
      process.stdout.write(`  note: ${file} also lists ${JSON.stringify(s)}; OpenCode would load both.\n`)
    }
  }
}
if (!opts.dryRun && changed > 0) process.stdout.write("Restart OpenCode to pick up the change.\n")
