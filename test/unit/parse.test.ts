// Pins the argument parser: explicit ops, the inference matrix, every field error, batches, snapshots.

import { describe, expect, it } from "vitest"
import {
  batchError,
  describeValue,
  opNameOf,
  parseOp,
  parseSnapshot,
  splitCall,
} from "../../src/core/list/parse.ts"
import type { Limits, Op, TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { DEFAULT_PHASE } from "../../src/core/list/words.ts"

const EMPTY: TodoList = []
const LIST: TodoList = [{ name: "Build", tasks: [{ text: "A", status: "in_progress" }] }]
const OPS = "init, start, done, drop, block, unblock, rm, append, rename, view"

function op(raw: unknown, list: TodoList = LIST, limits: Limits = DEFAULT_LIMITS): Op {
  const result = parseOp(raw, list, limits)
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`)
  return result.value
}

function err(raw: unknown, list: TodoList = LIST, limits: Limits = DEFAULT_LIMITS): string {
  const result = parseOp(raw, list, limits)
  if (result.ok) throw new Error(`expected failure, got ${JSON.stringify(result.value)}`)
  return result.error
}

describe("describeValue", () => {
  it("names every JSON kind", () => {
    expect([undefined, null, [], [1], "", " ", "x", 3, true, {}].map(describeValue)).toEqual([
      "nothing",
      "null",
      "an empty array",
      "an array",
      "an empty string",
      "an empty string",
      "a string",
      "a number",
      "a boolean",
      "an object",
    ])
  })
})

describe("explicit ops", () => {
  it("parses each target op with a task", () => {
    for (const name of ["start", "done", "drop", "unblock", "rm"] as const)
      expect(op({ op: name, task: " A " })).toEqual({ op: name, target: { kind: "task", text: "A" } })
  })

  it("parses each op that accepts a phase", () => {
    for (const name of ["done", "drop", "block", "unblock", "rm"] as const)
      expect(op({ op: name, phase: " Build " })).toEqual({
        op: name,
        target: { kind: "phase", name: "Build" },
      })
  })

  it("keeps the phase beside a task so the reducer can check it", () => {
    expect(op({ op: "done", task: "A", phase: "Build" })).toEqual({
      op: "done",
      target: { kind: "task", text: "A", phase: "Build" },
    })
    expect(op({ op: "start", task: "A", phase: "Build" })).toEqual({
      op: "start",
      target: { kind: "task", text: "A", phase: "Build" },
    })
  })

  it("parses block with and without a reason", () => {
    expect(op({ op: "block", task: "A", reason: " waiting on ops " })).toEqual({
      op: "block",
      target: { kind: "task", text: "A" },
      reason: "waiting on ops",
    })
    expect(op({ op: "block", task: "A" })).toEqual({ op: "block", target: { kind: "task", text: "A" } })
    expect(op({ op: "block", task: "A", reason: "line one\n  line two" })).toEqual({
      op: "block",
      target: { kind: "task", text: "A" },
      reason: "line one line two",
    })
  })

  it("rm with neither task nor phase targets everything", () => {
    expect(op({ op: "rm" })).toEqual({ op: "rm", target: { kind: "all" } })
    expect(op({ op: "rm", task: null, phase: null })).toEqual({ op: "rm", target: { kind: "all" } })
  })

  it("parses view, ignoring other fields", () => {
    expect(op({ op: "view", task: "A", items: 3 })).toEqual({ op: "view" })
  })

  it("parses init in both forms", () => {
    expect(op({ op: "init", items: [" a ", "b"] })).toEqual({
      op: "init",
      list: [{ phase: DEFAULT_PHASE, items: ["a", "b"] }],
    })
    expect(DEFAULT_PHASE).toBe("Tasks")
    expect(op({ op: "init", items: ["a"], phase: " Plan " })).toEqual({
      op: "init",
      list: [{ phase: "Plan", items: ["a"] }],
    })
    expect(
      op({
        op: "init",
        list: [
          { phase: "P", items: ["a"] },
          { phase: " Q", items: ["b", "c"] },
        ],
      }),
    ).toEqual({
      op: "init",
      list: [
        { phase: "P", items: ["a"] },
        { phase: "Q", items: ["b", "c"] },
      ],
    })
  })

  it("parses append", () => {
    expect(op({ op: "append", phase: " Build ", items: ["x ", " y"] })).toEqual({
      op: "append",
      phase: "Build",
      items: ["x", "y"],
    })
  })

  it("accepts the op name in any case and with spaces", () => {
    expect(op({ op: " DONE ", task: "A" })).toEqual({ op: "done", target: { kind: "task", text: "A" } })
  })

  it("ignores unknown extra keys", () => {
    expect(op({ op: "done", task: "A", id: 7, note: "x", status: "completed" })).toEqual({
      op: "done",
      target: { kind: "task", text: "A" },
    })
  })

  it("treats null and blank fields as absent", () => {
    expect(op({ op: "done", task: "A", phase: null, reason: "", items: null, list: null })).toEqual({
      op: "done",
      target: { kind: "task", text: "A" },
    })
    expect(op({ op: "done", task: "", phase: "Build" })).toEqual({
      op: "done",
      target: { kind: "phase", name: "Build" },
    })
    expect(op({ op: "block", task: "A", reason: "  " })).toEqual({
      op: "block",
      target: { kind: "task", text: "A" },
    })
    expect(op({ op: "init", items: ["a"], phase: "" })).toEqual({
      op: "init",
      list: [{ phase: "Tasks", items: ["a"] }],
    })
  })

  it("treats empty arrays as schema filler, not as a shape", () => {
    expect(op({ op: "done", task: "A", items: [], list: [] })).toEqual({
      op: "done",
      target: { kind: "task", text: "A" },
    })
    expect(err({ task: "A", items: [], list: [] }, EMPTY)).toMatch(/^No "op" given\. Give "op"/)
  })

  it("reads a reason on every op on a target but rename", () => {
    for (const name of ["drop", "block", "unblock", "done", "start", "rm"] as const)
      expect(op({ op: name, task: "A", reason: "obsolete" }), name).toEqual({
        op: name,
        target: { kind: "task", text: "A" },
        reason: "obsolete",
      })
    expect(op({ op: "rename", task: "A", to: "B", reason: "obsolete" })).toEqual({
      op: "rename",
      target: { kind: "task", text: "A" },
      to: "B",
    })
  })

  it("reads rename's new text and append's after task", () => {
    expect(op({ op: "rename", task: "A", to: " B " })).toEqual({
      op: "rename",
      target: { kind: "task", text: "A" },
      to: "B",
    })
    expect(op({ op: "rename", phase: "P", to: "Q" })).toEqual({
      op: "rename",
      target: { kind: "phase", name: "P" },
      to: "Q",
    })
    expect(op({ after: "A", items: ["b"] })).toEqual({ op: "append", after: "A", items: ["b"] })
  })

  it("refuses rm with no target beside another op's fields, so nothing is cleared by mistake", () => {
    expect(parseOp({ op: "rm", to: "New" }, [])).toEqual({
      ok: false,
      error:
        'rm with no "task" or "phase" clears the whole list, but the call also has "to". Give "task" or "phase", or send rm alone to clear everything.',
    })
  })
})

describe("inference matrix", () => {
  const cases: { shape: unknown; empty: Op | string; nonEmpty: Op | string }[] = [
    {
      shape: { list: [{ phase: "P", items: ["a"] }] },
      empty: { op: "init", list: [{ phase: "P", items: ["a"] }] },
      nonEmpty: { op: "init", list: [{ phase: "P", items: ["a"] }] },
    },
    {
      shape: { phase: "P", items: ["a"] },
      empty: { op: "append", phase: "P", items: ["a"] },
      nonEmpty: { op: "append", phase: "P", items: ["a"] },
    },
    {
      shape: { items: ["a"] },
      empty: { op: "init", list: [{ phase: "Tasks", items: ["a"] }] },
      nonEmpty:
        'No "op" given, and bare "items" only starts a list when the list is empty. To add tasks give "phase" too (append); to replace the list give "op": "init".',
    },
  ]
  const NO_OP = `No "op" given. Give "op" (one of ${OPS}), or use a shape that implies it: {list} starts a list, {phase, items} appends, {items} starts a list when it is empty.`
  for (const rejected of [
    {},
    { task: "A" },
    { phase: "Build" },
    { reason: "x" },
    { task: "A", phase: "Build" },
  ])
    cases.push({ shape: rejected, empty: NO_OP, nonEmpty: NO_OP })

  for (const { shape, empty, nonEmpty } of cases) {
    for (const [label, list, expected] of [
      ["empty", EMPTY, empty],
      ["non-empty", LIST, nonEmpty],
    ] as const) {
      it(`${JSON.stringify(shape)} on an ${label} list`, () => {
        if (typeof expected === "string") expect(err(shape, list)).toBe(expected)
        else expect(op(shape, list)).toEqual(expected)
      })
    }
  }

  it("a list with only empty phases is not empty for inference", () => {
    expect(err({ items: ["a"] }, [{ name: "P", tasks: [] }])).toMatch(/^No "op" given, and bare "items"/)
  })

  it("{list} together with items is rejected, inferred or explicit", () => {
    const both = 'Give either "list" (phases with items) or "items" (one phase), not both.'
    expect(err({ list: [{ phase: "P", items: ["a"] }], items: ["b"] }, EMPTY)).toBe(both)
    expect(err({ op: "init", list: [{ phase: "P", items: ["a"] }], items: ["b"] })).toBe(both)
  })

  it("opNameOf reports the explicit or inferred op", () => {
    expect(opNameOf({ op: "Done" }, LIST)).toBe("done")
    expect(opNameOf({ list: [1] }, LIST)).toBe("init")
    expect(opNameOf({ phase: "P", items: [1] }, LIST)).toBe("append")
    expect(opNameOf({ items: [1] }, EMPTY)).toBe("init")
    expect(opNameOf({ items: [1] }, LIST)).toBeUndefined()
    expect(opNameOf({ items: [] }, EMPTY)).toBeUndefined()
    expect(opNameOf({ op: "finish" }, LIST)).toBeUndefined()
    expect(opNameOf("done", LIST)).toBeUndefined()
  })
})

describe("field errors", () => {
  it("rejects a non-object op", () => {
    expect(err("done A")).toBe('An op must be an object like {"op": "done", "task": "..."}; got a string.')
    expect(err(null)).toBe('An op must be an object like {"op": "done", "task": "..."}; got null.')
    expect(err([{ op: "view" }])).toBe(
      'An op must be an object like {"op": "done", "task": "..."}; got an array.',
    )
  })

  it("rejects an unknown or mistyped op", () => {
    expect(err({ op: "complete", task: "A" })).toBe(
      `Unknown op "complete"; use "done": {"op":"done","task":"A"}. All ops: ${OPS}.`,
    )
    expect(err({ op: "frobnicate", task: "A" })).toBe(`Unknown op "frobnicate". Use one of: ${OPS}.`)
    expect(err({ op: 3 })).toBe(`"op" must be a string, one of ${OPS}; got a number.`)
  })

  it("rejects a nested batch", () => {
    expect(err({ ops: [{ op: "view" }] })).toBe(
      'Batches cannot nest; "ops" belongs only at the top level of the call.',
    )
  })

  it("names the missing target for each op that needs one", () => {
    for (const name of ["done", "drop", "block", "unblock"])
      expect(err({ op: name })).toBe(`${name} needs "task" (the exact task text) or "phase" (a phase name).`)
    expect(err({ op: "start" })).toBe('start needs "task": the exact text of the task to start.')
  })

  it("points at misnamed fields when the target is missing", () => {
    expect(err({ op: "done", text: "A", id: 3 })).toBe(
      'done needs "task" (the exact task text) or "phase" (a phase name). Unrecognized: "text", "id".',
    )
    expect(err({ op: "start", name: "A" })).toBe(
      'start needs "task": the exact text of the task to start. Unrecognized: "name".',
    )
  })

  it("start refuses a phase", () => {
    expect(err({ op: "start", phase: "Build" })).toBe(
      'start takes a "task", not a "phase"; give the exact text of the task to start.',
    )
  })

  it("rejects mistyped task, phase and reason", () => {
    expect(err({ op: "done", task: 3 })).toBe(
      '"task" must be the exact text of one task (a string); got a number.',
    )
    expect(err({ op: "done", task: ["A", "B"] })).toBe(
      '"task" must be the exact text of one task (a string); got an array. To act on several tasks, send "ops": [{...}, {...}].',
    )
    expect(err({ op: "done", task: { text: "A" } })).toBe(
      '"task" must be the exact text of one task (a string); got an object.',
    )
    expect(err({ op: "done", phase: 2 })).toBe('"phase" must be a phase name (a string); got a number.')
    expect(err({ op: "block", task: "A", reason: false })).toBe(
      '"reason" must be a one-line reason (a string); got a boolean.',
    )
  })

  it("rejects an over-long reason", () => {
    const limits = { ...DEFAULT_LIMITS, maxTaskChars: 4 }
    expect(err({ op: "block", task: "A", reason: "12345" }, LIST, limits)).toBe(
      'Blocker reason "12345" is 5 characters; the limit is 4. Shorten it.',
    )
  })

  it("rm refuses blank targets rather than clearing everything", () => {
    expect(err({ op: "rm", task: " " })).toBe(
      '"task" is empty. Give the exact task text, or leave out both "task" and "phase" to clear the whole list.',
    )
    expect(err({ op: "rm", phase: "" })).toBe(
      '"phase" is empty. Give the exact phase name, or leave out both "task" and "phase" to clear the whole list.',
    )
  })

  it("rm refuses to clear everything when the call carries a misnamed target", () => {
    expect(err({ op: "rm", text: "A" })).toBe(
      'rm with no "task" or "phase" clears the whole list, but the call also has "text". Give "task" or "phase", or send rm alone to clear everything.',
    )
  })

  it("rejects bad items", () => {
    expect(err({ op: "append", phase: "P", items: "a, b" })).toBe(
      '"items" must be an array of strings; got a string.',
    )
    expect(err({ op: "append", phase: "P" })).toBe('"items" must be an array of strings; got nothing.')
    expect(err({ op: "append", phase: "P", items: [] })).toBe(
      '"items" is empty; give at least one task text.',
    )
    expect(err({ op: "append", phase: "P", items: ["a", 2] })).toBe(
      '"items" must be an array of strings; item 2 is a number.',
    )
    expect(err({ op: "append", phase: "P", items: ["a", " "] })).toBe(
      '"items" item 2 is empty; give each task a short description.',
    )
    expect(err({ op: "append", phase: "P", items: ["two\nlines"] })).toBe(
      'Task "two lines" spans several lines; keep it to one line.',
    )
    expect(
      err({ op: "append", phase: "P", items: ["abcdef"] }, LIST, { ...DEFAULT_LIMITS, maxTaskChars: 5 }),
    ).toBe('Task "abcdef" is 6 characters; the limit is 5. Shorten it.')
    expect(err({ items: { a: 1 } }, EMPTY)).toBe('"items" must be an array of strings; got an object.')
  })

  it("rejects append without a phase", () => {
    expect(err({ op: "append", items: ["a"] })).toBe(
      'append needs "phase" (created at the end if missing) or "after" (a task to insert after).',
    )
    expect(err({ op: "append", phase: 5, items: ["a"] })).toBe(
      '"phase" must be a phase name (a string); got a number.',
    )
  })

  it("rejects an over-long phase name", () => {
    const limits = { ...DEFAULT_LIMITS, maxTaskChars: 3 }
    expect(err({ op: "append", phase: "Long", items: ["a"] }, LIST, limits)).toBe(
      'Phase name "Long" is 4 characters; the limit is 3. Shorten it.',
    )
    expect(err({ op: "init", phase: "Long", items: ["a"] }, LIST, limits)).toBe(
      'Phase name "Long" is 4 characters; the limit is 3. Shorten it.',
    )
  })

  it("rejects init with neither list nor items", () => {
    expect(err({ op: "init" })).toBe(
      'init needs "list" (an array of {phase, items}) or "items" (an array of task texts).',
    )
  })

  it("rejects a bad list, naming the element and field", () => {
    expect(err({ list: "a" })).toBe('"list" must be an array of {phase, items}; got a string.')
    expect(err({ list: ["Build"] })).toBe('"list" item 1 must be an object {phase, items}; got a string.')
    expect(err({ list: [{ phase: "P", items: ["a"] }, { items: ["b"] }] })).toBe(
      '"list" item 2: "phase" must be a phase name (a string); got nothing.',
    )
    expect(err({ list: [{ phase: 1, items: ["b"] }] })).toBe(
      '"list" item 1: "phase" must be a phase name (a string); got a number.',
    )
    expect(err({ list: [{ phase: " ", items: ["b"] }] })).toBe(
      '"list" item 1: "phase" is empty; give the phase a name.',
    )
    expect(err({ list: [{ phase: "P", items: "b" }] })).toBe(
      '"list" item 1: "items" must be an array of strings; got a string.',
    )
    expect(err({ list: [{ phase: "P", items: [] }] })).toBe(
      '"list" item 1: "items" is empty; give at least one task text.',
    )
    expect(err({ list: [{ phase: "P", items: ["a", ""] }] })).toBe(
      '"list" item 1: "items" item 2 is empty; give each task a short description.',
    )
    expect(err({ op: "init", list: [] })).toBe(
      'init needs "list" (an array of {phase, items}) or "items" (an array of task texts).',
    )
  })
})

describe("splitCall", () => {
  it("a plain object is one op", () => {
    expect(splitCall({ op: "view" })).toEqual({ ok: true, value: { batch: false, raws: [{ op: "view" }] } })
  })

  it("ops is a batch", () => {
    const raws = [{ op: "view" }, { op: "rm" }]
    expect(splitCall({ ops: raws })).toEqual({ ok: true, value: { batch: true, raws } })
  })

  it("an empty ops array beside a single op's fields is schema filler", () => {
    const raw = { op: "done", task: "A", ops: [] }
    expect(splitCall(raw)).toEqual({ ok: true, value: { batch: false, raws: [raw] } })
  })

  it("rejects malformed calls", () => {
    expect(splitCall("view")).toEqual({
      ok: false,
      error: 'Arguments must be an object with "op" and its fields; got a string.',
    })
    expect(splitCall({ ops: { op: "view" } })).toEqual({
      ok: false,
      error: '"ops" must be an array of ops; got an object.',
    })
    expect(splitCall({ ops: [] })).toEqual({ ok: false, error: '"ops" is empty; give at least one op.' })
    expect(splitCall({ ops: [{ op: "view" }], op: "done", task: "A" })).toEqual({
      ok: false,
      error: 'Give either "ops" (a batch) or one op\'s fields, not both; found "op", "task" beside "ops".',
    })
  })

  it("enforces the ops-per-call limit", () => {
    const limits = { ...DEFAULT_LIMITS, maxOpsPerCall: 2 }
    expect(splitCall({ ops: [{ op: "view" }, { op: "view" }] }, limits).ok).toBe(true)
    expect(splitCall({ ops: [{ op: "view" }, { op: "view" }, { op: "view" }] }, limits)).toEqual({
      ok: false,
      error: "The call has 3 ops; the limit is 2. Split it into several calls.",
    })
  })

  it("batchError formats with and without a name", () => {
    expect(batchError(0, "rm", "Boom.")).toBe("op 1 (rm) failed: Boom.")
    expect(batchError(4, undefined, "Boom.")).toBe("op 5 failed: Boom.")
  })
})

describe("parseSnapshot", () => {
  const good = [
    {
      name: "Build",
      tasks: [
        { text: "A", status: "completed" },
        { text: "B", status: "blocked", blocker: "keys", extra: 1 },
        { text: "C", status: "pending", blocker: null },
      ],
      color: "red",
    },
    { name: "Empty", tasks: [] },
  ]

  it("parses a stored list, dropping unknown keys", () => {
    expect(parseSnapshot(good)).toEqual({
      ok: true,
      value: [
        {
          name: "Build",
          tasks: [
            { text: "A", status: "completed" },
            { text: "B", status: "blocked", blocker: "keys" },
            { text: "C", status: "in_progress" },
          ],
        },
        { name: "Empty", tasks: [] },
      ],
    })
  })

  it("hands back a list stored before the normal form in the normal form", () => {
    const stored = (statuses: string[]) => [
      { name: "P", tasks: statuses.map((status, i) => ({ text: `t${i}`, status })) },
    ]
    const statuses = (raw: unknown) => {
      const parsed = parseSnapshot(raw)
      return parsed.ok ? parsed.value[0]!.tasks.map((task) => task.status) : parsed.error
    }
    expect(statuses(stored(["completed", "pending", "pending"]))).toEqual([
      "completed",
      "in_progress",
      "pending",
    ])
    expect(statuses(stored(["in_progress", "pending", "in_progress"]))).toEqual([
      "in_progress",
      "pending",
      "pending",
    ])
    expect(statuses(stored(["blocked", "abandoned"]))).toEqual(["blocked", "abandoned"])
  })

  it("trims texts and drops blank blockers", () => {
    expect(
      parseSnapshot([{ name: " P ", tasks: [{ text: " a ", status: "blocked", blocker: " " }] }]),
    ).toEqual({
      ok: true,
      value: [{ name: "P", tasks: [{ text: "a", status: "blocked" }] }],
    })
  })

  it("accepts an empty list", () => {
    expect(parseSnapshot([])).toEqual({ ok: true, value: [] })
  })

  const bad: [unknown, string][] = [
    [{}, "The stored list must be an array of phases; got an object."],
    [["x"], "Phase 1 must be an object {name, tasks}; got a string."],
    [[{ tasks: [] }], 'Phase 1: "name" must be a string; got nothing.'],
    [[{ name: "P", tasks: {} }], 'Phase 1: "tasks" must be an array of tasks; got an object.'],
    [
      [
        { name: "P", tasks: [] },
        { name: "Q", tasks: [3] },
      ],
      "Phase 2, task 1 must be an object {text, status, blocker?}; got a number.",
    ],
    [
      [{ name: "P", tasks: [{ status: "pending" }] }],
      'Phase 1, task 1: "text" must be a string; got nothing.',
    ],
    [
      [{ name: "P", tasks: [{ text: "a", status: "done" }] }],
      'Phase 1, task 1: "status" must be one of pending, in_progress, completed, abandoned, blocked; got "done".',
    ],
    [
      [{ name: "P", tasks: [{ text: "a" }] }],
      'Phase 1, task 1: "status" must be one of pending, in_progress, completed, abandoned, blocked; got nothing.',
    ],
    [
      [{ name: "P", tasks: [{ text: "a", status: "blocked", blocker: 1 }] }],
      'Phase 1, task 1: "blocker" must be a string; got a number.',
    ],
    [
      [{ name: "P", tasks: [{ text: "a", status: "pending", blocker: "x" }] }],
      'Task "a" has a reason but is pending; only blocked and dropped tasks carry one.',
    ],
    [
      [
        { name: "P", tasks: [{ text: "a", status: "pending" }] },
        { name: "Q", tasks: [{ text: "a ", status: "pending" }] },
      ],
      'Duplicate task "a" (in phases "P" and "Q"); task texts must be unique across the list.',
    ],
    [
      [
        { name: "P", tasks: [] },
        { name: "P", tasks: [] },
      ],
      'Duplicate phase "P"; phase names must be unique.',
    ],
  ]
  for (const [raw, message] of bad) {
    it(`rejects ${JSON.stringify(raw)}`, () => {
      expect(parseSnapshot(raw)).toEqual({ ok: false, error: message })
    })
  }

  it("applies the limits", () => {
    const limits = { ...DEFAULT_LIMITS, maxTasks: 1 }
    expect(
      parseSnapshot(
        [
          {
            name: "P",
            tasks: [
              { text: "a", status: "pending" },
              { text: "b", status: "pending" },
            ],
          },
        ],
        limits,
      ),
    ).toEqual({ ok: false, error: "The list has 2 tasks; the limit is 1. Plan at a coarser grain." })
  })
})
