import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import {
  exportList,
  isEditNote,
  readImport,
  replaceFromMarkdown,
  resolveProjectPath,
  runUserOps,
} from "../src/actions.ts"
import { renderMarkdown } from "../src/core/markdown.ts"
import { parseSnapshot } from "../src/core/parse.ts"
import { DEFAULT_LIMITS, type TodoList } from "../src/core/types.ts"
import { createStore, type Store } from "../src/store/store.ts"

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
  await store.update("s1", (s) => ({ ...s, list: plan }))
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

  it("rejects duplicates naming the duplicate", async () => {
    const outcome = await replaceFromMarkdown(
      store,
      "s1",
      "## A\n- [ ] X\n## B\n- [ ] X\n",
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

  it("exports, refuses to overwrite a foreign file without force, and overwrites its own export", () => {
    const project = join(dir, "project")
    mkdirSync(project)
    const first = exportList(plan, project, undefined, false)
    expect(first).toMatchObject({ ok: true, value: { path: join(project, "TODO.md"), tasks: 2 } })
    expect(readFileSync(join(project, "TODO.md"), "utf8")).toBe(renderMarkdown(plan))
    expect(exportList([], project, undefined, false)).toMatchObject({ ok: true, value: { tasks: 0 } })

    writeFileSync(join(project, "NOTES.md"), "# my notes\n")
    const refused = exportList(plan, project, "NOTES.md", false)
    expect(refused).toMatchObject({ ok: false, needsConfirm: true })
    expect(readFileSync(join(project, "NOTES.md"), "utf8")).toBe("# my notes\n")
    expect(exportList(plan, project, "NOTES.md", true)).toMatchObject({ ok: true })
    expect(readFileSync(join(project, "NOTES.md"), "utf8")).toBe(renderMarkdown(plan))
  })

  it("reads an import and explains a missing file", () => {
    const project = join(dir, "project2")
    mkdirSync(project)
    expect(readImport(project, undefined)).toEqual({
      ok: false,
      error: `${join(project, "TODO.md")} does not exist; export first with /todo export, or give another path.`,
    })
    writeFileSync(join(project, "TODO.md"), "## A\n- [ ] x\n")
    expect(readImport(project, undefined)).toEqual({
      ok: true,
      value: { path: join(project, "TODO.md"), text: "## A\n- [ ] x\n" },
    })
  })
})
