// Pins whole calls: normalization between ops, all-or-nothing batches, and failures returning the same list.

import { describe, expect, it } from "vitest"
import type { ExecuteResult } from "../../src/core/list/execute.ts"
import { execute, executeOps } from "../../src/core/list/execute.ts"
import type { Op, TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { task as t } from "../fixtures/lists.ts"

const LIST: TodoList = [
  { name: "Build", tasks: [t("Parse", "completed"), t("Test", "in_progress"), t("Wire")] },
  { name: "Ship", tasks: [t("Keys", "blocked", "ops"), t("Tag")] },
]

function ok(result: ExecuteResult) {
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`)
  return result
}

/** Expects failure, the very same list object back, and the input untouched. */
function failsWith(list: TodoList, raw: unknown, error: string, opIndex?: number) {
  const before = structuredClone(list)
  const result = execute(list, raw)
  expect(result.ok).toBe(false)
  expect(result.list).toBe(list)
  expect(list).toEqual(before)
  if (!result.ok) {
    expect(result.error).toBe(error)
    expect(result.opIndex).toBe(opIndex)
  }
}

describe("execute: single ops", () => {
  it("done on the running task promotes the next pending one", () => {
    const result = ok(execute(LIST, { op: "done", task: "Test" }))
    expect(result.list).toEqual([
      { name: "Build", tasks: [t("Parse", "completed"), t("Test", "completed"), t("Wire", "in_progress")] },
      LIST[1],
    ])
    expect(result.changes).toEqual([
      { kind: "status", task: "Test", from: "in_progress", to: "completed" },
      { kind: "status", task: "Wire", from: "pending", to: "in_progress", auto: "promoted" },
    ])
    expect(result.ops).toEqual([{ op: "done", target: { kind: "task", text: "Test" } }])
  })

  it("init from nothing starts the first task", () => {
    const result = ok(execute([], { items: ["a", "b"] }))
    expect(result.list).toEqual([{ name: "Tasks", tasks: [t("a", "in_progress"), t("b")] }])
    expect(result.changes).toEqual([
      { kind: "init", phases: 1, tasks: 2 },
      { kind: "status", task: "a", from: "pending", to: "in_progress", auto: "promoted" },
    ])
  })

  it("unblocking with nothing in progress auto-starts the unblocked task", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A", "completed"), t("B", "blocked", "why")] }]
    const result = ok(execute(list, { op: "unblock", task: "B" }))
    expect(result.list).toEqual([{ name: "W", tasks: [t("A", "completed"), t("B", "in_progress")] }])
    expect(result.changes.at(-1)).toEqual({
      kind: "status",
      task: "B",
      from: "pending",
      to: "in_progress",
      auto: "promoted",
    })
  })

  it("blocking the running task starts the next pending one, not a blocked one", () => {
    const result = ok(execute(LIST, { op: "block", task: "Test", reason: "flaky" }))
    expect(result.list[0]!.tasks).toEqual([
      t("Parse", "completed"),
      t("Test", "blocked", "flaky"),
      t("Wire", "in_progress"),
    ])
    expect(result.list[1]).toBe(LIST[1])
  })

  it("removing the running task promotes the next", () => {
    const result = ok(execute(LIST, { op: "rm", task: "Test" }))
    expect(result.list[0]!.tasks).toEqual([t("Parse", "completed"), t("Wire", "in_progress")])
  })

  it("rm with no target clears the list", () => {
    const result = ok(execute(LIST, { op: "rm" }))
    expect(result.list).toEqual([])
  })

  it("view returns the same list when it is already normal", () => {
    const result = ok(execute(LIST, { op: "view" }))
    expect(result.list).toBe(LIST)
    expect(result.changes).toEqual([])
  })

  it("view never changes a list, even one not in the normal form: it hands back the same list", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A"), t("B", "in_progress"), t("C", "in_progress")] }]
    const result = ok(execute(list, { op: "view" }))
    expect(result.list).toBe(list)
    expect(result.changes).toEqual([])
    expect(ok(execute(list, { ops: [{ op: "view" }, { op: "view" }] })).list).toBe(list)
  })

  it("a done task that is explicitly reopened demotes the running one", () => {
    const result = ok(execute(LIST, { op: "start", task: "Parse" }))
    expect(result.list[0]!.tasks).toEqual([t("Parse", "in_progress"), t("Test"), t("Wire")])
  })
})

describe("execute: failures change nothing", () => {
  it("a parse error", () => {
    failsWith(LIST, { op: "done" }, 'done needs "task" (the exact task text) or "phase" (a phase name).', 0)
  })

  it("a malformed call has no op index", () => {
    failsWith(LIST, 42, 'Arguments must be an object with "op" and its fields; got a number.')
    failsWith(LIST, { ops: "x" }, '"ops" must be an array of ops; got a string.')
  })

  it("an apply error", () => {
    failsWith(LIST, { op: "drop", task: "Parse" }, 'Task "Parse" is already done; use rm to remove it.', 0)
  })

  it("an unknown task", () => {
    failsWith(
      LIST,
      { op: "done", task: "wire" },
      'No task "wire". Tasks are addressed by their exact text. Closest: "Wire".',
      0,
    )
  })

  it("an id-like task", () => {
    failsWith(
      LIST,
      { op: "start", task: "#2" },
      'Tasks have no ids or numbers; address a task by its exact text, not "#2". Open tasks: "Test", "Wire", "Keys", …and 1 more.',
      0,
    )
  })

  it("a task named with the wrong phase", () => {
    failsWith(
      LIST,
      { op: "done", task: "Tag", phase: "Build" },
      'Task "Tag" is in phase "Ship", not "Build"; leave out "phase" or give "Ship".',
      0,
    )
  })

  it("a duplicate append", () => {
    failsWith(
      LIST,
      { phase: "Ship", items: ["New", "Wire"] },
      'Task "Wire" already exists (phase "Build", pending); task texts must be unique.',
      0,
    )
  })

  it("a duplicate init", () => {
    failsWith(
      LIST,
      { op: "init", items: ["a", "a"] },
      'Duplicate task "a" in phase "Tasks"; task texts must be unique.',
      0,
    )
  })
})

describe("execute: batches", () => {
  it("applies every op in order, then auto-starts once, after the last op", () => {
    const result = ok(
      execute(LIST, {
        ops: [
          { op: "done", task: "Test" },
          // Nothing starts between ops: "Wire" is still pending when it is done.
          { op: "done", task: "Wire" },
          { phase: "Ship", items: ["Announce"] },
        ],
      }),
    )
    expect(result.list).toEqual([
      { name: "Build", tasks: [t("Parse", "completed"), t("Test", "completed"), t("Wire", "completed")] },
      { name: "Ship", tasks: [t("Keys", "blocked", "ops"), t("Tag", "in_progress"), t("Announce")] },
    ])
    expect(result.changes).toEqual([
      { kind: "status", task: "Test", from: "in_progress", to: "completed" },
      { kind: "status", task: "Wire", from: "pending", to: "completed" },
      { kind: "added", phase: "Ship", tasks: ["Announce"], newPhase: false },
      { kind: "status", task: "Tag", from: "pending", to: "in_progress", auto: "promoted" },
    ])
    expect(result.ops.map((o) => o.op)).toEqual(["done", "done", "append"])
  })

  it("done then append: the task appended to the same phase is the one that starts", () => {
    const list: TodoList = [
      { name: "Build", tasks: [t("Parse", "completed"), t("Test", "in_progress")] },
      { name: "Ship", tasks: [t("Tag")] },
    ]
    const result = ok(
      execute(list, {
        ops: [
          { op: "done", task: "Test" },
          { op: "append", phase: "Build", items: ["Fix the flake"] },
        ],
      }),
    )
    expect(result.list).toEqual([
      {
        name: "Build",
        tasks: [t("Parse", "completed"), t("Test", "completed"), t("Fix the flake", "in_progress")],
      },
      { name: "Ship", tasks: [t("Tag")] },
    ])
  })

  it("rm then append after a task: the replacement starts, nothing in the next phase does", () => {
    const list: TodoList = [
      { name: "Build", tasks: [t("Parse", "completed"), t("Test", "in_progress")] },
      { name: "Ship", tasks: [t("Tag")] },
    ]
    const result = ok(
      execute(list, {
        ops: [
          { op: "rm", task: "Test" },
          { op: "append", after: "Parse", items: ["Test the parser"] },
        ],
      }),
    )
    expect(result.list).toEqual([
      { name: "Build", tasks: [t("Parse", "completed"), t("Test the parser", "in_progress")] },
      { name: "Ship", tasks: [t("Tag")] },
    ])
    expect(result.changes.filter((c) => c.kind === "status")).toEqual([
      { kind: "status", task: "Test the parser", from: "pending", to: "in_progress", auto: "promoted" },
    ])
  })

  it("a failure at op k leaves the list unchanged and names op k", () => {
    failsWith(
      LIST,
      {
        ops: [
          { op: "done", task: "Test" },
          { op: "done", task: "Wire" },
          { op: "drop", task: "Parse" },
        ],
      },
      'op 3 (drop) failed: Task "Parse" is already done; use rm to remove it.',
      2,
    )
  })

  it("a parse failure inside a batch names the op, inferred or not", () => {
    failsWith(
      LIST,
      { ops: [{ op: "view" }, { phase: "Ship", items: "x" }] },
      'op 2 (append) failed: "items" must be an array of strings; got a string.',
      1,
    )
    failsWith(
      LIST,
      { ops: [{ op: "view" }, "done"] },
      'op 2 failed: An op must be an object like {"op": "done", "task": "..."}; got a string.',
      1,
    )
  })

  it("a later op sees what an earlier op did", () => {
    const result = ok(
      execute(LIST, {
        ops: [
          { phase: "Ship", items: ["New"] },
          { op: "start", task: "New" },
        ],
      }),
    )
    expect(result.list[1]!.tasks).toEqual([t("Keys", "blocked", "ops"), t("Tag"), t("New", "in_progress")])
    failsWith(
      LIST,
      {
        ops: [
          { op: "rm", task: "Tag" },
          { op: "done", task: "Tag" },
        ],
      },
      'op 2 (done) failed: No task "Tag". Tasks are addressed by their exact text. Open tasks: "Test", "Wire", "Keys".',
      1,
    )
  })

  it("inference in a batch sees the list as earlier ops left it", () => {
    const result = ok(execute(LIST, { ops: [{ op: "rm" }, { items: ["fresh"] }] }))
    expect(result.list).toEqual([{ name: "Tasks", tasks: [t("fresh", "in_progress")] }])
  })

  it("a one-op batch still names the op", () => {
    failsWith(
      LIST,
      { ops: [{ op: "unblock", task: "Tag" }] },
      'op 1 (unblock) failed: Task "Tag" is not blocked; it is pending.',
      0,
    )
  })

  it("enforces the ops-per-call limit", () => {
    const limits = { ...DEFAULT_LIMITS, maxOpsPerCall: 1 }
    const result = execute(LIST, { ops: [{ op: "view" }, { op: "view" }] }, limits)
    expect(result).toEqual({
      ok: false,
      list: LIST,
      error: "The call has 2 ops; the limit is 1. Split it into several calls.",
    })
    expect(result.list).toBe(LIST)
  })
})

describe("executeOps", () => {
  it("runs typed ops, including done on everything", () => {
    const result = ok(executeOps(LIST, [{ op: "done", target: { kind: "all" } }]))
    expect(result.list).toEqual([
      { name: "Build", tasks: [t("Parse", "completed"), t("Test", "completed"), t("Wire", "completed")] },
      { name: "Ship", tasks: [t("Keys", "completed"), t("Tag", "completed")] },
    ])
  })

  it("drop on everything keeps done tasks done", () => {
    const result = ok(executeOps(LIST, [{ op: "drop", target: { kind: "all" } }]))
    expect(result.list[0]!.tasks).toEqual([
      t("Parse", "completed"),
      t("Test", "abandoned"),
      t("Wire", "abandoned"),
    ])
    expect(result.list[1]!.tasks).toEqual([t("Keys", "abandoned"), t("Tag", "abandoned")])
  })

  it("one failing op is reported without a batch prefix; several with it", () => {
    const bad: Op = { op: "unblock", target: { kind: "task", text: "Tag" } }
    expect(executeOps(LIST, [bad])).toEqual({
      ok: false,
      list: LIST,
      error: 'Task "Tag" is not blocked; it is pending.',
      opIndex: 0,
    })
    const result = executeOps(LIST, [{ op: "view" }, bad])
    expect(result).toEqual({
      ok: false,
      list: LIST,
      error: 'op 2 (unblock) failed: Task "Tag" is not blocked; it is pending.',
      opIndex: 1,
    })
    expect(result.list).toBe(LIST)
  })

  it("no ops is a success that changes nothing", () => {
    const result = ok(executeOps(LIST, []))
    expect(result.list).toBe(LIST)
    expect(result.changes).toEqual([])
  })

  it("enforces the ops-per-call limit", () => {
    const limits = { ...DEFAULT_LIMITS, maxOpsPerCall: 1 }
    expect(executeOps(LIST, [{ op: "view" }, { op: "view" }], limits)).toEqual({
      ok: false,
      list: LIST,
      error: "The call has 2 ops; the limit is 1. Split it into several calls.",
    })
  })
})

describe("execute: rename", () => {
  it("renames a task in place, keeping its status and its blocker", () => {
    const result = ok(execute(LIST, { op: "rename", task: "Keys", to: "Get the deploy keys" }))
    expect(result.list).toEqual([
      LIST[0],
      { name: "Ship", tasks: [t("Get the deploy keys", "blocked", "ops"), t("Tag")] },
    ])
    expect(result.changes).toEqual([
      { kind: "renamed", what: "task", from: "Keys", to: "Get the deploy keys" },
    ])
    expect(result.list[0]).toBe(LIST[0])
  })

  it("renames the task in progress without starting anything else", () => {
    const result = ok(execute(LIST, { op: "rename", task: "Test", to: "Test the parser" }))
    expect(result.list[0]!.tasks).toEqual([
      t("Parse", "completed"),
      t("Test the parser", "in_progress"),
      t("Wire"),
    ])
    expect(result.changes).toHaveLength(1)
  })

  it("renames a phase in place, keeping its tasks", () => {
    const result = ok(execute(LIST, { op: "rename", phase: "Ship", to: "Release" }))
    expect(result.list).toEqual([LIST[0], { name: "Release", tasks: LIST[1]!.tasks }])
    expect(result.changes).toEqual([{ kind: "renamed", what: "phase", from: "Ship", to: "Release" }])
  })

  it("trims the new text and checks it like any task text", () => {
    expect(ok(execute(LIST, { op: "rename", task: "Tag", to: "  Tag v2 " })).list[1]!.tasks[1]).toEqual(
      t("Tag v2"),
    )
    expect(execute(LIST, { op: "rename", task: "Tag", to: "x".repeat(301) }).ok).toBe(false)
  })

  it("refuses a new text that another task has, saying what to do instead", () => {
    failsWith(
      LIST,
      { op: "rename", task: "Tag", to: "Wire" },
      'Task "Wire" already exists (phase "Build", pending); give a text no other task has, or rm one of the two.',
      0,
    )
    failsWith(
      LIST,
      { op: "rename", phase: "Ship", to: "Build" },
      'Phase "Build" already exists; give a name no other phase has, or rm one of the two.',
      0,
    )
  })

  it("refuses a rename without a new text, or with neither task nor phase", () => {
    failsWith(
      LIST,
      { op: "rename", task: "Tag" },
      'rename needs "to": the new exact text of the task or the new name of the phase.',
      0,
    )
    failsWith(
      LIST,
      { op: "rename", to: "New" },
      'rename needs "task" (the exact task text) or "phase" (a phase name), and "to".',
      0,
    )
  })

  it("renaming to the same text is a success that changes nothing", () => {
    const result = ok(execute(LIST, { op: "rename", task: "Tag", to: "Tag" }))
    expect(result.list).toBe(LIST)
  })

  it("a batch can rename and then address the task by its new text", () => {
    const result = ok(
      execute(LIST, {
        ops: [
          { op: "rename", task: "Wire", to: "Wire the CLI" },
          { op: "start", task: "Wire the CLI" },
        ],
      }),
    )
    expect(result.list[0]!.tasks).toEqual([
      t("Parse", "completed"),
      t("Test"),
      t("Wire the CLI", "in_progress"),
    ])
  })

  it("a batch can init and then rename a task init made: one rename, then one auto-start by the new text", () => {
    const result = ok(
      execute(LIST, {
        ops: [
          { op: "init", list: [{ phase: "Build", items: ["Wire"] }] },
          { op: "rename", task: "Wire", to: "Ship" },
        ],
      }),
    )
    expect(result.list).toEqual([{ name: "Build", tasks: [t("Ship", "in_progress")] }])
    expect(result.changes.slice(1)).toEqual([
      { kind: "renamed", what: "task", from: "Wire", to: "Ship" },
      { kind: "status", task: "Ship", from: "pending", to: "in_progress", auto: "promoted" },
    ])
  })
})

describe("execute: append after a task", () => {
  it("inserts the items right after the task, in its phase", () => {
    const result = ok(execute(LIST, { op: "append", after: "Parse", items: ["Lex", "Fuzz"] }))
    expect(result.list[0]!.tasks.map((x) => x.text)).toEqual(["Parse", "Lex", "Fuzz", "Test", "Wire"])
    expect(result.changes).toEqual([
      { kind: "added", phase: "Build", tasks: ["Lex", "Fuzz"], newPhase: false, after: "Parse" },
    ])
  })

  it("takes a phase that agrees with the task's, and refuses one that does not", () => {
    ok(execute(LIST, { op: "append", phase: "Build", after: "Wire", items: ["Lex"] }))
    failsWith(
      LIST,
      { op: "append", phase: "Ship", after: "Wire", items: ["Lex"] },
      'Task "Wire" is in phase "Build", not "Ship". Leave out "phase" to insert after the task, or "after" to add at the end of "Ship".',
      0,
    )
  })

  it("an unknown after task is an error with the closest candidates", () => {
    failsWith(
      LIST,
      { op: "append", after: "wire", items: ["Lex"] },
      'No task "wire". Tasks are addressed by their exact text. Closest: "Wire".',
      0,
    )
  })

  it("append with neither phase nor after says what it needs", () => {
    failsWith(
      LIST,
      { op: "append", items: ["Lex"] },
      'append needs "phase" (created at the end if missing) or "after" (a task to insert after).',
      0,
    )
  })
})

describe("execute: drop with a reason", () => {
  it("keeps the reason on the dropped task", () => {
    const result = ok(execute(LIST, { op: "drop", task: "Tag", reason: "the changelog is generated" }))
    expect(result.list[1]!.tasks[1]).toEqual(t("Tag", "abandoned", "the changelog is generated"))
    expect(result.changes[0]).toEqual({
      kind: "status",
      task: "Tag",
      from: "pending",
      to: "abandoned",
      reason: "the changelog is generated",
    })
  })

  it("dropping a blocked task without a reason clears the blocker; with one, replaces it", () => {
    expect(ok(execute(LIST, { op: "drop", task: "Keys" })).list[1]!.tasks[0]).toEqual(t("Keys", "abandoned"))
    expect(ok(execute(LIST, { op: "drop", task: "Keys", reason: "no deploy" })).list[1]!.tasks[0]).toEqual(
      t("Keys", "abandoned", "no deploy"),
    )
  })

  it("a phase drop gives every task it drops the reason", () => {
    const result = ok(execute(LIST, { op: "drop", phase: "Ship", reason: "out of scope" }))
    expect(result.list[1]!.tasks).toEqual([
      t("Keys", "abandoned", "out of scope"),
      t("Tag", "abandoned", "out of scope"),
    ])
  })

  it("the reason goes when the task is reopened or done", () => {
    const dropped = ok(execute(LIST, { op: "drop", task: "Tag", reason: "later" })).list
    expect(ok(execute(dropped, { op: "start", task: "Tag" })).list[1]!.tasks[1]).toEqual(
      t("Tag", "in_progress"),
    )
    expect(ok(execute(dropped, { op: "done", task: "Tag" })).list[1]!.tasks[1]).toEqual(t("Tag", "completed"))
  })

  it("a drop reason on a task already dropped for another reason replaces it", () => {
    const dropped = ok(execute(LIST, { op: "drop", task: "Tag", reason: "later" })).list
    expect(ok(execute(dropped, { op: "drop", task: "Tag", reason: "never" })).list[1]!.tasks[1]).toEqual(
      t("Tag", "abandoned", "never"),
    )
  })
})
