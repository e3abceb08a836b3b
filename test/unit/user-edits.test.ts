import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeEach, describe, expect, it } from "vitest"
import { listAt, revertPoint } from "../../src/core/history/history.ts"
import { recordCall } from "../../src/core/history/placement.ts"
import { unrevert } from "../../src/core/history/revert.ts"
import { isEditNote } from "../../src/core/list/diff.ts"
import { EXPORT_MARKER } from "../../src/core/list/markdown.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import { DEFAULT_LIMITS, type TodoList } from "../../src/core/list/types.ts"
import { replaceFromMarkdown, runUserOps } from "../../src/shared/user-edits.ts"
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
    const outcome = await runUserOps({ store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" }, [
      { op: "done", target: { kind: "task", text: "Parser" } },
    ])
    expect(outcome.ok).toBe(true)
    const snap = await store.read("s1")
    expect(snap.list[0]!.tasks.map((t) => t.status)).toEqual(["completed", "in_progress"])
    expect(snap.edits).toEqual([
      { lines: ['"Parser": in progress → done', '"Tests": pending → in progress'], removed: [] },
    ])
    expect(isEditNote(snap.edits[0])).toBe(true)
  })

  it("says a reason the list does not keep (an unblock's) in the edit note", async () => {
    await store.update("s1", (s) => ({
      next: {
        ...s,
        list: [{ name: "Build", tasks: [{ text: "Parser", status: "blocked", blocker: "spec" }] }],
      },
    }))
    const outcome = await runUserOps({ store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" }, [
      { op: "unblock", target: { kind: "task", text: "Parser" }, reason: "spec arrived" },
    ])
    expect(outcome.ok && outcome.diff.lines).toEqual(['"Parser": blocked → in progress ("spec arrived")'])
  })

  it("records nothing when the caller tells the model itself", async () => {
    await runUserOps({ store, session: "s1", limits: DEFAULT_LIMITS, notify: "none" }, [
      { op: "rm", target: { kind: "task", text: "Tests" } },
    ])
    const snap = await store.read("s1")
    expect(snap.edits).toEqual([])
    expect(snap.list[0]!.tasks.map((t) => t.text)).toEqual(["Parser"])
  })

  it("changes nothing and writes nothing on a failing op", async () => {
    const before = await store.read("s1")
    const outcome = await runUserOps({ store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" }, [
      { op: "start", target: { kind: "task", text: "Nope" } },
    ])
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
      {
        store,
        session: "s1",
        limits: DEFAULT_LIMITS,
        notify: "record",
        at: { kind: "after", message: "msg_5" },
      },
      [{ op: "rm", target: { kind: "task", text: "Parser" } }],
    )
    const history = historyOf(await store.read("s1"))
    expect(listAt(history, { message: "msg_6" }).list).toEqual([{ name: "Build", tasks: [] }])
    expect(listAt(history, { message: "msg_5" }).list).toEqual(newer)
  })

  it("an edit at the revert point is made on the list before it, even before the server recorded the revert", async () => {
    const outcome = await runUserOps(
      {
        store,
        session: "s1",
        limits: DEFAULT_LIMITS,
        notify: "record",
        at: {
          kind: "reverted",
          point: { message: "msg_3" },
        },
      },
      [done("Tests")],
    )
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
    const outcome = await replaceFromMarkdown(
      { store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" },
      md,
    )
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
    const outcome = await replaceFromMarkdown(
      { store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" },
      edited,
    )
    expect(outcome.ok && outcome.diff.lines).toEqual([
      'line 6: started "Tests"; no task was in progress',
      '"Parser": in progress → done',
      '"Tests": pending → in progress',
    ])
    expect((await store.read("s1")).list[0]!.tasks.map((t) => t.status)).toEqual(["completed", "in_progress"])
  })

  it("keeps only the first of several in-progress tasks and says so", async () => {
    const outcome = await replaceFromMarkdown(
      { store, session: "s1", limits: DEFAULT_LIMITS, notify: "none" },
      "## Build\n- [>] Parser\n- [>] Tests\n",
    )
    expect(outcome.ok && outcome.diff.lines).toEqual([
      'line 3: back to pending ("Tests"); only "Parser" (line 2) stays in progress',
    ])
    expect((await store.read("s1")).list).toEqual(plan)
  })

  it("keeps the old list on a parse error and reports the line", async () => {
    const outcome = await replaceFromMarkdown(
      { store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" },
      "## Build\n- [ ] A\nnonsense\n",
    )
    expect(outcome).toMatchObject({ ok: false })
    expect(!outcome.ok && outcome.error.startsWith("Line 3:")).toBe(true)
    expect((await store.read("s1")).list).toEqual(plan)
  })

  it("rejects duplicates naming the duplicate in an edited export", async () => {
    // An $EDITOR buffer starts as our export; a file without the marker is never quoted (test/host/import.test.ts).
    const outcome = await replaceFromMarkdown(
      { store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" },
      `${EXPORT_MARKER}\n## A\n- [ ] X\n## B\n- [ ] X\n`,
    )
    expect(!outcome.ok && outcome.error).toContain('"X"')
    expect((await store.read("s1")).list).toEqual(plan)
  })
})
