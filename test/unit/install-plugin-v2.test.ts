// `npm run install-plugin --host=2` against sandboxed config folders (test/fixtures/install-sandbox.ts): the
// plugin folder OpenCode 2 discovers, uninstall beside a 1.x install, and the private boot that checks the host
// lists the plugin.

import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { describe, expect, it } from "vitest"
import {
  box,
  checkoutDir,
  fakeNpm,
  fakeOpencode2,
  folder,
  globalDir,
  project,
  read,
  run,
  runWith,
  script,
  write,
} from "../fixtures/install-sandbox.ts"

describe("install-plugin for OpenCode 2", () => {
  const pluginDir = () => join(globalDir, "plugins", "opencode-todo")

  it("writes a plugin folder OpenCode 2 discovers: package.json, server.js and tui.js loading the built entries", () => {
    const pkg = folder()
    const r = run("--host=2", pkg)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toMatch(/OpenCode 2/)
    const dir = pluginDir()
    expect(readdirSync(dir).sort()).toEqual(["package.json", "server.js", "tui.js"])
    // A package.json whose `main` names the server entry: the folder rule of OpenCode 2's source
    // (package.json exports/module/main, else index.ts/index.js) and the 2.0.15 binary's both find it.
    const manifest = JSON.parse(read(join(dir, "package.json")))
    expect(manifest).toMatchObject({ type: "module", main: "server.js", private: true })
    expect(read(join(dir, "server.js"))).toContain(pathToFileURL(join(pkg, "dist", "server.mjs")).href)
    expect(read(join(dir, "tui.js"))).toContain(pathToFileURL(join(pkg, "dist", "tui.mjs")).href)
    expect(existsSync(join(globalDir, "opencode.json"))).toBe(false)
    expect(existsSync(join(globalDir, "tui.json"))).toBe(false)
    expect(existsSync(join(globalDir, "cli.json"))).toBe(false)
    // Idempotent, and --uninstall takes back the files and the folder it made, nothing else.
    expect(run("--host=2", pkg).out).toMatch(/already there/)
    write(join(globalDir, "plugins", "other", "index.js"), "export default {}\n")
    const un = run("--host=2", "--uninstall")
    expect(un.code, un.err).toBe(0)
    expect(existsSync(dir)).toBe(false)
    expect(readdirSync(join(globalDir, "plugins"))).toEqual(["other"])
  })

  it("replaces the index.mjs and tui.mjs an earlier version wrote, and --uninstall removes them too", () => {
    const pkg = folder()
    const dir = pluginDir()
    const legacy = (entry: string) =>
      `// Written by opencode-todo's install-plugin: loads the package's built entry.\nexport { default } from ${JSON.stringify(pathToFileURL(join(pkg, "dist", entry)).href)}\n`
    write(join(dir, "index.mjs"), legacy("server.mjs"))
    write(join(dir, "tui.mjs"), legacy("tui.mjs"))
    const r = run("--host=2", pkg)
    expect(r.code, r.err).toBe(0)
    expect(readdirSync(dir).sort()).toEqual(["package.json", "server.js", "tui.js"])
    write(join(dir, "index.mjs"), legacy("server.mjs"))
    expect(run("--host=2", "--uninstall").code).toBe(0)
    expect(existsSync(dir)).toBe(false)
  })

  it("--uninstall deletes the tarball's install folder it made, once nothing lists or loads it any more", () => {
    const npm = fakeNpm()
    writeFileSync(join(project, "opencode-todo-0.2.0.tgz"), "")
    const share = join(box, "home", ".local", "share", "opencode-todo")
    const dir = join(share, "opencode-todo-0.2.0")
    expect(runWith({ PATH: npm.path }, "--host=2", "./opencode-todo-0.2.0.tgz").code).toBe(0)
    expect(runWith({ PATH: npm.path }, "--host=2", "--project", "./opencode-todo-0.2.0.tgz").code).toBe(0)
    const server = join(pluginDir(), "server.js")
    expect(read(server)).toContain(pathToFileURL(join(dir, "node_modules", "opencode-todo")).href)
    const dry = runWith({ PATH: npm.path }, "--host=2", "--uninstall", "--dry-run")
    expect(dry.out).not.toContain(`would delete ${dir}`)
    const global = runWith({ PATH: npm.path }, "--host=2", "--uninstall")
    expect(global.code, global.err).toBe(0)
    const projectServer = join(project, ".opencode", "plugins", "opencode-todo", "server.js")
    expect(global.out).toContain(`kept ${dir}: ${projectServer} still loads it`)
    expect(existsSync(server)).toBe(false)
    expect(existsSync(dir)).toBe(true)
    const last = runWith({ PATH: npm.path }, "--host=2", "--uninstall", "--project")
    expect(last.code, last.err).toBe(0)
    expect(last.out).toContain(`deleted ${dir} (the tarball's install folder)`)
    expect(existsSync(share)).toBe(false)
  })

  it("--uninstall keeps the tarball's install folder while a 1.x config file still lists it", () => {
    const npm = fakeNpm()
    writeFileSync(join(project, "opencode-todo-0.2.0.tgz"), "")
    const dir = join(box, "home", ".local", "share", "opencode-todo", "opencode-todo-0.2.0")
    expect(runWith({ PATH: npm.path }, "--host=1", "./opencode-todo-0.2.0.tgz").code).toBe(0)
    expect(runWith({ PATH: npm.path }, "--host=2", "./opencode-todo-0.2.0.tgz").code).toBe(0)
    const r = runWith({ PATH: npm.path }, "--host=2", "--uninstall")
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(`kept ${dir}: ${join(globalDir, "opencode.json")} still lists it`)
    expect(existsSync(dir)).toBe(true)
  })

  it("a 1.x --uninstall keeps the tarball's install folder while an OpenCode 2 plugin folder loads it", () => {
    const npm = fakeNpm()
    writeFileSync(join(project, "opencode-todo-0.2.0.tgz"), "")
    const dir = join(box, "home", ".local", "share", "opencode-todo", "opencode-todo-0.2.0")
    expect(runWith({ PATH: npm.path }, "--host=1", "./opencode-todo-0.2.0.tgz").code).toBe(0)
    expect(runWith({ PATH: npm.path }, "--host=2", "./opencode-todo-0.2.0.tgz").code).toBe(0)
    const r = runWith({ PATH: npm.path }, "--host=1", "--uninstall")
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain(`kept ${dir}: ${join(pluginDir(), "server.js")} still loads it`)
    expect(existsSync(dir)).toBe(true)
  })

  it.each(["server.js", "tui.js", "package.json", "index.mjs"])(
    "leaves a plugin folder alone when its %s was not written by this script",
    (name) => {
      const pkg = folder()
      const foreign = join(pluginDir(), name)
      write(foreign, "export default {}\n")
      const r = run("--host=2", pkg)
      expect(r.code).not.toBe(0)
      expect(r.err).toContain(`${name} not written by this script`)
      expect(readdirSync(pluginDir())).toEqual([name])
      expect(run("--host=2", "--uninstall").code).not.toBe(0)
      expect(read(foreign)).toBe("export default {}\n")
    },
  )

  it("says which host it found, and never takes the checkout's own pinned binary for the user's", () => {
    const r = spawnSync(process.execPath, [script, "--dry-run", folder()], {
      encoding: "utf8",
      env: {
        PATH: join(checkoutDir, "node_modules", ".bin"),
        HOME: join(box, "home"),
        XDG_CONFIG_HOME: join(box, "config"),
        INIT_CWD: project,
      },
    })
    expect(r.stdout).toMatch(/^install-plugin: no `opencode` on PATH \(the project's own node_modules copy/m)
  })
})

/**
 * A fake OpenCode 2 first on PATH, as strict as the real 2.0.15 where install-plugin meets it:
 * `--version`; `serve --hostname H --port P` answering `/api/plugin` and `/api/command` only with
 * the password of OPENCODE_SERVER_PASSWORD (Basic, user `opencode`), each `{ location, data }`.
 * Its plugin list is what `listing(dirs)` makes of the plugin folders it finds (global and the
 * project's), and it records each run's arguments, working folder and password.
 */

describe("install-plugin asks OpenCode 2 whether it loads the plugin", () => {
  it("boots the user's OpenCode 2 privately and says the host lists the plugin, with /todo registered", () => {
    const oc = fakeOpencode2("loads")
    const pkg = folder()
    const r = runWith({ PATH: oc.path }, pkg)
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain("found OpenCode 2.0.15")
    const dir = join(globalDir, "plugins", "opencode-todo")
    expect(r.out).toContain(
      `install-plugin: checked: OpenCode 2.0.15 lists opencode-todo (active, server and TUI entries) from ${join(dir, "server.js")}, and /todo is registered`,
    )
    const serve = oc.calls().find((c) => c.args[0] === "serve")
    expect(serve?.args).toEqual(expect.arrayContaining(["--hostname", "127.0.0.1", "--port"]))
    expect(serve?.password).toMatch(/^[0-9a-f]{32,}$/)
    expect(serve?.cwd).toBe(project)
  })

  it("fails, naming the host's own reason, when the host lists the plugin as failed", () => {
    const oc = fakeOpencode2("fails")
    const r = runWith({ PATH: oc.path }, folder())
    expect(r.code).toBe(1)
    expect(r.err).toContain("OpenCode 2.0.15 did not load")
    expect(r.err).toContain("Plugin must export a default definition")
  })

  it("fails when the host does not list the plugin at all", () => {
    const oc = fakeOpencode2("nothing")
    const r = runWith({ PATH: oc.path }, folder())
    expect(r.code).toBe(1)
    expect(r.err).toContain("OpenCode 2.0.15 does not list opencode-todo")
  })

  it("gives up on a host that never answers, within its time limit, and says so", () => {
    const oc = fakeOpencode2("no-answer")
    const r = runWith({ PATH: oc.path, OPENCODE_TODO_CHECK_TIMEOUT_MS: "1500" }, folder())
    expect(r.code).toBe(1)
    expect(r.err).toContain("did not answer")
  })

  it("with --no-check, or in a dry run, or for --uninstall, boots nothing", () => {
    const oc = fakeOpencode2("loads")
    const pkg = folder()
    expect(runWith({ PATH: oc.path }, "--no-check", pkg).out).toContain("not checked (--no-check)")
    expect(runWith({ PATH: oc.path }, "--dry-run", pkg).code).toBe(0)
    expect(runWith({ PATH: oc.path }, "--uninstall").code).toBe(0)
    expect(oc.calls().filter((c) => c.args[0] === "serve")).toEqual([])
  })

  it("says it could not check when --host=2 is given and no OpenCode 2 is on PATH", () => {
    const r = run("--host=2", folder())
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain("not checked: no OpenCode 2 on PATH")
  })
})
