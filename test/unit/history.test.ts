// The list history by example: what an edit made while reverted becomes on redo, what a fork finds by
// call id, how input out of order or broken is taken (a consistent list and a warning, never a throw),
// how a stored history that does not read is replaced, and the size of a long session's record.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  currentList,
  historyFrom,
  type ListHistory,
  listAt,
  listFingerprint,
  revertPoint,
  stateAtCall,
} from "../../src/core/history/history.ts"
import { recordCall, recordEdit, settleEdit } from "../../src/core/history/placement.ts"
import { commit, revert, unrevert } from "../../src/core/history/revert.ts"
import { applyDelta, diffRows, expandId, fromRows, shortenId, toRows } from "../../src/core/history/rows.ts"
import { walk } from "../../src/core/history/spans.ts"
import { decodeHistory, encodeHistory } from "../../src/core/history/stored.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { DEFAULT_LIMITS, type Op, type TodoList } from "../../src/core/list/types.ts"
import { encodeRecord } from "../../src/store/record.ts"
import { historySession } from "../fixtures/history-session.ts"
import { deepFreeze, phase, task } from "../fixtures/lists.ts"

const PLAN: TodoList = deepFreeze([
  phase("Build", task("Write parser", "in_progress"), task("Test parser"), task("Wire CLI")),
  phase("Ship", task("Release")),
])
const done = (text: string): Op => ({ op: "done", target: { kind: "task", text } })
const run = (list: TodoList, ...ops: Op[]): TodoList => {
  const result = executeOps(list, ops)
  if (!result.ok) throw new Error(result.error)
  return result.list
}

/** Plan at msg_1, then "Write parser" done at msg_3 and "Test parser" done at msg_5. */
function session(): { h: ListHistory; lists: TodoList[] } {
  const l1 = run(PLAN, done("Write parser"))
  const l2 = run(l1, done("Test parser"))
  let h = historyFrom([])
  h = recordCall(h, { message: "msg_1", part: "prt_1", callID: "call_plan" }, PLAN).history
  h = recordCall(h, { message: "msg_3", part: "prt_4", callID: "call_a" }, l1).history
  h = recordCall(h, { message: "msg_5", part: "prt_7", callID: "call_b" }, l2).history
  return { h, lists: [PLAN, l1, l2] }
}

describe("reading the history", () => {
  it("gives the list strictly before a message, a part, or the newest list", () => {
    const { h, lists } = session()
    expect(listAt(h).list).toEqual(lists[2])
    expect(listAt(h, { message: "msg_1" }).list).toEqual([])
    expect(listAt(h, { message: "msg_2" }).list).toEqual(PLAN)
    expect(listAt(h, { message: "msg_3" }).list).toEqual(PLAN)
    expect(listAt(h, { message: "msg_3", part: "prt_4" }).list).toEqual(PLAN)
    expect(listAt(h, { message: "msg_3", part: "prt_5" }).list).toEqual(lists[1])
    expect(listAt(h, { message: "msg_4" }).list).toEqual(lists[1])
  })

  it("places a user edit after every part of the newest message, and a call without its part after them too", () => {
    const { h, lists } = session()
    const edited = run(lists[2]!, done("Wire CLI"))
    const step = recordEdit(h, { after: "msg_5" }, edited)
    expect(listAt(step.history, { message: "msg_5", part: "prt_9" }).list).toEqual(lists[2])
    expect(listAt(step.history, { message: "msg_6" }).list).toEqual(edited)
    const call = recordCall(h, { message: "msg_5", callID: "call_c" }, edited)
    expect(listAt(call.history, { message: "msg_5", part: "prt_9" }).list).toEqual(lists[2])
  })

  it("places a change anchored before the newest one at the newest one", () => {
    const { h, lists } = session()
    const edited = run(lists[2]!, done("Wire CLI"))
    const late = recordEdit(h, { after: "msg_2" }, edited).history
    expect(listAt(late, { message: "msg_5", part: "prt_7" }).list).toEqual(lists[1])
    expect(listAt(late, { message: "msg_5", part: "prt_8" }).list).toEqual(edited)
  })

  it("records nothing for a change that leaves the list as it was", () => {
    const { h, lists } = session()
    expect(recordCall(h, { message: "msg_7", part: "prt_9", callID: "view" }, lists[2]!).history).toBe(h)
  })
})

describe("the state at a call id (forks keep call ids)", () => {
  it("finds the newest recorded call among the ids, with the lists before and after it", () => {
    const { h, lists } = session()
    expect(stateAtCall(h, ["call_a", "call_unknown"])).toEqual({
      callID: "call_a",
      point: { message: "msg_3", part: "prt_4" },
      before: PLAN,
      after: lists[1],
    })
    expect(stateAtCall(h, ["call_a", "call_b", "call_plan"])?.callID).toBe("call_b")
    expect(stateAtCall(h, ["call_unknown"])).toBeUndefined()
  })

  it("forgets a call whose message a commit removed", () => {
    const { h } = session()
    expect(stateAtCall(commit(revert(h, { message: "msg_5" }).history).history, ["call_b"])).toBeUndefined()
  })
})

describe("undo, redo, commit", () => {
  it("undo shows the list before the point at once; redo gives the newest list back", () => {
    const { h, lists } = session()
    const undone = revert(h, { message: "msg_5" })
    expect([undone.list, revertPoint(undone.history)]).toEqual([lists[1], { message: "msg_5" }])
    const redone = unrevert(undone.history)
    expect([redone.list, redone.dropped, revertPoint(redone.history)]).toEqual([lists[2], [], undefined])
  })

  it("commit drops the states after the point for good", () => {
    const { h, lists } = session()
    const committed = commit(revert(h, { message: "msg_3" }).history)
    expect(committed.list).toEqual(PLAN)
    expect(listAt(committed.history).list).toEqual(PLAN)
    expect(listAt(committed.history, { message: "msg_9" }).list).toEqual(PLAN)
    // Work goes on from the restored list.
    const next = recordCall(committed.history, { message: "msg_6", part: "prt_9", callID: "c" }, lists[1]!)
    expect([next.list, listAt(next.history, { message: "msg_6" }).list]).toEqual([lists[1], PLAN])
  })

  it("an edit by ops made while reverted is made again on the newest list on redo", () => {
    const { h, lists } = session()
    const undone = revert(h, { message: "msg_3" })
    const added: Op = { op: "append", phase: "Ship", items: ["Announce"] }
    const edited = recordEdit(undone.history, { after: "msg_2", ops: [added] }, run(undone.list, added))
    expect(edited.list).toEqual(run(PLAN, added))
    const redone = unrevert(edited.history)
    expect([redone.list, redone.dropped]).toEqual([run(lists[2]!, added), []])
  })

  it("an edit that no longer applies on redo is dropped and named; the newest list is unchanged", () => {
    const { h, lists } = session()
    const undone = revert(h, { message: "msg_5" })
    const drop: Op = { op: "rm", target: { kind: "task", text: "Test parser" } }
    const edited = recordEdit(
      undone.history,
      { ops: [done("Test parser")] },
      run(undone.list, done("Test parser")),
    )
    const newest = run(lists[2]!, drop)
    // The agent's newest call removed the task meanwhile (as if the redo target had it gone).
    const moved = recordCall(historyFrom([]), { message: "m", part: "p", callID: "x" }, newest).history
    const both = { ...edited.history, spans: moved.spans, top: newest }
    const redone = unrevert(both)
    expect(redone.list).toEqual(newest)
    expect(redone.dropped).toEqual([
      { kind: "ops", ops: [done("Test parser")], error: expect.stringContaining("Test parser") },
    ])
  })

  it("a replacing edit (editor, import) made while reverted is made again by task on redo", () => {
    const { h, lists } = session()
    const undone = revert(h, { message: "msg_3" })
    // In the editor: Release is blocked with a reason, a task is added, Wire CLI is removed.
    const replaced: TodoList = [
      phase("Build", task("Write parser", "in_progress"), task("Test parser"), task("Lint")),
      phase("Ship", task("Release", "blocked", "waiting on sign-off")),
    ]
    const edited = recordEdit(undone.history, { after: "msg_2" }, replaced)
    expect(edited.list).toEqual(replaced)
    const redone = unrevert(edited.history)
    expect(redone.dropped).toEqual([])
    expect(redone.list).toEqual([
      phase(
        "Build",
        task("Write parser", "completed"),
        task("Test parser", "completed"),
        task("Lint", "in_progress"),
      ),
      phase("Ship", task("Release", "blocked", "waiting on sign-off")),
    ])
    expect(lists[2]).not.toEqual(redone.list)
  })

  it("a replacing edit whose task is gone keeps the rest and names what it dropped", () => {
    const l1: TodoList = [phase("Build", task("A", "in_progress"), task("B"))]
    const l2: TodoList = [phase("Build", task("B", "in_progress"))]
    let h = recordCall(historyFrom([]), { message: "m1", part: "p1", callID: "c1" }, l1).history
    h = recordCall(h, { message: "m3", part: "p3", callID: "c2" }, l2).history
    const undone = revert(h, { message: "m3" })
    const replaced: TodoList = [
      phase("Build", task("A", "completed"), task("B", "blocked", "why")),
      phase("New"),
    ]
    const redone = unrevert(recordEdit(undone.history, {}, replaced).history)
    expect(redone.dropped).toEqual([{ kind: "status", task: "A", status: "completed" }])
    expect(redone.list).toEqual([phase("Build", task("B", "blocked", "why")), phase("New")])
  })

  it("a replacing edit that would take the newest list over the limits is dropped whole, and named", () => {
    const l1: TodoList = [phase("Build", task("A", "in_progress"), task("B"))]
    const l2: TodoList = [phase("Build", task("A", "in_progress"), task("B"), task("D"))]
    let h = recordCall(historyFrom([]), { message: "m1", part: "p1", callID: "c1" }, l1).history
    h = recordCall(h, { message: "m3", part: "p3", callID: "c2" }, l2).history
    const undone = revert(h, { message: "m3" })
    const added: TodoList = [phase("Build", task("A", "in_progress"), task("B"), task("C"))]
    const limits = { ...DEFAULT_LIMITS, maxTasks: 3 }
    const redone = unrevert(recordEdit(undone.history, {}, added).history, limits)
    expect([redone.list, redone.dropped]).toEqual([l2, [{ kind: "status", task: "C", status: "pending" }]])
  })

  it("a second revert replaces the first and keeps the edits made while reverted; back at the first point they are exact", () => {
    const { h, lists } = session()
    const first = revert(h, { message: "msg_5" })
    const edited = recordEdit(first.history, { ops: [done("Wire CLI")] }, run(first.list, done("Wire CLI")))
    const second = revert(edited.history, { message: "msg_3" })
    expect(second.warning).toBeUndefined()
    expect(second.list).toEqual(run(PLAN, done("Wire CLI")))
    expect(revert(second.history, { message: "msg_5" }).list).toEqual(run(lists[1]!, done("Wire CLI")))
  })

  it("commit keeps the edits made while reverted, at the revert point", () => {
    const { h } = session()
    const undone = revert(h, { message: "msg_5" })
    const edited = recordEdit(undone.history, { ops: [done("Wire CLI")] }, run(undone.list, done("Wire CLI")))
    const committed = commit(edited.history)
    expect(committed.list).toEqual(edited.list)
    expect(listAt(committed.history, { message: "msg_5" }).list).toEqual(undone.list)
    expect(listAt(committed.history, { message: "msg_6" }).list).toEqual(edited.list)
  })
})

describe("changes anchored out of the order they were made", () => {
  const texts = (list: TodoList) => list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))
  const dropRelease: Op = { op: "drop", target: { kind: "task", text: "Release" } }

  it("parallel calls finishing last part first: each part has the calls before it, the newest list is exact", () => {
    let h = historyFrom(PLAN)
    const second = run(PLAN, dropRelease)
    h = recordCall(h, { message: "m1", part: "p2", callID: "c2" }, second).history
    const both = run(second, done("Write parser"))
    const step = recordCall(h, { message: "m1", part: "p1", callID: "c1" }, both)
    expect([step.list, step.warning]).toEqual([both, undefined])
    expect(listAt(step.history, { message: "m1", part: "p1" }).list).toEqual(PLAN)
    expect(texts(listAt(step.history, { message: "m1", part: "p2" }).list)).toEqual(
      texts(run(PLAN, done("Write parser"))),
    )
    // Forks find each call by its id, at its own part.
    expect(stateAtCall(step.history, ["c1"])?.point).toEqual({ message: "m1", part: "p1" })
    // The stored form reads back in position order.
    const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(step.history))), both)
    expect(read.warning).toBeUndefined()
    expect(listAt(read.history, { message: "m1", part: "p2" }).list).toEqual(
      listAt(step.history, { message: "m1", part: "p2" }).list,
    )
  })

  it("a call after a user edit anchored after its message stays after the edit (made before the call's part)", () => {
    let h = historyFrom(PLAN)
    const edited = run(PLAN, dropRelease)
    h = recordEdit(h, { after: "m1" }, edited).history
    const called = run(edited, done("Write parser"))
    h = recordCall(h, { message: "m1", part: "p1", callID: "c1" }, called).history
    expect(listAt(h, { message: "m1", part: "p1" }).list).toEqual(PLAN)
    expect(listAt(h, { message: "m2" }).list).toEqual(called)
  })

  it("two commands' edits settle on the messages with their marks, whichever comes first", () => {
    for (const [first, second] of [
      ["u1", "u2"],
      ["u2", "u1"],
    ] as const) {
      let h = historyFrom(PLAN)
      const dropped = run(PLAN, dropRelease)
      h = recordEdit(h, { after: "m0", command: "a1" }, dropped).history
      const both = run(dropped, done("Write parser"))
      h = recordEdit(h, { after: "m0", command: "a2" }, both).history
      // The second command's message is `second`, the first's `first`; the second's arrives first.
      h = settleEdit(h, second, listFingerprint(both), "a2").history
      h = settleEdit(h, first, listFingerprint(dropped), "a1").history
      expect(currentList(h)).toEqual(both)
      expect(listAt(h, { message: first }).list).toEqual(
        first === "u1" ? PLAN : run(PLAN, done("Write parser")),
      )
      expect(texts(listAt(h, { message: second }).list)).toEqual(texts(second === "u2" ? dropped : PLAN))
      expect(listAt(h, { message: "u3" }).list).toEqual(both)
      // No mark is left behind: every entry is a plain user edit or the plan.
      expect([...walk(h.spans.at(-1)!)].map(({ entry }) => entry[2])).toEqual(["", ""])
    }
  })

  it("a mark it cannot find settles nothing; a bad mark is not kept, and the newest edit settles as unmarked", () => {
    const dropped = run(PLAN, dropRelease)
    const marked = recordEdit(historyFrom(PLAN), { after: "m0", command: "a1" }, dropped).history
    expect(settleEdit(marked, "u1", listFingerprint(PLAN), "other").history).toBe(marked)
    const bad = recordEdit(historyFrom(PLAN), { after: "m0", command: "bad mark!" }, dropped).history
    expect([...walk(bad.spans.at(-1)!)].map(({ entry }) => entry[2])).toEqual([""])
    const settled = settleEdit(bad, "u1", listFingerprint(dropped), "other").history
    expect(listAt(settled, { message: "u1" }).list).toEqual(PLAN)
  })
})

describe("input out of order or malformed: a consistent list and a warning", () => {
  it("a revert without a message id changes nothing", () => {
    const { h, lists } = session()
    for (const bad of [{ message: "" }, { message: 3 }, null, { message: "m", part: "" }]) {
      const step = revert(h, bad as never)
      expect([step.list, step.history, typeof step.warning]).toEqual([lists[2], h, "string"])
      expect(listAt(h, bad as never)).toEqual({ list: lists[2], warning: expect.any(String) })
    }
  })

  it("a revert to an unknown message goes back to before where that id sorts", () => {
    const { h, lists } = session()
    expect(revert(h, { message: "msg_4" }).list).toEqual(lists[1])
    expect(revert(h, { message: "msg_9" }).list).toEqual(lists[2])
  })

  it("a removal seen before its revert event cuts there, says so, and the revert event then agrees", () => {
    const { h, lists } = session()
    const removed = commit(h, { message: "msg_5" })
    expect([removed.list, typeof removed.warning]).toEqual([lists[1], "string"])
    const late = revert(removed.history, { message: "msg_5" })
    expect([late.list, late.warning]).toEqual([lists[1], undefined])
    expect(unrevert(late.history).list).toEqual(lists[1])
    // Later removals of later messages, and a commit with nothing pending, change nothing and say nothing.
    expect(commit(removed.history, { message: "msg_6" })).toEqual({
      history: removed.history,
      list: lists[1],
      dropped: [],
    })
    expect(commit(removed.history).history).toBe(removed.history)
  })

  it("a removal before the revert point cuts at the removal", () => {
    const { h } = session()
    const step = commit(revert(h, { message: "msg_5" }).history, { message: "msg_3" })
    expect([step.list, typeof step.warning]).toEqual([PLAN, "string"])
  })

  it("a todo call while reverted takes the revert as committed", () => {
    const { h, lists } = session()
    const undone = revert(h, { message: "msg_5" })
    const l = run(lists[1]!, done("Test parser"), done("Wire CLI"))
    const step = recordCall(undone.history, { message: "msg_9", part: "prt_9", callID: "c" }, l)
    expect([step.list, revertPoint(step.history), typeof step.warning]).toEqual([l, undefined, "string"])
    expect(listAt(step.history, { message: "msg_9" }).list).toEqual(lists[1])
  })

  it("unrevert without a revert is no change and no warning", () => {
    const { h } = session()
    expect(unrevert(h)).toEqual({ history: h, list: currentList(h), dropped: [] })
  })

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), (history, point, list) => {
        const h = history as ListHistory
        for (const step of [
          () => recordCall(h, point as never, list as never),
          () => recordEdit(h, point as never, list as never),
          () => revert(h, point as never),
          () => unrevert(h),
          () => commit(h, point as never),
          () => settleEdit(h, point as never, list as never, point as never),
        ])
          expect(step).not.toThrow()
        expect(() => listAt(h, point as never)).not.toThrow()
        expect(() => stateAtCall(h, [point as never])).not.toThrow()
      }),
      { numRuns: 300 },
    )
  })
})

describe("a stored history", () => {
  const { h, lists } = session()
  const stored = () => JSON.parse(JSON.stringify(encodeHistory(h)))

  it("reads back to the same history, reverted or not", () => {
    expect(decodeHistory(stored(), lists[2]!)).toEqual({ history: h })
    const undone = revert(h, { message: "msg_3" })
    const edited = recordEdit(undone.history, { ops: [done("Wire CLI")] }, run(undone.list, done("Wire CLI")))
    const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(edited.history))), edited.list)
    expect(read).toEqual({ history: edited.history })
  })

  /** A stored history changed in place by `change`. */
  const edit = <T>(raw: T, change: () => void): T => {
    change()
    return raw
  }
  const broken: [string, (raw: { v: number; spans: { l: unknown[]; e: unknown[][] }[] }) => unknown][] = [
    ["not an object", () => "history"],
    ["an unknown form", (raw) => ({ ...raw, v: 2 })],
    ["no checkpoints", (raw) => ({ ...raw, spans: [] })],
    ["a bad row", (raw) => ({ ...raw, spans: [{ l: ["xTask"], e: [] }] })],
    ["a task before any phase", (raw) => ({ ...raw, spans: [{ l: ["pTask"], e: [] }] })],
    [
      "a step out of range",
      (raw) =>
        edit(raw, () => {
          raw.spans[0]!.e[2]![3] = "99c"
        }),
    ],
    [
      "a step on a phase row",
      (raw) =>
        edit(raw, () => {
          raw.spans[0]!.e[2]![3] = "0c"
        }),
    ],
    [
      "a malformed entry",
      (raw) =>
        edit(raw, () => {
          raw.spans[0]!.e[1] = ["x"]
        }),
    ],
    [
      "an id that does not expand",
      (raw) =>
        edit(raw, () => {
          raw.spans[0]!.e[1]![0] = "zzz"
        }),
    ],
    [
      "positions out of order",
      (raw) =>
        edit(raw, () => {
          raw.spans[0]!.e[2]![0] = "0msg_0"
        }),
    ],
    ["a revert without a point", (raw) => ({ ...raw, rev: { edits: [] } })],
    [
      "a pending edit that is not one",
      (raw) => ({ ...raw, rev: { at: { message: "msg_3" }, edits: [{ b: 1 }] } }),
    ],
  ]
  it.each(broken)("with %s keeps the list, starts a history of it alone, and warns", (_, corrupt) => {
    const read = decodeHistory(corrupt(stored()), lists[2]!)
    expect(read.history).toEqual(historyFrom(lists[2]!))
    expect(read.warning).toMatch(/^The stored list history is unreadable \(.+\); the list was kept/)
  })

  it("with an older checkpoint that does not chain keeps the list in effect: only the newest span is replayed on read", () => {
    const long = historySession(400).history
    expect(long.spans.length).toBeGreaterThan(2)
    const raw = JSON.parse(JSON.stringify(encodeHistory(long)))
    raw.spans[1].l = raw.spans[1].l.slice(0, -1)
    const read = decodeHistory(raw, currentList(long))
    expect(read.warning).toBeUndefined()
    expect(currentList(read.history)).toEqual(currentList(long))
  })

  it("with an older span that does not replay says so when an undo reaches it, and keeps the list in effect", () => {
    const long = historySession(400).history
    const raw = JSON.parse(JSON.stringify(encodeHistory(long)))
    raw.spans[1].e[1][3] = [9999, 1, [], "", []]
    const read = decodeHistory(raw, currentList(long))
    expect(read.warning).toBeUndefined()
    // The point just after the damaged step: a later message than its own.
    const damaged = [...walk(read.history.spans[1]!)]
    const after = damaged.find((w) => w.pos.m > damaged[1]!.pos.m)!.pos
    const far = listAt(read.history, { message: after.m })
    expect(far.warning).toMatch(/damaged/)
    expect(far.list).toEqual(currentList(long))
  })

  it("that does not end in the stored list takes the stored list as the newest user edit", () => {
    const other = run(lists[2]!, done("Wire CLI"))
    const read = decodeHistory(stored(), other)
    expect([read.warning, currentList(read.history)]).toEqual([undefined, other])
    expect(listAt(read.history, { message: "msg_5" }).list).toEqual(lists[1])
  })
})

describe("compact forms", () => {
  it("a delta turns the rows before into the rows after, whatever the two lists", () => {
    const rowArb = fc.oneof(
      fc.string().map((s) => `#${s}`),
      fc
        .tuple(fc.constantFrom("p", "i", "c", "a", "b"), fc.constantFrom("x", "y", "z", "w"))
        .map(([c, t]) => c + t),
      fc
        .tuple(fc.constantFrom("b", "p"), fc.constantFrom("x", "y"), fc.string())
        .map(([c, t, r]) => [c + t, r] as const),
    )
    fc.assert(
      fc.property(
        fc.array(rowArb, { maxLength: 12 }),
        fc.array(rowArb, { maxLength: 12 }),
        (before, after) => {
          const rows = [...before]
          expect(applyDelta(rows, JSON.parse(JSON.stringify(diffRows(before, after))))).toBe(true)
          expect(rows).toEqual(after)
        },
      ),
    )
  })

  it("a status-only step is a short string", () => {
    const { lists } = session()
    expect(diffRows(toRows(lists[0]!), toRows(lists[1]!))).toBe("1c2i")
    expect(fromRows(toRows(lists[1]!))).toEqual(lists[1])
  })

  it("a shortened id expands back against the id before it", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (previous, id) => {
        expect(expandId(previous, shortenId(previous, id))).toBe(id)
      }),
    )
  })
})

describe("record size", () => {
  it("after 1,000 changes to a 50-task list, the record stays under 128 KB", () => {
    const { history, changes } = historySession(1_000)
    expect(changes).toBe(1_000)
    expect(currentList(history).flatMap((p) => p.tasks)).toHaveLength(50)
    const list = currentList(history)
    const bytes = Buffer.byteLength(
      encodeRecord("ses_1", { list, history, revision: 1000, edits: [], persisted: true }),
    )
    expect(bytes).toBeLessThan(128 * 1024)
  })
})
