// Pins each reducer: every op against every target kind and starting status, addressing, limits, normalization.

import { describe, expect, it } from "vitest"
import { applyOp, normalize } from "../../src/core/list/reducers.ts"
import type { Change, Limits, Op, Phase, Target, TaskStatus, TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS, STATUSES } from "../../src/core/list/types.ts"
import { deepFreeze as freeze, task as t } from "../fixtures/lists.ts"

/** Applies and expects success; the input is frozen so any mutation throws. */
function apply(list: TodoList, op: Op, limits: Limits = DEFAULT_LIMITS) {
  const before = structuredClone(list)
  const result = applyOp(freeze(list), op, limits)
  expect(list).toEqual(before)
  if (!result.ok) throw new Error(`expected success, got: ${result.error}`)
  return result.value
}

function applyErr(list: TodoList, op: Op, limits: Limits = DEFAULT_LIMITS): string {
  const before = structuredClone(list)
  const result = applyOp(freeze(list), op, limits)
  expect(list).toEqual(before)
  if (result.ok) throw new Error("expected failure")
  return result.error
}

const task = (text: string): Target & { kind: "task" } => ({ kind: "task", text })
const phase = (name: string): Target => ({ kind: "phase", name })
const all: Target = { kind: "all" }

/** One phase holding the target task in a given status, then a pending neighbour; a second phase stays untouched. */
function withStatus(status: TaskStatus): TodoList {
  return [
    { name: "Work", tasks: [t("Target", status, status === "blocked" ? "waits" : undefined), t("Other")] },
    { name: "Later", tasks: [t("Far")] },
  ]
}

type Expect = { to: TaskStatus; blocker?: string; change: Change } | { unchanged: true } | { error: string }

const status = (from: TaskStatus, to: TaskStatus, reason?: string): Change =>
  reason === undefined
    ? { kind: "status", task: "Target", from, to }
    : { kind: "status", task: "Target", from, to, reason }

/** What a block on a closed task says to send instead (opFor gives block the reason "keys"). */
const REOPEN_AND_BLOCK =
  ' To reopen and block it, send {"ops":[{"op":"start","task":"Target"},{"op":"block","task":"Target","reason":"keys"}]}; or to record a wait, append a task for the wait and block that.'

const TASK_TABLE: Record<"start" | "done" | "drop" | "block" | "unblock", Record<TaskStatus, Expect>> = {
  start: {
    pending: { to: "in_progress", change: status("pending", "in_progress") },
    in_progress: { unchanged: true },
    completed: { to: "in_progress", change: status("completed", "in_progress") },
    abandoned: { to: "in_progress", change: status("abandoned", "in_progress") },
    // The blocker the task had is said apart from a reason the start itself gives.
    blocked: {
      to: "in_progress",
      change: { kind: "status", task: "Target", from: "blocked", to: "in_progress", wasBlockedFor: "waits" },
    },
  },
  done: {
    pending: { to: "completed", change: status("pending", "completed") },
    in_progress: { to: "completed", change: status("in_progress", "completed") },
    completed: { unchanged: true },
    abandoned: { to: "completed", change: status("abandoned", "completed") },
    blocked: { to: "completed", change: status("blocked", "completed") },
  },
  drop: {
    pending: { to: "abandoned", change: status("pending", "abandoned") },
    in_progress: { to: "abandoned", change: status("in_progress", "abandoned") },
    completed: { error: 'Task "Target" is already done; use rm to remove it.' },
    abandoned: { unchanged: true },
    blocked: { to: "abandoned", change: status("blocked", "abandoned") },
  },
  block: {
    pending: { to: "blocked", blocker: "keys", change: status("pending", "blocked", "keys") },
    in_progress: { to: "blocked", blocker: "keys", change: status("in_progress", "blocked", "keys") },
    completed: { error: `Task "Target" is done; only open tasks can be blocked.${REOPEN_AND_BLOCK}` },
    abandoned: { error: `Task "Target" is dropped; only open tasks can be blocked.${REOPEN_AND_BLOCK}` },
    blocked: { to: "blocked", blocker: "keys", change: status("blocked", "blocked", "keys") },
  },
  unblock: {
    pending: { error: 'Task "Target" is not blocked; it is pending.' },
    in_progress: { error: 'Task "Target" is not blocked; it is in progress.' },
    completed: { error: 'Task "Target" is not blocked; it is done.' },
    abandoned: { error: 'Task "Target" is not blocked; it is dropped.' },
    blocked: { to: "pending", change: status("blocked", "pending") },
  },
}

function opFor(name: keyof typeof TASK_TABLE, target: Target & { kind: "task" }): Op {
  if (name === "start") return { op: "start", target }
  if (name === "block") return { op: "block", target, reason: "keys" }
  return { op: name, target }
}

describe("task targets: every op from every status", () => {
  for (const [name, row] of Object.entries(TASK_TABLE) as [
    keyof typeof TASK_TABLE,
    Record<TaskStatus, Expect>,
  ][]) {
    for (const from of STATUSES) {
      const expected = row[from]
      it(`${name} on a ${from} task`, () => {
        const list = withStatus(from)
        const op = opFor(name, task("Target"))
        if ("error" in expected) {
          expect(applyErr(list, op)).toBe(expected.error)
          return
        }
        const out = apply(list, op)
        if ("unchanged" in expected) {
          expect(out.list).toBe(list)
          expect(out.changes).toEqual([{ kind: "unchanged", task: "Target", status: from }])
          return
        }
        expect(out.list).toEqual([
          { name: "Work", tasks: [t("Target", expected.to, expected.blocker), t("Other")] },
          { name: "Later", tasks: [t("Far")] },
        ])
        expect(out.changes).toEqual([expected.change])
        // The phase the op did not touch is shared, not copied.
        expect(out.list[1]).toBe(list[1])
      })
    }
  }

  for (const from of STATUSES) {
    it(`rm on a ${from} task removes it and keeps the phase`, () => {
      const out = apply(withStatus(from), { op: "rm", target: task("Target") })
      expect(out.list).toEqual([
        { name: "Work", tasks: [t("Other")] },
        { name: "Later", tasks: [t("Far")] },
      ])
      expect(out.changes).toEqual([{ kind: "removed", tasks: ["Target"], phases: [] }])
    })
  }

  it("rm of the only task of a phase leaves the phase, empty", () => {
    const out = apply([{ name: "Solo", tasks: [t("Only")] }], { op: "rm", target: task("Only") })
    expect(out.list).toEqual([{ name: "Solo", tasks: [] }])
  })
})

describe("start", () => {
  it("demotes the task that was in progress, with auto demoted", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A", "in_progress"), t("B")] }]
    const out = apply(list, { op: "start", target: task("B") })
    expect(out.list).toEqual([{ name: "W", tasks: [t("A"), t("B", "in_progress")] }])
    expect(out.changes).toEqual([
      { kind: "status", task: "B", from: "pending", to: "in_progress" },
      { kind: "status", task: "A", from: "in_progress", to: "pending", auto: "demoted" },
    ])
  })

  it("reopening a done task also demotes the running one", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A", "completed"), t("B", "in_progress")] }]
    const out = apply(list, { op: "start", target: task("A") })
    expect(out.list).toEqual([{ name: "W", tasks: [t("A", "in_progress"), t("B")] }])
  })

  it("clears the blocker of a blocked task it starts", () => {
    const out = apply([{ name: "W", tasks: [t("A", "blocked", "why")] }], { op: "start", target: task("A") })
    expect(out.list[0]!.tasks[0]).toEqual({ text: "A", status: "in_progress" })
    expect("blocker" in out.list[0]!.tasks[0]!).toBe(false)
  })

  it("rejects a phase target given by a hand-built op", () => {
    const op = { op: "start", target: { kind: "phase", name: "W" } } as unknown as Op
    expect(applyErr([{ name: "W", tasks: [t("A")] }], op)).toBe(
      'start takes a "task", not a phase or the whole list.',
    )
  })
})

describe("block", () => {
  it("without a reason blocks with no blocker", () => {
    const out = apply([{ name: "W", tasks: [t("A")] }], { op: "block", target: task("A") })
    expect(out.list).toEqual([{ name: "W", tasks: [t("A", "blocked")] }])
    expect(out.changes).toEqual([{ kind: "status", task: "A", from: "pending", to: "blocked" }])
  })

  it("re-blocking with no reason keeps the old reason, unchanged", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A", "blocked", "old")] }]
    const out = apply(list, { op: "block", target: task("A") })
    expect(out.list).toBe(list)
    expect(out.changes).toEqual([{ kind: "unchanged", task: "A", status: "blocked" }])
  })

  it("re-blocking with the same reason is unchanged", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A", "blocked", "old")] }]
    expect(apply(list, { op: "block", target: task("A"), reason: "  old " }).changes).toEqual([
      { kind: "unchanged", task: "A", status: "blocked" },
    ])
  })

  it("folds a multi-line reason onto one line and trims it", () => {
    const out = apply([{ name: "W", tasks: [t("A")] }], {
      op: "block",
      target: task("A"),
      reason: "  waiting\n  on ops \r\n team ",
    })
    expect(out.list[0]!.tasks[0]).toEqual(t("A", "blocked", "waiting on ops team"))
  })

  it("treats a blank reason as none", () => {
    const out = apply([{ name: "W", tasks: [t("A")] }], { op: "block", target: task("A"), reason: "   " })
    expect(out.list[0]!.tasks[0]).toEqual(t("A", "blocked"))
  })

  it("rejects a reason over the length limit", () => {
    const limits = { ...DEFAULT_LIMITS, maxTaskChars: 5 }
    expect(
      applyErr(
        [{ name: "W", tasks: [t("A")] }],
        { op: "block", target: task("A"), reason: "abcdef" },
        limits,
      ),
    ).toBe('Blocker reason "abcdef" is 6 characters; the limit is 5. Shorten it.')
  })
})

/** One phase with a task in each status, and a second phase that must never change. */
const MIXED: TodoList = [
  {
    name: "Mixed",
    tasks: [
      t("P"),
      t("I", "in_progress"),
      t("C", "completed"),
      t("X", "abandoned"),
      t("B", "blocked", "waits"),
    ],
  },
  { name: "Other", tasks: [t("O1"), t("O2", "completed")] },
]

describe("phase targets", () => {
  it("done completes pending, in progress and blocked; closed tasks stay", () => {
    const out = apply(MIXED, { op: "done", target: phase("Mixed") })
    expect(out.list).toEqual([
      {
        name: "Mixed",
        tasks: [
          t("P", "completed"),
          t("I", "completed"),
          t("C", "completed"),
          t("X", "abandoned"),
          t("B", "completed"),
        ],
      },
      MIXED[1],
    ])
    expect(out.list[1]).toBe(MIXED[1])
    expect(out.changes).toEqual([
      { kind: "status", task: "P", from: "pending", to: "completed" },
      { kind: "status", task: "I", from: "in_progress", to: "completed" },
      { kind: "status", task: "B", from: "blocked", to: "completed" },
    ])
  })

  it("drop abandons open tasks; done and dropped tasks stay", () => {
    const out = apply(MIXED, { op: "drop", target: phase("Mixed") })
    expect(out.list[0]!.tasks).toEqual([
      t("P", "abandoned"),
      t("I", "abandoned"),
      t("C", "completed"),
      t("X", "abandoned"),
      t("B", "abandoned"),
    ])
    expect(out.changes.map((c) => (c.kind === "status" ? c.task : c.kind))).toEqual(["P", "I", "B"])
  })

  it("block blocks every open task and updates the reason of blocked ones", () => {
    const out = apply(MIXED, { op: "block", target: phase("Mixed"), reason: "vendor" })
    expect(out.list[0]!.tasks).toEqual([
      t("P", "blocked", "vendor"),
      t("I", "blocked", "vendor"),
      t("C", "completed"),
      t("X", "abandoned"),
      t("B", "blocked", "vendor"),
    ])
    expect(out.changes).toEqual([
      { kind: "status", task: "P", from: "pending", to: "blocked", reason: "vendor" },
      { kind: "status", task: "I", from: "in_progress", to: "blocked", reason: "vendor" },
      { kind: "status", task: "B", from: "blocked", to: "blocked", reason: "vendor" },
    ])
  })

  it("block without a reason leaves already blocked tasks as they were", () => {
    const out = apply(MIXED, { op: "block", target: phase("Mixed") })
    expect(out.list[0]!.tasks).toEqual([
      t("P", "blocked"),
      t("I", "blocked"),
      t("C", "completed"),
      t("X", "abandoned"),
      t("B", "blocked", "waits"),
    ])
    expect(out.changes).toHaveLength(2)
  })

  it("unblock moves only blocked tasks back to pending", () => {
    const out = apply(MIXED, { op: "unblock", target: phase("Mixed") })
    expect(out.list[0]!.tasks).toEqual([
      t("P"),
      t("I", "in_progress"),
      t("C", "completed"),
      t("X", "abandoned"),
      t("B"),
    ])
    expect(out.changes).toEqual([{ kind: "status", task: "B", from: "blocked", to: "pending" }])
  })

  it("rm removes the phase and its tasks", () => {
    const out = apply(MIXED, { op: "rm", target: phase("Mixed") })
    expect(out.list).toEqual([MIXED[1]])
    expect(out.changes).toEqual([{ kind: "removed", tasks: ["P", "I", "C", "X", "B"], phases: ["Mixed"] }])
  })

  it("done and drop on a phase with no open task succeed with no change", () => {
    const list: TodoList = [{ name: "Closed", tasks: [t("A", "completed"), t("B", "abandoned")] }]
    for (const op of ["done", "drop"] as const) {
      const out = apply(list, { op, target: phase("Closed") })
      expect(out.list).toBe(list)
      expect(out.changes).toEqual([])
    }
  })

  it("block on a phase with no open task is an error", () => {
    const list: TodoList = [{ name: "Closed", tasks: [t("A", "completed")] }]
    expect(applyErr(list, { op: "block", target: phase("Closed") })).toBe(
      'Phase "Closed" has no open tasks to block; to record a wait, append a task for the wait and block that.',
    )
  })

  it("unblock on a phase with no blocked task is an error", () => {
    expect(applyErr(MIXED, { op: "unblock", target: phase("Other") })).toBe(
      'Phase "Other" has no blocked tasks.',
    )
  })

  it("addresses the phase with surrounding whitespace ignored", () => {
    expect(apply(MIXED, { op: "unblock", target: phase("  Mixed ") }).changes).toHaveLength(1)
  })
})

describe("target all", () => {
  it("done completes every open task in every phase", () => {
    const out = apply(MIXED, { op: "done", target: all })
    expect(out.list).toEqual([
      {
        name: "Mixed",
        tasks: [
          t("P", "completed"),
          t("I", "completed"),
          t("C", "completed"),
          t("X", "abandoned"),
          t("B", "completed"),
        ],
      },
      { name: "Other", tasks: [t("O1", "completed"), t("O2", "completed")] },
    ])
  })

  it("drop abandons every open task, keeping done ones", () => {
    const out = apply(MIXED, { op: "drop", target: all })
    expect(out.list[1]!.tasks).toEqual([t("O1", "abandoned"), t("O2", "completed")])
    expect(out.changes.map((c) => (c.kind === "status" ? c.task : c.kind))).toEqual(["P", "I", "B", "O1"])
  })

  it("block and unblock work over the whole list", () => {
    const blocked = apply(MIXED, { op: "block", target: all, reason: "freeze" })
    expect(blocked.changes).toHaveLength(4)
    const unblocked = apply(blocked.list, { op: "unblock", target: all })
    expect(unblocked.list[1]!.tasks).toEqual([t("O1"), t("O2", "completed")])
  })

  it("block and unblock over a list with nothing to act on name the list", () => {
    const list: TodoList = [{ name: "W", tasks: [t("A", "completed")] }]
    expect(applyErr(list, { op: "block", target: all })).toBe(
      "The list has no open tasks to block; to record a wait, append a task for the wait and block that.",
    )
    expect(applyErr(list, { op: "unblock", target: all })).toBe("The list has no blocked tasks.")
  })

  it("rm clears everything and reports what it removed", () => {
    const out = apply(MIXED, { op: "rm", target: all })
    expect(out.list).toEqual([])
    expect(out.changes).toEqual([
      { kind: "removed", tasks: ["P", "I", "C", "X", "B", "O1", "O2"], phases: ["Mixed", "Other"] },
    ])
  })

  it("rm on an empty list succeeds with an empty removal", () => {
    expect(apply([], { op: "rm", target: all }).changes).toEqual([{ kind: "removed", tasks: [], phases: [] }])
  })
})

describe("addressing", () => {
  const list: TodoList = [
    {
      name: "Build",
      tasks: [t("Write the parser", "completed"), t("Write parser tests"), t("Wire the CLI")],
    },
    { name: "Ship", tasks: [t("Tag release"), t("Announce", "abandoned")] },
  ]

  it("ignores surrounding whitespace in task text", () => {
    expect(apply(list, { op: "done", target: task("  Wire the CLI\t") }).changes).toEqual([
      { kind: "status", task: "Wire the CLI", from: "pending", to: "completed" },
    ])
  })

  it("an unknown task lists prefix matches first, then substring matches", () => {
    expect(applyErr(list, { op: "done", target: task("write") })).toBe(
      'No task "write". Tasks are addressed by their exact text. Closest: "Write the parser", "Write parser tests".',
    )
    expect(applyErr(list, { op: "done", target: task("parser") })).toBe(
      'No task "parser". Tasks are addressed by their exact text. Closest: "Write the parser", "Write parser tests".',
    )
    expect(applyErr(list, { op: "done", target: task("wire the cli") })).toBe(
      'No task "wire the cli". Tasks are addressed by their exact text. Closest: "Wire the CLI".',
    )
  })

  it("an unknown task with no match lists up to three open tasks", () => {
    expect(applyErr(list, { op: "done", target: task("Deploy") })).toBe(
      'No task "Deploy". Tasks are addressed by their exact text. Open tasks: "Write parser tests", "Wire the CLI", "Tag release".',
    )
  })

  it("an unknown task with more than three open tasks says how many more there are", () => {
    const five: TodoList = [
      { name: "W", tasks: ["Alpha", "Bravo", "Charlie", "Delta", "Echo"].map((x) => t(x)) },
    ]
    expect(applyErr(five, { op: "done", target: task("Quiz") })).toBe(
      'No task "Quiz". Tasks are addressed by their exact text. Open tasks: "Alpha", "Bravo", "Charlie", …and 2 more.',
    )
  })

  it("an unknown task with no match and no open task lists nothing", () => {
    const closed: TodoList = [{ name: "W", tasks: [t("A", "completed")] }]
    expect(applyErr(closed, { op: "done", target: task("Zed") })).toBe(
      'No task "Zed". Tasks are addressed by their exact text.',
    )
  })

  it("caps candidates at three", () => {
    const many: TodoList = [{ name: "W", tasks: ["ab1", "ab2", "ab3", "ab4"].map((x) => t(x)) }]
    expect(applyErr(many, { op: "done", target: task("ab") })).toBe(
      'No task "ab". Tasks are addressed by their exact text. Closest: "ab1", "ab2", "ab3".',
    )
  })

  it("an unknown task on an empty list says the list is empty", () => {
    expect(applyErr([], { op: "done", target: task("A") })).toBe('No task "A"; the list is empty.')
  })

  for (const id of ["task-3", "#2", "3", "item 4"]) {
    it(`an id-like task target ${JSON.stringify(id)} gets the text-addressing explanation`, () => {
      expect(applyErr(list, { op: "done", target: task(id) })).toBe(
        `Tasks have no ids or numbers; address a task by its exact text, not "${id}". Open tasks: "Write parser tests", "Wire the CLI", "Tag release".`,
      )
    })
  }

  it("a task whose real text looks like an id is still found", () => {
    const numbered: TodoList = [{ name: "W", tasks: [t("42")] }]
    expect(apply(numbered, { op: "done", target: task("42") }).list).toEqual([
      { name: "W", tasks: [t("42", "completed")] },
    ])
  })

  it("an unknown phase lists the phases", () => {
    expect(applyErr(list, { op: "done", target: phase("Release") })).toBe(
      'No phase "Release". Phases are addressed by their exact name: "Build", "Ship".',
    )
    expect(applyErr(list, { op: "done", target: phase("ship it") })).toBe(
      'No phase "ship it". Phases are addressed by their exact name: "Ship", "Build".',
    )
  })

  it("an unknown phase lists at most five phases", () => {
    const six: TodoList = ["A", "B", "C", "D", "E", "F"].map((name) => ({ name, tasks: [t(`${name}1`)] }))
    expect(applyErr(six, { op: "rm", target: phase("Z") })).toBe(
      'No phase "Z". Phases are addressed by their exact name: "A", "B", "C", "D", "E", …and 1 more.',
    )
  })

  it("an id-like phase target gets the name-addressing explanation", () => {
    expect(applyErr(list, { op: "rm", target: phase("2") })).toBe(
      'Phases have no ids or numbers; address a phase by its exact name, not "2". Phases: "Build", "Ship".',
    )
  })

  it("a phase named like an id is still found", () => {
    const named: TodoList = [{ name: "Phase 1", tasks: [t("A")] }]
    expect(apply(named, { op: "rm", target: phase("Phase 1") }).list).toEqual([])
  })

  it("an unknown phase on an empty list says the list is empty", () => {
    expect(applyErr([], { op: "rm", target: phase("P") })).toBe('No phase "P"; the list is empty.')
  })

  it("task and phase together: the task must be in that phase", () => {
    const scoped = { kind: "task", text: "Tag release", phase: "Ship" } as const
    expect(apply(list, { op: "done", target: scoped }).changes).toEqual([
      { kind: "status", task: "Tag release", from: "pending", to: "completed" },
    ])
    const wrong = { kind: "task", text: "Tag release", phase: "Build" } as const
    expect(applyErr(list, { op: "done", target: wrong })).toBe(
      'Task "Tag release" is in phase "Ship", not "Build"; leave out "phase" or give "Ship".',
    )
    const missing = { kind: "task", text: "Tag release", phase: "Nope" } as const
    expect(applyErr(list, { op: "start", target: missing })).toBe(
      'Task "Tag release" is in phase "Ship", not "Nope"; leave out "phase" or give "Ship".',
    )
  })

  it("task and phase together with an unknown task reports the task", () => {
    const scoped = { kind: "task", text: "Nope", phase: "Ship" } as const
    expect(applyErr(list, { op: "rm", target: scoped })).toBe(
      'No task "Nope". Tasks are addressed by their exact text. Open tasks: "Write parser tests", "Wire the CLI", "Tag release".',
    )
  })

  it("shortens a runaway target in the error", () => {
    const long = "y".repeat(100)
    expect(applyErr(list, { op: "done", target: task(long) })).toBe(
      `No task "${"y".repeat(59)}…". Tasks are addressed by their exact text. Open tasks: "Write parser tests", "Wire the CLI", "Tag release".`,
    )
  })
})

describe("init", () => {
  it("builds an all-pending list and reports its size", () => {
    const out = apply([], {
      op: "init",
      list: [
        { phase: " One ", items: [" a ", "b"] },
        { phase: "Two", items: ["c"] },
      ],
    })
    expect(out.list).toEqual([
      { name: "One", tasks: [t("a"), t("b")] },
      { name: "Two", tasks: [t("c")] },
    ])
    expect(out.changes).toEqual([{ kind: "init", phases: 2, tasks: 3 }])
  })

  it("reports the counts of the list it replaced", () => {
    const out = apply(MIXED, { op: "init", list: [{ phase: "New", items: ["n"] }] })
    expect(out.changes).toEqual([
      {
        kind: "init",
        phases: 1,
        tasks: 1,
        replaced: {
          total: 7,
          closed: 3,
          completed: 2,
          abandoned: 1,
          blocked: 1,
          pending: 2,
          inProgress: 1,
          phases: 2,
        },
        discarded: ["I", "P", "B", "O1"],
        discardedRunning: "I",
      },
    ])
  })

  it("rejects a duplicate task within a phase, naming it", () => {
    expect(applyErr([], { op: "init", list: [{ phase: "P", items: ["a", "b", "a"] }] })).toBe(
      'Duplicate task "a" in phase "P"; task texts must be unique.',
    )
  })

  it("rejects a duplicate task across phases, naming both phases", () => {
    const op: Op = {
      op: "init",
      list: [
        { phase: "P", items: ["a"] },
        { phase: "Q", items: [" a"] },
      ],
    }
    expect(applyErr([], op)).toBe(
      'Duplicate task "a" (in phases "P" and "Q"); task texts must be unique across the list.',
    )
  })

  it("rejects a duplicate phase name", () => {
    const op: Op = {
      op: "init",
      list: [
        { phase: "P", items: ["a"] },
        { phase: "P", items: ["b"] },
      ],
    }
    expect(applyErr([], op)).toBe('Duplicate phase "P"; phase names must be unique.')
  })

  it("rejects an empty task text", () => {
    expect(applyErr([], { op: "init", list: [{ phase: "P", items: ["  "] }] })).toBe(
      "Task is empty; give it a short description.",
    )
  })

  it("rejects a list with no task at all", () => {
    expect(applyErr([], { op: "init", list: [{ phase: "P", items: [] }] })).toBe(
      "init needs at least one task.",
    )
    expect(applyErr([], { op: "init", list: [] })).toBe("init needs at least one task.")
  })

  it("enforces the task, phase and length limits", () => {
    const limits: Limits = { maxTaskChars: 10, maxTasks: 3, maxPhases: 2, maxOpsPerCall: 5 }
    expect(applyErr([], { op: "init", list: [{ phase: "P", items: ["a", "b", "c", "d"] }] }, limits)).toBe(
      "The list has 4 tasks; the limit is 3. Plan at a coarser grain.",
    )
    const threePhases: Op = {
      op: "init",
      list: [
        { phase: "P", items: ["a"] },
        { phase: "Q", items: ["b"] },
        { phase: "R", items: ["c"] },
      ],
    }
    expect(applyErr([], threePhases, limits)).toBe("The list has 3 phases; the limit is 2. Merge phases.")
    expect(applyErr([], { op: "init", list: [{ phase: "P", items: ["12345678901"] }] }, limits)).toBe(
      'Task "12345678901" is 11 characters; the limit is 10. Shorten it.',
    )
    // Exactly at each limit is fine.
    expect(
      apply([], { op: "init", list: [{ phase: "P", items: ["a", "b", "1234567890"] }] }, limits).list,
    ).toHaveLength(1)
  })
})

describe("append", () => {
  const list: TodoList = [{ name: "Build", tasks: [t("A", "completed"), t("B", "in_progress")] }]

  it("adds pending tasks to the end of an existing phase", () => {
    const out = apply(list, { op: "append", phase: "Build", items: ["C", " D "] })
    expect(out.list).toEqual([
      { name: "Build", tasks: [t("A", "completed"), t("B", "in_progress"), t("C"), t("D")] },
    ])
    expect(out.changes).toEqual([{ kind: "added", phase: "Build", tasks: ["C", "D"], newPhase: false }])
  })

  it("creates a missing phase at the end", () => {
    const out = apply(list, { op: "append", phase: " Ship ", items: ["E"] })
    expect(out.list).toEqual([list[0], { name: "Ship", tasks: [t("E")] }])
    expect(out.list[0]).toBe(list[0])
    expect(out.changes).toEqual([{ kind: "added", phase: "Ship", tasks: ["E"], newPhase: true }])
  })

  it("rejects a duplicate within items, naming it", () => {
    expect(applyErr(list, { op: "append", phase: "Build", items: ["C", "C "] })).toBe(
      'Task "C" appears twice in items; task texts must be unique.',
    )
  })

  it("rejects a task that already exists, naming it, its phase and status", () => {
    expect(applyErr(list, { op: "append", phase: "Ship", items: ["Z", "A"] })).toBe(
      'Task "A" already exists (phase "Build", done); task texts must be unique.',
    )
  })

  it("rejects empty items, an empty text and an empty phase name", () => {
    expect(applyErr(list, { op: "append", phase: "Build", items: [] })).toBe(
      "append needs at least one task text in items.",
    )
    expect(applyErr(list, { op: "append", phase: "Build", items: [""] })).toBe(
      "Task is empty; give it a short description.",
    )
    expect(applyErr(list, { op: "append", phase: " ", items: ["Q"] })).toBe(
      "Phase name is empty; give it a short description.",
    )
  })

  it("enforces the task and phase limits on the grown list", () => {
    const limits: Limits = { maxTaskChars: 300, maxTasks: 3, maxPhases: 1, maxOpsPerCall: 5 }
    expect(applyErr(list, { op: "append", phase: "Build", items: ["C", "D"] }, limits)).toBe(
      "The list has 4 tasks; the limit is 3. Plan at a coarser grain.",
    )
    expect(applyErr(list, { op: "append", phase: "New", items: ["C"] }, limits)).toBe(
      "The list has 2 phases; the limit is 1. Merge phases.",
    )
  })
})

describe("view", () => {
  it("returns the very same list and no change", () => {
    const out = apply(MIXED, { op: "view" })
    expect(out.list).toBe(MIXED)
    expect(out.changes).toEqual([])
  })
})

describe("normalize", () => {
  it("keeps the first of several in-progress tasks and demotes the rest", () => {
    const list: TodoList = freeze([
      { name: "W", tasks: [t("A"), t("B", "in_progress")] },
      { name: "V", tasks: [t("C", "in_progress"), t("D", "in_progress")] },
    ])
    const out = normalize(list)
    expect(out.list).toEqual([
      { name: "W", tasks: [t("A"), t("B", "in_progress")] },
      { name: "V", tasks: [t("C"), t("D")] },
    ])
    expect(out.changes).toEqual([
      { kind: "status", task: "C", from: "in_progress", to: "pending", auto: "demoted" },
      { kind: "status", task: "D", from: "in_progress", to: "pending", auto: "demoted" },
    ])
    expect(out.list[0]).toBe(list[0])
  })

  it("promotes the earliest pending task when none is in progress, skipping blocked and closed ones", () => {
    const list: TodoList = freeze([
      { name: "W", tasks: [t("A", "completed"), t("B", "blocked", "why"), t("C", "abandoned")] },
      { name: "V", tasks: [t("D"), t("E")] },
    ])
    const out = normalize(list)
    expect(out.list).toEqual([list[0], { name: "V", tasks: [t("D", "in_progress"), t("E")] }])
    expect(out.changes).toEqual([
      { kind: "status", task: "D", from: "pending", to: "in_progress", auto: "promoted" },
    ])
  })

  it("never starts a blocked task, and leaves closed tasks alone", () => {
    const list: TodoList = freeze([
      { name: "W", tasks: [t("A", "blocked"), t("B", "completed"), t("C", "abandoned")] },
    ])
    const out = normalize(list)
    expect(out.list).toBe(list)
    expect(out.changes).toEqual([])
  })

  it("returns the same list when exactly one task is in progress", () => {
    const list: TodoList = freeze([{ name: "W", tasks: [t("A"), t("B", "in_progress")] }])
    expect(normalize(list).list).toBe(list)
  })

  it("returns the same empty list", () => {
    const list: TodoList = []
    expect(normalize(list)).toEqual({ list, changes: [] })
    expect(normalize(list).list).toBe(list)
  })
})

describe("purity", () => {
  it("unchanged phases are shared and changed ones are new objects", () => {
    const list: Phase[] = [
      { name: "A", tasks: [t("a1", "in_progress")] },
      { name: "B", tasks: [t("b1")] },
    ]
    const out = apply(list, { op: "done", target: task("b1") })
    expect(out.list).not.toBe(list)
    expect(out.list[0]).toBe(list[0])
    expect(out.list[1]).not.toBe(list[1])
    expect(list[1]!.tasks[0]).toEqual(t("b1"))
  })
})
