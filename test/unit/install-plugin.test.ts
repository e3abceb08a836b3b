// `npm run install-plugin` against sandboxed config folders (test/fixtures/install-sandbox.ts), plus the pure
// edits it is built on: fresh folders, folders with other plugins, JSONC with comments, malformed files (refused,
// untouched), idempotence, uninstall, --project, --dry-run. OpenCode 2's folder and check: install-plugin-v2.test.ts.

import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { editPluginList, isOurSpec, listedSpecs, parseJsonc } from "../../scripts/lib/plugin-config.mjs"
import {
  box,
  checkoutDir,
  fakeNpm,
  folder,
  globalDir,
  plugins,
  project,
  read,
  run,
  runWith,
  stripJsonc,
  write,
} from "../fixtures/install-sandbox.ts"

describe("install-plugin in a fresh config folder", () => {
  it("creates opencode.json and tui.json, each listing a package folder by its absolute path", () => {
    const pkg = folder()
    const r = run(pkg)
    expect(r.code).toBe(0)
    expect(plugins(join(globalDir, "opencode.json"))).toEqual([pkg])
    expect(plugins(join(globalDir, "tui.json"))).toEqual([pkg])
    expect(JSON.parse(read(join(globalDir, "tui.json"))).$schema).toBe("https://opencode.ai/tui.json")
  })

  it("is idempotent: a second run changes no byte and says so", () => {
    const pkg = folder()
    run(pkg)
    const before = [read(join(globalDir, "opencode.json")), read(join(globalDir, "tui.json"))]
    const r = run(pkg)
    expect(r.code).toBe(0)
    expect(r.out).toContain("already lists")
    expect([read(join(globalDir, "opencode.json")), read(join(globalDir, "tui.json"))]).toEqual(before)
  })

  it("plans a tarball as a folder of its own under XDG_DATA_HOME, resolved from the caller's folder", () => {
    writeFileSync(join(project, "opencode-todo-0.2.0.tgz"), "")
    const ok = run("--dry-run", "./opencode-todo-0.2.0.tgz")
    expect(ok.code).toBe(0)
    const dir = join(box, "home", ".local", "share", "opencode-todo", "opencode-todo-0.2.0")
    expect(ok.out).toContain(`would npm install ${join(project, "opencode-todo-0.2.0.tgz")} into ${dir}`)
    expect(ok.out).toContain(`would add ${JSON.stringify(join(dir, "node_modules", "opencode-todo"))}`)
    expect(existsSync(join(box, "config"))).toBe(false)
  })

  it("refuses a folder that has no built entries", () => {
    mkdirSync(join(box, "empty"))
    const r = run(join(box, "empty"))
    expect(r.code).toBe(1)
    expect(r.err).toContain("has no dist/server.mjs or dist/tui.mjs")
  })

  it("--uninstall deletes the files it created, and --dry-run says what it would remove", () => {
    const pkg = folder()
    run(pkg)
    const dry = run("--uninstall", "--dry-run")
    expect(dry.out).toContain(`would remove ${JSON.stringify(pkg)}`)
    expect(dry.out).not.toMatch(/: removed /)
    expect(plugins(join(globalDir, "tui.json"))).toEqual([pkg])
    const r = run("--uninstall")
    expect(r.code).toBe(0)
    expect(r.out).toContain(`removed ${JSON.stringify(pkg)}`)
    expect(readdirSync(globalDir)).toEqual([])
  })

  it("writes an npm name or git URL as given", () => {
    expect(run("opencode-todo@latest").code).toBe(0)
    expect(plugins(join(globalDir, "tui.json"))).toEqual(["opencode-todo@latest"])
  })

  it("points at this checkout when given no target (dry run: nothing written, no build)", () => {
    const r = run("--dry-run")
    expect(r.code).toBe(0)
    expect(r.out).toContain(`would add ${JSON.stringify(checkoutDir)}`)
    expect(existsSync(join(box, "config"))).toBe(false)
  })

  it("refuses a tarball path that does not exist, writing nothing", () => {
    const r = run("./missing/opencode-todo-9.9.9.tgz")
    expect(r.code).toBe(1)
    expect(r.err).toContain("does not exist")
    expect(existsSync(join(box, "config"))).toBe(false)
  })

  it("rejects unknown options with the usage", () => {
    const r = run("--global")
    expect(r.code).toBe(2)
    expect(r.err).toContain("usage: npm run install-plugin")
  })
})

describe("install-plugin with a tarball, under the caller's own npm setup", () => {
  const tarball = () => {
    writeFileSync(join(project, "opencode-todo-0.2.0.tgz"), "")
    return "./opencode-todo-0.2.0.tgz"
  }
  const dir = () => join(box, "home", ".local", "share", "opencode-todo", "opencode-todo-0.2.0")

  it("runs npm in the install folder with the caller's environment and npm config, no --prefix", () => {
    const npm = fakeNpm()
    const globalconfig = join(box, "etc", "npmrc")
    write(globalconfig, "cafile=/etc/ssl/certs/proxy-ca.pem\n")
    const r = runWith(
      {
        PATH: npm.path,
        NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/proxy-ca.pem",
        npm_config_globalconfig: globalconfig,
        npm_config_userconfig: join(box, "home", ".npmrc"),
        HTTPS_PROXY: "http://proxy.example:3128",
        // What `npm run install-plugin` adds about this checkout: not for the install.
        npm_package_name: "opencode-todo",
        npm_config_local_prefix: checkoutDir,
      },
      tarball(),
    )
    expect(r.code, r.err).toBe(0)
    const installs = npm.calls().filter((c) => c.args[0] === "install")
    expect(installs).toHaveLength(1)
    const [call] = installs
    expect(call?.cwd).toBe(dir())
    expect(call?.args).toContain(join(project, "opencode-todo-0.2.0.tgz"))
    expect(call?.args.some((a) => /^--(?:prefix|globalconfig|userconfig|cafile)\b/.test(a))).toBe(false)
    expect(call?.env).toMatchObject({
      NODE_EXTRA_CA_CERTS: "/etc/ssl/certs/proxy-ca.pem",
      npm_config_globalconfig: globalconfig,
      npm_config_userconfig: join(box, "home", ".npmrc"),
      HTTPS_PROXY: "http://proxy.example:3128",
      HOME: join(box, "home"),
    })
    expect(call?.env.npm_package_name).toBeUndefined()
    expect(call?.env.npm_config_local_prefix).toBeUndefined()
    expect(plugins(join(globalDir, "tui.json"))).toEqual([join(dir(), "node_modules", "opencode-todo")])
  })

  it("--uninstall deletes the install folder it made, once no scope lists it any more", () => {
    const npm = fakeNpm()
    const share = join(box, "home", ".local", "share", "opencode-todo")
    expect(runWith({ PATH: npm.path }, tarball()).code).toBe(0)
    expect(runWith({ PATH: npm.path }, "--project", tarball()).code).toBe(0)
    const dry = runWith({ PATH: npm.path }, "--uninstall", "--dry-run")
    expect(dry.out).not.toContain(`would delete ${dir()}`)
    const global = runWith({ PATH: npm.path }, "--uninstall")
    expect(global.out).toContain(`kept ${dir()}: ${join(project, "opencode.json")} still lists it`)
    expect(existsSync(dir())).toBe(true)
    const last = runWith({ PATH: npm.path }, "--uninstall", "--project")
    expect(last.code, last.err).toBe(0)
    expect(last.out).toContain(`deleted ${dir()} (the tarball's install folder)`)
    expect(existsSync(share)).toBe(false)
  })

  it("--uninstall leaves a folder under the install root that it did not make", () => {
    const pkg = join(box, "home", ".local", "share", "opencode-todo", "mine", "node_modules", "opencode-todo")
    write(join(pkg, "..", "..", "package.json"), `{ "name": "mine" }\n`)
    write(join(pkg, "dist", "server.mjs"), "")
    write(join(pkg, "dist", "tui.mjs"), "")
    expect(run(pkg).code).toBe(0)
    const r = run("--uninstall")
    expect(r.out).toContain(`removed ${JSON.stringify(pkg)}`)
    expect(r.out).not.toContain("deleted /")
    expect(existsSync(pkg)).toBe(true)
  })

  it("names npm's real cause in one sentence when npm sums it up as ERESOLVE, and writes nothing", () => {
    const npm = fakeNpm("cert-behind-eresolve")
    const r = runWith({ PATH: npm.path }, tarball())
    expect(r.code).toBe(1)
    const sentence = r.err.trim().split("\n")
    expect(sentence).toHaveLength(1)
    expect(sentence[0]).toContain("npm could not install")
    expect(sentence[0]).toContain("SELF_SIGNED_CERT_IN_CHAIN")
    expect(sentence[0]).toContain("self-signed certificate in certificate chain")
    expect(sentence[0]).toContain("cafile")
    expect(sentence[0]).not.toContain("ERESOLVE")
    expect(existsSync(join(box, "config"))).toBe(false)
  })
})

describe("install-plugin for this checkout", () => {
  /** A copy of the script in a checkout of its own, with a source file and a built dist/. */
  function checkout() {
    const root = join(box, "checkout")
    for (const f of [
      "install-plugin.mjs",
      "lib/plugin-config.mjs",
      "lib/plugin-listing.mjs",
      "lib/npm-failure.mjs",
    ]) {
      write(join(root, "scripts", f), read(join(checkoutDir, "scripts", f)))
    }
    write(join(root, "node_modules", ".bin", "tsdown"), "")
    write(join(root, "src", "index.ts"), "")
    write(join(root, "package.json"), "{}")
    const past = new Date(Date.now() - 60_000)
    for (const f of ["src/index.ts", "package.json"]) utimesSync(join(root, f), past, past)
    write(join(root, "dist", "server.mjs"), "")
    write(join(root, "dist", "tui.mjs"), "")
    return { root, script: join(root, "scripts", "install-plugin.mjs") }
  }

  it("does not rebuild when dist/ is newer than the sources, and does when a source changed", () => {
    const npm = fakeNpm()
    const { root, script: copy } = checkout()
    const first = runWith({ PATH: npm.path, SCRIPT: copy })
    expect(first.code, first.err).toBe(0)
    expect(first.out).toContain("not rebuilding")
    expect(npm.calls()).toEqual([])
    expect(plugins(join(globalDir, "opencode.json"))).toEqual([root])
    const future = new Date(Date.now() + 60_000)
    utimesSync(join(root, "src", "index.ts"), future, future)
    expect(runWith({ PATH: npm.path, SCRIPT: copy }).code).toBe(0)
    expect(npm.calls().map((c) => c.args.slice(0, 2))).toEqual([["run", "build"]])
  })
})

describe("install-plugin beside other plugins", () => {
  const opencode = `{
  "$schema": "https://opencode.ai/config.json",
  "model": "anthropic/claude-sonnet-4",
  "plugin": [
    "opencode-wakatime",
    ["@acme/opencode-lint", { "strict": true }]
  ]
}
`
  const tui = `{ "theme": "tokyonight", "plugin": ["opencode-theme-pack"] }\n`

  it("appends its entry and leaves every other entry and key as it was", () => {
    write(join(globalDir, "opencode.json"), opencode)
    write(join(globalDir, "tui.json"), tui)
    const pkg = folder()
    expect(run(pkg).code).toBe(0)
    expect(plugins(join(globalDir, "opencode.json"))).toEqual([
      "opencode-wakatime",
      "@acme/opencode-lint",
      pkg,
    ])
    expect(read(join(globalDir, "opencode.json"))).toContain('["@acme/opencode-lint", { "strict": true }],')
    expect(read(join(globalDir, "tui.json"))).toBe(
      `{ "theme": "tokyonight", "plugin": ["opencode-theme-pack", ${JSON.stringify(pkg)}] }\n`,
    )
  })

  it("--uninstall gives back the files exactly as they were", () => {
    write(join(globalDir, "opencode.json"), opencode)
    write(join(globalDir, "tui.json"), tui)
    run(folder())
    const r = run("--uninstall")
    expect(r.code).toBe(0)
    expect(r.out).toContain("removed")
    expect(read(join(globalDir, "opencode.json"))).toBe(opencode)
    expect(read(join(globalDir, "tui.json"))).toBe(tui)
  })

  it("re-points an existing entry of this package in place, keeping its options, and drops duplicates", () => {
    write(
      join(globalDir, "opencode.json"),
      `{
  "plugin": [
    ["opencode-todo", { "eager": "preferred" }],
    "opencode-wakatime",
    "${checkoutDir}/dist/server.mjs"
  ]
}
`,
    )
    const pkg = folder()
    const r = run(pkg)
    expect(r.code).toBe(0)
    expect(r.out).toContain('replaced "opencode-todo"')
    const text = read(join(globalDir, "opencode.json"))
    expect(text).toBe(`{
  "plugin": [
    [${JSON.stringify(pkg)}, { "eager": "preferred" }],
    "opencode-wakatime"
  ]
}
`)
  })

  it("--project edits the project's files, leaves the global ones alone and notes the double listing", () => {
    write(join(globalDir, "opencode.json"), `{"plugin": ["opencode-todo"]}`)
    const pkg = folder()
    const r = run("--project", pkg)
    expect(r.code).toBe(0)
    expect(plugins(join(project, "opencode.json"))).toEqual([pkg])
    expect(plugins(join(project, "tui.json"))).toEqual([pkg])
    expect(read(join(globalDir, "opencode.json"))).toBe(`{"plugin": ["opencode-todo"]}`)
    expect(r.out).toMatch(/note: .*opencode\.json also lists "opencode-todo"/)
  })

  it("--project uses a project's existing .opencode/tui.jsonc", () => {
    write(join(project, ".opencode", "tui.jsonc"), `{\n  // mine\n  "plugin": []\n}\n`)
    const sub = join(project, "src")
    mkdirSync(sub)
    expect(run(`--project=${sub}`, "opencode-todo").code).toBe(0)
    expect(read(join(project, ".opencode", "tui.jsonc"))).toBe(
      `{\n  // mine\n  "plugin": ["opencode-todo"]\n}\n`,
    )
    expect(existsSync(join(project, "tui.json"))).toBe(false)
  })
})

describe("install-plugin with JSONC", () => {
  const jsonc = `// global OpenCode settings
{
  /* the model */
  "model": "openai/gpt-5", // fast enough
  "plugin": [
    "opencode-wakatime", // time tracking
  ],
}
`
  it("keeps every comment and trailing comma, edits the .jsonc in place and creates no .json", () => {
    write(join(globalDir, "opencode.jsonc"), jsonc)
    const pkg = folder()
    expect(run(pkg).code).toBe(0)
    const text = read(join(globalDir, "opencode.jsonc"))
    for (const comment of [
      "// global OpenCode settings",
      "/* the model */",
      "// fast enough",
      "// time tracking",
    ]) {
      expect(text).toContain(comment)
    }
    expect(listedSpecs(text)).toEqual(["opencode-wakatime", pkg])
    expect(existsSync(join(globalDir, "opencode.json"))).toBe(false)
    expect(run("--uninstall").code).toBe(0)
    expect(read(join(globalDir, "opencode.jsonc"))).toBe(jsonc)
  })

  it("keeps a private config's mode on install and on uninstall", () => {
    const settings = `{\n  "provider": { "x": { "options": { "apiKey": "k" } } } // keys, private\n}\n`
    write(join(globalDir, "opencode.jsonc"), settings, { mode: 0o600 })
    write(join(globalDir, "tui.json"), `{ "theme": "dark" }\n`, { mode: 0o640 })
    chmodSync(join(globalDir, "opencode.jsonc"), 0o600)
    chmodSync(join(globalDir, "tui.json"), 0o640)
    const modes = () => [
      statSync(join(globalDir, "opencode.jsonc")).mode & 0o7777,
      statSync(join(globalDir, "tui.json")).mode & 0o7777,
    ]
    const owners = () =>
      [statSync(join(globalDir, "opencode.jsonc")), statSync(join(globalDir, "tui.json"))].map(
        (s) => `${s.uid}:${s.gid}`,
      )
    const owned = owners()
    expect(run(folder()).code).toBe(0)
    expect(modes()).toEqual([0o600, 0o640])
    expect(owners()).toEqual(owned)
    expect(run("--uninstall").code).toBe(0)
    expect(modes()).toEqual([0o600, 0o640])
    expect(owners()).toEqual(owned)
    expect(read(join(globalDir, "opencode.jsonc"))).toContain('"apiKey": "k" } } }, // keys, private\n')
  })

  it("lists the entry where OpenCode reads it when the last setting ends in a comment holding a comma", () => {
    const text = `{\n  "model": "openai/gpt-5" // fast, and cheap\n}\n`
    write(join(globalDir, "opencode.jsonc"), text)
    const pkg = folder()
    expect(run(pkg).code).toBe(0)
    const after = read(join(globalDir, "opencode.jsonc"))
    expect(listedSpecs(after)).toEqual([pkg])
    expect(after).toContain(`"model": "openai/gpt-5", // fast, and cheap\n`)
    expect(run("--uninstall").code).toBe(0)
    expect(listedSpecs(read(join(globalDir, "opencode.jsonc")))).toEqual([])
  })

  it("writes through a symlinked config file and keeps the link", () => {
    const real = join(box, "dotfiles", "tui.json")
    write(real, `{ "plugin": [] }\n`)
    mkdirSync(globalDir, { recursive: true })
    symlinkSync(real, join(globalDir, "tui.json"))
    expect(run("opencode-todo").code).toBe(0)
    expect(read(real)).toBe(`{ "plugin": ["opencode-todo"] }\n`)
    expect(readdirSync(globalDir).sort()).toEqual(["opencode.json", "tui.json"])
  })
})

describe("install-plugin refuses a malformed file", () => {
  it("names the file, line and column, and changes nothing anywhere", () => {
    const good = `{ "plugin": ["opencode-wakatime"] }\n`
    const bad = `{\n  "plugin": ["opencode-theme-pack",,]\n}\n`
    write(join(globalDir, "opencode.json"), good)
    write(join(globalDir, "tui.json"), bad)
    const r = run(folder())
    expect(r.code).toBe(1)
    expect(r.err).toContain(`cannot edit ${join(globalDir, "tui.json")}`)
    expect(r.err).toContain("line 2, column 36")
    expect(r.err).toContain("nothing was changed")
    expect(read(join(globalDir, "opencode.json"))).toBe(good)
    expect(read(join(globalDir, "tui.json"))).toBe(bad)
    expect(readdirSync(globalDir).sort()).toEqual(["opencode.json", "tui.json"])
  })

  it("refuses a plugin key that is not a list, and a top level that is not an object", () => {
    write(join(globalDir, "opencode.json"), `{ "plugin": "opencode-wakatime" }`)
    expect(run("opencode-todo").err).toContain('"plugin" is not a list')
    write(join(globalDir, "opencode.json"), `["opencode-todo"]`)
    expect(run("opencode-todo").err).toContain("top level is not an object")
  })
})

describe("editPluginList", () => {
  const isOurs = (s: string) => isOurSpec(s, { checkoutDir: "/src/opencode-todo", configDir: "/cfg" })
  const layouts = [
    `{"plugin": ["a", "b"]}`,
    `{"plugin": []}`,
    `{}`,
    `{"model": "x"}`,
    `{\n  "model": "x" // m\n}\n`,
    `{\n  "plugin": [\n    "a",\n    ["b", { "c": 1 }]\n  ]\n}\n`,
    `{\n  "plugin": [\n    "a", // one\n  ],\n}\n`,
    `{\n  "plugin": [ /* none yet */ ]\n}\n`,
    `{\n  "model": "x" // fast, and cheap\n}\n`,
    `{\n  "model": "x", // fast, and cheap\n}\n`,
    `{\n  "model": "x" /* a, b */ // c, d\n}\n`,
    `{\n  "url": "http://a//b,c" // e, f\n}\n`,
    `{ "a": 1 /* x, y */ }`,
    `{\n  "plugin": [\n    "a" // one, two\n  ]\n}\n`,
    `{\n  "plugin": ["a" /* b, c */], "z": "//,"\n}\n`,
  ]

  /** The file's values as OpenCode reads them, without "plugin". */
  const settings = (text: string) => {
    const { plugin: _plugin, ...rest } = JSON.parse(stripJsonc(text)) as Record<string, unknown>
    return rest
  }
  /** Every byte of `text`, in order, is in `within`. */
  const keeps = (within: string, text: string) => {
    let at = 0
    for (const ch of text) {
      at = within.indexOf(ch, at)
      if (at < 0) return false
      at++
    }
    return true
  }

  it.each(layouts)("adds one entry that parses back, and uninstall removes only it: %j", (text) => {
    const added = editPluginList(text, { spec: "opencode-todo", isOurs, kind: "opencode" })
    if (!added.ok) throw new Error(added.reason)
    const before = listedSpecs(text) ?? []
    expect(listedSpecs(added.text)).toEqual([...before, "opencode-todo"])
    // As OpenCode reads it: the entry is in the list, and every other setting is as it was.
    expect((JSON.parse(stripJsonc(added.text ?? "")) as { plugin: unknown[] }).plugin.at(-1)).toBe(
      "opencode-todo",
    )
    expect(settings(added.text ?? "")).toEqual(settings(text))
    expect(keeps(added.text ?? "", text)).toBe(true)
    const removed = editPluginList(added.text, { spec: undefined, isOurs, kind: "opencode" })
    if (!removed.ok) throw new Error(removed.reason)
    expect(listedSpecs(removed.text)).toEqual(before)
    expect(parseJsonc(removed.text ?? "").ok).toBe(true)
    // Every byte the user wrote is still there; where the file had a list, nothing else is.
    expect(keeps(removed.text ?? "", text)).toBe(true)
    if (/"plugin"/.test(text)) expect(removed.text).toBe(text)
  })

  it("removes a run of entries with their commas in any position", () => {
    const text = `{"plugin": ["opencode-todo", "a", "opencode-todo@1", "file:/x/opencode-todo-0.1.0.tgz"]}`
    const r = editPluginList(text, { spec: undefined, isOurs, kind: "tui" })
    expect(r.ok && r.text).toBe(`{"plugin": ["a"]}`)
  })

  it("reports where a file stops being JSONC", () => {
    expect(parseJsonc(`{\n  "a": 1\n  "b": 2\n}`)).toEqual({
      ok: false,
      error: { message: "expected ',' or '}'", line: 3, column: 3 },
    })
    expect(parseJsonc(`{ /* open`).ok).toBe(false)
    expect(parseJsonc(`{ "a": "line\nbreak" }`).ok).toBe(false)
  })
})

describe("isOurSpec", () => {
  const where = { checkoutDir: "/src/todo-fork", configDir: "/home/u/.config/opencode" }
  it.each([
    "opencode-todo",
    "opencode-todo@0.2.0",
    "git+https://github.com/someone/opencode-todo.git",
    "github:someone/opencode-todo#v1",
    "git+file:///tmp/x/opencode-todo#abc",
    "file:/tmp/opencode-todo-0.1.0.tgz",
    "/src/todo-fork",
    "/src/todo-fork/dist/server.mjs",
    "file:///src/todo-fork",
    "/home/u/node_modules/opencode-todo",
    "../../opencode-todo",
  ])("knows %s as this package", (spec) => expect(isOurSpec(spec, where)).toBe(true))

  it.each(["opencode-todo-sync", "@acme/opencode-todo", "opencode-wakatime", "/src/other", "github:a/todo"])(
    "leaves %s alone",
    (spec) => expect(isOurSpec(spec, where)).toBe(false),
  )
})
