import { spawnSync } from "node:child_process"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { listAt, recordCall, revertPoint, unrevert } from "../../src/core/history/history.ts"
import { isEditNote } from "../../src/core/list/diff.ts"
import { EXPORT_MARKER, renderMarkdown } from "../../src/core/list/markdown.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import { DEFAULT_LIMITS, type TodoList } from "../../src/core/list/types.ts"
import {
  exportList,
  readImport,
  replaceFromMarkdown,
  resolveProjectPath,
  runUserOps,
} from "../../src/shared/user-edits.ts"
import { historyOf } from "../../src/store/record.ts"
import { createStore, type Store } from "../../src/store/store.ts"

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
let store: Store
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "todo-actions-"))
  store = createStore({ dir: join(dir, "store"), parse: (raw) => parseSnapshot(raw), warn: () => {} })
  await store.update("s1", (s) => ({ next: { ...s, list: plan } }))
})

describe("runUserOps", () => {
  it("applies the ops and records an edit note for the server when asked to", async () => {
    const outcome = await runUserOps(
      store,
      "s1",
      [{ op: "done", target: { kind: "task", text: "Parser" } }],
      DEFAULT_LIMITS,
      "record",
    )
    expect(outcome.ok).toBe(true)
    const snap = await store.read("s1")
    expect(snap.list[0]!.tasks.map((t) => t.status)).toEqual(["completed", "in_progress"])
    expect(snap.edits).toEqual([
      { lines: ['"Parser": in progress -> done', '"Tests": pending -> in progress'], removed: [] },
    ])
    expect(isEditNote(snap.edits[0])).toBe(true)
  })

  it("records nothing when the caller tells the model itself", async () => {
    await runUserOps(
      store,
      "s1",
      [{ op: "rm", target: { kind: "task", text: "Tests" } }],
      DEFAULT_LIMITS,
      "none",
    )
    const snap = await store.read("s1")
    expect(snap.edits).toEqual([])
    expect(snap.list[0]!.tasks.map((t) => t.text)).toEqual(["Parser"])
  })

  it("changes nothing and writes nothing on a failing op", async () => {
    const before = await store.read("s1")
    const outcome = await runUserOps(
      store,
      "s1",
      [{ op: "start", target: { kind: "task", text: "Nope" } }],
      DEFAULT_LIMITS,
      "record",
    )
    expect(outcome.ok).toBe(false)
    const after = await store.read("s1")
    expect(after).toEqual(before)
  })
})

describe("where a user edit sits in the conversation", () => {
  const done = (text: string) => ({ op: "done" as const, target: { kind: "task" as const, text } })
  const newer: TodoList = [{ name: "Build", tasks: [{ text: "Parser", status: "completed" }] }]

  // A todo call in msg_4 removed Tests and finished Parser: the list before msg_3 is `plan`.
  beforeEach(async () => {
    await store.update("s1", (s) => {
      const step = recordCall(historyOf(s), { message: "msg_4", part: "prt_4", callID: "c1" }, newer)
      return { next: { ...s, list: step.list, history: step.history } }
    })
  })

  it("an edit after the newest message is recorded there: a revert before that message undoes it", async () => {
    await runUserOps(
      store,
      "s1",
      [{ op: "rm", target: { kind: "task", text: "Parser" } }],
      DEFAULT_LIMITS,
      "record",
      { kind: "after", message: "msg_5" },
    )
    const history = historyOf(await store.read("s1"))
    expect(listAt(history, { message: "msg_6" }).list).toEqual([{ name: "Build", tasks: [] }])
    expect(listAt(history, { message: "msg_5" }).list).toEqual(newer)
  })

  it("an edit at the revert point is made on the list before it, even before the server recorded the revert", async () => {
    const outcome = await runUserOps(store, "s1", [done("Tests")], DEFAULT_LIMITS, "record", {
      kind: "reverted",
      point: { message: "msg_3" },
    })
    expect(outcome.ok && outcome.before).toEqual(plan)
    const snap = await store.read("s1")
    expect(snap.list[0]!.tasks.map((t) => [t.text, t.status])).toEqual([
      ["Parser", "in_progress"],
      ["Tests", "completed"],
    ])
    const history = historyOf(snap)
    expect(revertPoint(history)).toEqual({ message: "msg_3" })
    // Redo: the newest list has no Tests any more, so the edit is dropped and said so.
    const redo = unrevert(history)
    expect(redo.list).toEqual(newer)
    expect(redo.dropped).toMatchObject([{ kind: "ops", ops: [done("Tests")] }])
  })
})

describe("replaceFromMarkdown", () => {
  it("replaces the list and names removed tasks", async () => {
    const md = "# Todo\n## Build\n- [x] Parser\n- [>] Docs\n"
    const outcome = await replaceFromMarkdown(store, "s1", md, DEFAULT_LIMITS, "record")
    expect(outcome.ok && outcome.diff.removed).toEqual(["Tests"])
    expect((await store.read("s1")).list).toEqual([
      {
        name: "Build",
        tasks: [
          { text: "Parser", status: "completed" },
          { text: "Docs", status: "in_progress" },
        ],
      },
    ])
  })

  it("ends in the normal form: the running task marked done in an edit starts the next", async () => {
    const edited = "<!-- opencode-todo -->\n# Todo\n\n## Build\n- [x] Parser\n- [ ] Tests\n"
    const outcome = await replaceFromMarkdown(store, "s1", edited, DEFAULT_LIMITS, "record")
    expect(outcome.ok && outcome.diff.lines).toEqual([
      'line 6: started "Tests"; no task was in progress',
      '"Parser": in progress -> done',
      '"Tests": pending -> in progress',
    ])
    expect((await store.read("s1")).list[0]!.tasks.map((t) => t.status)).toEqual(["completed", "in_progress"])
  })

  it("keeps only the first of several in-progress tasks and says so", async () => {
    const outcome = await replaceFromMarkdown(
      store,
      "s1",
      "## Build\n- [>] Parser\n- [>] Tests\n",
      DEFAULT_LIMITS,
      "none",
    )
    expect(outcome.ok && outcome.diff.lines).toEqual([
      'line 3: back to pending ("Tests"); only "Parser" (line 2) stays in progress',
    ])
    expect((await store.read("s1")).list).toEqual(plan)
  })

  it("keeps the old list on a parse error and reports the line", async () => {
    const outcome = await replaceFromMarkdown(
      store,
      "s1",
      "## Build\n- [ ] A\nnonsense\n",
      DEFAULT_LIMITS,
      "record",
    )
    expect(outcome).toMatchObject({ ok: false })
    expect(!outcome.ok && outcome.error.startsWith("Line 3:")).toBe(true)
    expect((await store.read("s1")).list).toEqual(plan)
  })

  it("rejects duplicates naming the duplicate in an edited export", async () => {
    // An $EDITOR buffer starts as our export; a file without the marker is never quoted (test/host/import.test.ts).
    const outcome = await replaceFromMarkdown(
      store,
      "s1",
      `${EXPORT_MARKER}\n## A\n- [ ] X\n## B\n- [ ] X\n`,
      DEFAULT_LIMITS,
      "record",
    )
    expect(!outcome.ok && outcome.error).toContain('"X"')
    expect((await store.read("s1")).list).toEqual(plan)
  })
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
