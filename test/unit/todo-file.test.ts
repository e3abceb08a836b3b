// The TODO.md file (src/shared/todo-file.ts): where a user-given path leads, export and import, and the hostile
// files around them (links out of the project, foreign files, pipes, devices, huge files).

import { spawnSync } from "node:child_process"
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { renderMarkdown } from "../../src/core/list/markdown.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { exportList, readImport, resolveProjectPath } from "../../src/shared/todo-file.ts"

const plan: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Parser", status: "in_progress" },
      { text: "Tests", status: "pending" },
    ],
  },
]

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "todo-file-"))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

describe("paths, export and import", () => {
  it("resolves relative paths inside the project and refuses to climb out", () => {
    expect(resolveProjectPath("/p", undefined)).toEqual({ ok: true, value: "/p/TODO.md" })
    expect(resolveProjectPath("/p", "docs/PLAN.md")).toEqual({ ok: true, value: "/p/docs/PLAN.md" })
    expect(resolveProjectPath("/p", "../etc/x")).toEqual({
      ok: false,
      error: '"../etc/x" leads outside the project; give a path inside it, or an absolute path.',
    })
  })

  it("exports, refuses to overwrite a foreign file without force, and overwrites its own export", async () => {
    const project = join(dir, "project")
    mkdirSync(project)
    const first = await exportList(plan, project, undefined, false)
    expect(first).toMatchObject({ ok: true, value: { path: join(project, "TODO.md"), tasks: 2 } })
    expect(readFileSync(join(project, "TODO.md"), "utf8")).toBe(renderMarkdown(plan))
    expect(await exportList([], project, undefined, false)).toMatchObject({ ok: true, value: { tasks: 0 } })

    writeFileSync(join(project, "NOTES.md"), "# my notes\n")
    const refused = await exportList(plan, project, "NOTES.md", false)
    expect(refused).toMatchObject({ ok: false, needsConfirm: true })
    expect(readFileSync(join(project, "NOTES.md"), "utf8")).toBe("# my notes\n")
    expect(await exportList(plan, project, "NOTES.md", true)).toMatchObject({ ok: true })
    expect(readFileSync(join(project, "NOTES.md"), "utf8")).toBe(renderMarkdown(plan))
  })

  it("overwrites an existing file keeping its mode", async () => {
    const project = join(dir, "project-mode")
    mkdirSync(project)
    const file = join(project, "TODO.md")
    writeFileSync(file, "# private plan\n")
    chmodSync(file, 0o600)
    expect(await exportList(plan, project, undefined, true)).toMatchObject({ ok: true })
    expect(readFileSync(file, "utf8")).toBe(renderMarkdown(plan))
    expect(statSync(file).mode & 0o7777).toBe(0o600)
  })

  it("reads an import and explains a missing file", async () => {
    const project = join(dir, "project2")
    mkdirSync(project)
    expect(await readImport(project, undefined)).toEqual({
      ok: false,
      error: `${join(project, "TODO.md")} does not exist; export first with /todo export, or give another path.`,
    })
    writeFileSync(join(project, "TODO.md"), "## A\n- [ ] x\n")
    expect(await readImport(project, undefined)).toEqual({
      ok: true,
      value: { path: join(project, "TODO.md"), text: "## A\n- [ ] x\n" },
    })
  })
})

describe.runIf(process.platform !== "win32")("hostile files around export and import", () => {
  let project: string
  let outside: string
  beforeEach(() => {
    const root = realpathSync(dir)
    project = join(root, "project")
    outside = join(root, "outside")
    mkdirSync(project)
    mkdirSync(outside)
  })

  it("never creates a file outside the project through a dangling TODO.md symlink", async () => {
    symlinkSync("../outside/new-file", join(project, "TODO.md"))
    const out = await exportList(plan, project, undefined, false)
    expect(out).toMatchObject({ ok: false })
    expect(!out.ok && out.error).toContain("symbolic link")
    expect(existsSync(join(outside, "new-file"))).toBe(false)
  })

  it("never overwrites a foreign file through a symlink, even with --force", async () => {
    writeFileSync(join(outside, "secret"), "keep me")
    symlinkSync(join(outside, "secret"), join(project, "NOTES.md"))
    for (const force of [false, true]) {
      const out = await exportList(plan, project, "NOTES.md", force)
      expect(out).toMatchObject({ ok: false })
      expect(!out.ok && "needsConfirm" in out && out.needsConfirm).toBeFalsy()
    }
    expect(readFileSync(join(outside, "secret"), "utf8")).toBe("keep me")
    expect(lstatSync(join(project, "NOTES.md")).isSymbolicLink()).toBe(true)
  })

  it("refuses a relative path whose folder is a symlink out of the project, naming the real path", async () => {
    symlinkSync("../outside", join(project, "docs"))
    const out = await exportList(plan, project, "docs/PLAN.md", false)
    expect(out).toEqual({
      ok: false,
      error: `"docs/PLAN.md" leads outside the project (to ${join(outside, "PLAN.md")}); give a path inside it, or an absolute path.`,
    })
    expect(existsSync(join(outside, "PLAN.md"))).toBe(false)
    // Reading through the same link is refused the same way.
    writeFileSync(join(outside, "TODO.md"), "## A\n- [ ] x\n")
    expect((await readImport(project, "docs/TODO.md")).ok).toBe(false)
  })

  it("takes ~/ as the home folder and an absolute path as typed, naming the real path", async () => {
    const home = join(dir, "home")
    mkdirSync(home)
    const saved = process.env.HOME
    process.env.HOME = home
    try {
      const out = await exportList(plan, project, "~/plans/TODO.md", false)
      expect(out).toMatchObject({ ok: true, value: { path: join(realpathSync(home), "plans", "TODO.md") } })
      expect(existsSync(join(project, "~"))).toBe(false)
    } finally {
      process.env.HOME = saved
    }
    expect(await exportList(plan, project, join(outside, "abs.md"), false)).toMatchObject({
      ok: true,
      value: { path: join(outside, "abs.md") },
    })
  })

  it("refuses a FIFO or a device as TODO.md at once", { timeout: 5000 }, async () => {
    spawnSync("mkfifo", [join(project, "TODO.md")])
    expect(await readImport(project, undefined)).toEqual({
      ok: false,
      error: `${join(project, "TODO.md")} is a named pipe, not a regular file; import reads a regular UTF-8 file of at most 4 MB.`,
    })
    expect((await exportList(plan, project, undefined, true)).ok).toBe(false)
    symlinkSync("/dev/zero", join(project, "ZERO.md"))
    expect(await readImport(project, "ZERO.md")).toMatchObject({
      ok: false,
      error: expect.stringContaining("(to /dev/zero)"),
    })
    expect((await exportList(plan, project, "ZERO.md", true)).ok).toBe(false)
  })

  it("refuses a 100 MB TODO.md after reading at most the cap", async () => {
    writeFileSync(join(project, "TODO.md"), "")
    truncateSync(join(project, "TODO.md"), 100 * 1024 * 1024)
    expect(await readImport(project, undefined)).toMatchObject({
      ok: false,
      error: expect.stringContaining("larger than 4 MB"),
    })
  })
})
