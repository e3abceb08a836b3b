// What a result or an error tells a model that got a call wrong in a way a blind trial of the tool showed: a
// stale or mistyped phase name, an op under another name, a status sent as a field, an unused field. Each error
// says what to send instead, and a call it shows is one the tool accepts.

import { describe, expect, it } from "vitest"
import { type ExecuteResult, execute } from "../../src/core/list/execute.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { nearestWord } from "../../src/core/list/words.ts"
import { formatOutcome } from "../../src/core/model/format.ts"
import { deepFreeze, phase, task as t } from "../fixtures/lists.ts"

const LIST: TodoList = deepFreeze([
  phase("Request validation", t("Check input", "in_progress"), t("Check output")),
  phase("Ship", t("Release")),
])

function run(list: TodoList, raw: unknown): { text: string; result: ExecuteResult } {
  const result = execute(list, raw)
  return { text: formatOutcome(list, result), result }
}

function applied(list: TodoList, raw: unknown): TodoList {
  const result = execute(list, raw)
  if (!result.ok) throw new Error(result.error)
  return result.list
}

function error(list: TodoList, raw: unknown): string {
  const result = execute(list, raw)
  if (result.ok) throw new Error(`expected a failure, got ${JSON.stringify(result.list)}`)
  expect(result.list).toBe(list)
  return result.error
}

/** The JSON calls a text shows (`{"op":…}` or `{"ops":…}`), parsed. */
function shownCalls(text: string): unknown[] {
  const calls: unknown[] = []
  for (let at = text.indexOf('{"op'); at >= 0; at = text.indexOf('{"op', at + 1)) {
    let depth = 0
    for (let end = at; end < text.length; end++) {
      if (text[end] === "{") depth++
      else if (text[end] === "}" && --depth === 0) {
        calls.push(JSON.parse(text.slice(at, end + 1)))
        at = end
        break
      }
    }
  }
  return calls
}

describe("a new phase whose name is close to an existing one", () => {
  it("is created, and the result names the existing phase and the call that moves the tasks there", () => {
    const { text, result } = run(LIST, { op: "append", phase: "Validation", items: ["Check headers"] })
    expect(result.ok).toBe(true)
    expect(text).toContain('to new last phase "Validation"')
    expect(text).toContain('"Request validation"')
    const [move] = shownCalls(text)
    expect(move).toBeDefined()
    const moved = applied(
      applied(LIST, { op: "append", phase: "Validation", items: ["Check headers"] }),
      move,
    )
    expect(moved.map((p) => p.name)).toEqual(["Request validation", "Ship"])
    expect(moved[0]!.tasks.map((task) => task.text)).toEqual(["Check input", "Check output", "Check headers"])
  })

  it("catches a mistyped name and a name that differs only in case", () => {
    for (const name of ["Reqest validation", "request Validation", "Shipp"]) {
      const { text } = run(LIST, { op: "append", phase: name, items: ["X"] })
      expect(text, name).toMatch(/close name/)
    }
  })

  it("says nothing more for a name that is not close, or that differs in its number", () => {
    const numbered: TodoList = [phase("Phase 2", t("A", "in_progress"))]
    expect(run(numbered, { op: "append", phase: "Phase 3", items: ["B"] }).text).not.toMatch(/close name/)
    expect(run(LIST, { op: "append", phase: "Docs", items: ["B"] }).text).not.toMatch(/close name/)
    expect(run(LIST, { op: "append", phase: "Ship", items: ["B"] }).text).not.toMatch(/close name/)
  })
})

describe("unblock with a reason", () => {
  const blocked: TodoList = deepFreeze([
    phase("P", t("A", "in_progress"), t("B", "blocked", "waiting on spec")),
  ])

  it("keeps the reason in the change and shows it", () => {
    const { text, result } = run(blocked, { op: "unblock", task: "B", reason: "spec arrived" })
    expect(result.ok && result.changes[0]).toMatchObject({
      kind: "status",
      to: "pending",
      reason: "spec arrived",
    })
    expect(text.split("\n")[0]).toBe('Unblocked "B" ("spec arrived").')
  })

  it("shows it when the unblocked task starts too", () => {
    const idle: TodoList = [phase("P", t("A", "completed"), t("B", "blocked", "waiting"))]
    expect(run(idle, { op: "unblock", task: "B", reason: "spec arrived" }).text.split("\n")[0]).toBe(
      'Unblocked and started "B" ("spec arrived").',
    )
  })

  it("without a reason reads as before", () => {
    expect(run(blocked, { op: "unblock", task: "B" }).text.split("\n")[0]).toBe('Unblocked "B".')
  })
})

describe("an op under another name", () => {
  it.each([
    ["complete", "done"],
    ["finish", "done"],
    ["add", "append"],
    ["create", "append"],
    ["new", "append"],
    ["remove", "rm"],
    ["delete", "rm"],
    ["list", "view"],
    ["show", "view"],
    ["pause", "block"],
    ["cancel", "drop"],
    ["skip", "drop"],
    ["update", "rename"],
    ["dnoe", "done"],
    ["strat", "start"],
    ["unblok", "unblock"],
    ["Complete", "done"],
  ])("%s names %s first", (typed, meant) => {
    const message = error(LIST, { op: typed, task: "Check output" })
    expect(message).toMatch(new RegExp(`^Unknown op "${typed}"; use "${meant}"`))
  })

  it("shows the call to send when it is one the tool accepts", () => {
    const message = error(LIST, { op: "complete", task: "Check output" })
    expect(shownCalls(message)).toEqual([{ op: "done", task: "Check output" }])
    expect(applied(LIST, shownCalls(message)[0])[0]!.tasks[1]!.status).toBe("completed")
  })

  it("turns an add's task into items", () => {
    const message = error(LIST, { op: "add", phase: "Ship", task: "Tag" })
    expect(shownCalls(message)).toEqual([{ op: "append", phase: "Ship", items: ["Tag"] }])
  })

  it("takes the status an update names", () => {
    const message = error(LIST, { op: "update", task: "Check output", status: "done" })
    expect(message).toMatch(/^Unknown op "update"; use "done"/)
  })

  it("shows no call when the name may mean several ops the fields fit, and says what the first needs", () => {
    const message = error(LIST, { op: "update", task: "Check output" })
    expect(shownCalls(message)).toEqual([])
    expect(message).toMatch(
      /^Unknown op "update"; use "rename" \("task" or "phase", and "to"\); else "done" or "start"\./,
    )
    expect(error(LIST, { op: "add", task: "Tag" })).toMatch(
      /^Unknown op "add"; use "append" \("items", and "phase" or "after"\)\./,
    )
  })

  it("shows the one op the fields fit", () => {
    const message = error(LIST, { op: "create", list: [{ phase: "P", items: ["a"] }] })
    expect(message).toMatch(/^Unknown op "create"; use "init": /)
    expect(shownCalls(message)).toEqual([{ op: "init", list: [{ phase: "P", items: ["a"] }] }])
  })

  it("still lists every op for a word it cannot place", () => {
    expect(error(LIST, { op: "frobnicate" })).toMatch(/^Unknown op "frobnicate"\. Use one of: init, start/)
  })
})

describe("nearestWord", () => {
  it("finds the one word within a third of its length, else nothing", () => {
    expect(nearestWord("dnoe", ["done", "drop"])).toBe("done")
    expect(nearestWord("xyzzy", ["done", "drop"])).toBeUndefined()
    expect(nearestWord("dop", ["done", "drop"])).toBe("drop")
    expect(nearestWord("done", ["done"])).toBeUndefined()
  })
})

describe("block where nothing can be blocked", () => {
  const closed: TodoList = deepFreeze([
    phase("Build", t("A", "in_progress")),
    phase("Ship", t("Release", "completed"), t("Notes", "abandoned")),
  ])

  it("on a phase with no open task: append a task for the wait and block that", () => {
    const message = error(closed, { op: "block", phase: "Ship", reason: "waiting" })
    expect(message).toMatch(/^Phase "Ship" has no open tasks to block;/)
    expect(message).toMatch(/append a task for the wait/)
  })

  it("on a done or dropped task: the batch that reopens and blocks it", () => {
    for (const name of ["Release", "Notes"]) {
      const message = error(closed, { op: "block", task: name, reason: "waiting" })
      const [batch] = shownCalls(message.slice(message.indexOf("{")))
      const blocked = applied(closed, { ops: (batch as { ops: unknown[] }).ops })
      expect(blocked[1]!.tasks.find((task) => task.text === name)).toEqual(t(name, "blocked", "waiting"))
      expect(message).toMatch(/append a task for the wait/)
    }
  })
})

describe("a task in another phase than the one named", () => {
  it("append: leave out one of phase and after", () => {
    const message = error(LIST, { op: "append", phase: "Ship", after: "Check input", items: ["X"] })
    expect(message).toBe(
      'Task "Check input" is in phase "Request validation", not "Ship". Leave out "phase" to insert after the task, or "after" to add at the end of "Ship".',
    )
  })

  it("other ops: leave out phase or give the task's", () => {
    expect(error(LIST, { op: "done", phase: "Ship", task: "Check input" })).toBe(
      'Task "Check input" is in phase "Request validation", not "Ship"; leave out "phase" or give "Request validation".',
    )
  })
})

describe("a status sent as a field", () => {
  it("without op: status is unrecognized, and the call to send is shown", () => {
    const message = error(LIST, { task: "Check output", status: "done" })
    expect(message).toMatch(/Unrecognized: "status"/)
    expect(shownCalls(message)).toEqual([{ op: "done", task: "Check output" }])
  })

  it("reads a status however it is spaced or cased", () => {
    for (const status of ["in progress", "In-Progress", "in_progress"])
      expect(shownCalls(error(LIST, { task: "Check output", status })), status).toEqual([
        { op: "start", task: "Check output" },
      ])
  })

  it("names other stray fields as it does with an op", () => {
    expect(error(LIST, { tasks: ["Check output"] })).toMatch(/Unrecognized: "tasks"/)
  })
})

describe("append given a task", () => {
  it("instead of items: says append takes items, and shows the call", () => {
    const message = error(LIST, { op: "append", phase: "Ship", task: "Tag" })
    expect(message).toMatch(/^append takes "items" \(an array of new task texts\), not "task"/)
    expect(shownCalls(message)).toEqual([{ op: "append", phase: "Ship", items: ["Tag"] }])
  })

  it("instead of items, with no phase or after: says to give one", () => {
    const message = error(LIST, { op: "append", task: "Tag" })
    expect(message).toMatch(/^append takes "items"/)
    expect(message).toMatch(/"phase" \(created if missing\) or "after"/)
  })

  it("beside items: task is not used; name the task to insert after in after", () => {
    const message = error(LIST, { op: "append", phase: "Ship", task: "Release", items: ["Tag"] })
    expect(message).toMatch(/"after"/)
  })
})

describe("init over open work", () => {
  it("names how many open tasks the new list lacks, the one in progress first", () => {
    const { text } = run(LIST, { op: "init", list: [{ phase: "New", items: ["Release", "Other"] }] })
    expect(text.split("\n")[0]).toBe(
      'Replaced a list of 2 phases, 3 tasks (0/3 done). Discarded 2 open tasks: "Check input" (was in progress), "Check output"; append any still needed.',
    )
  })

  it("says nothing more when the new list keeps every open task", () => {
    const { text } = run(LIST, {
      op: "init",
      list: [{ phase: "New", items: ["Check input", "Check output", "Release"] }],
    })
    expect(text.split("\n")[0]).toBe("Replaced a list of 2 phases, 3 tasks (0/3 done).")
  })
})

describe("a reason sent to an op that keeps none", () => {
  const listed: TodoList = deepFreeze([
    phase("P", t("A", "in_progress"), t("B"), t("C", "blocked", "waiting on spec")),
    phase("Q", t("D")),
  ])

  it("done: shown in the result, kept in the change, not stored", () => {
    const { text, result } = run(listed, { op: "done", task: "A", reason: "tests pass" })
    expect(text.split("\n")[0]).toBe('Done "A" ("tests pass"). Started "B".')
    expect(result.ok && result.changes[0]).toMatchObject({
      kind: "status",
      to: "completed",
      reason: "tests pass",
    })
    expect(result.ok && result.list[0]!.tasks[0]).toEqual(t("A", "completed"))
    expect(run(listed, { op: "done", phase: "Q", reason: "shipped" }).text.split("\n")[0]).toBe(
      'Done "D" ("shipped").',
    )
  })

  it("done on a task already done: the reason is still said", () => {
    const closed: TodoList = [phase("P", t("A", "completed"), t("B", "in_progress"))]
    expect(run(closed, { op: "done", task: "A", reason: "merged" }).text.split("\n")[0]).toBe(
      '"A" is already done ("merged").',
    )
  })

  it("start: shown beside what the task was", () => {
    expect(run(listed, { op: "start", task: "B", reason: "A needs it" }).text.split("\n")[0]).toBe(
      'Started "B" ("A needs it"); "A" moved back to pending.',
    )
    expect(run(listed, { op: "start", task: "C", reason: "spec arrived" }).text.split("\n")[0]).toBe(
      'Started "C" (was blocked: "waiting on spec"; "spec arrived"); "A" moved back to pending.',
    )
  })

  it("rm: shown with what was removed", () => {
    expect(run(listed, { op: "rm", task: "B", reason: "added by mistake" }).text.split("\n")[0]).toBe(
      'Removed "B" ("added by mistake").',
    )
    expect(run(listed, { op: "rm", phase: "Q", reason: "out of scope" }).text.split("\n")[0]).toBe(
      'Removed phase "Q" (1 task; "out of scope").',
    )
  })

  it("is carried in the call shown instead of a mistyped op", () => {
    expect(shownCalls(error(listed, { op: "complete", task: "A", reason: "tests pass" }))).toEqual([
      { op: "done", task: "A", reason: "tests pass" },
    ])
  })
})

describe("a stray field beside a call that succeeds", () => {
  it("the call runs, and the result names the fields it did not use", () => {
    const { text, result } = run(LIST, { op: "done", task: "Check input", status: "done" })
    expect(result.ok).toBe(true)
    expect(text.split("\n")[0]).toBe(
      'Done "Check input". Started "Check output". Not used: "status" (a status is set by its op).',
    )
    expect(run(LIST, { op: "done", task: "Check input", priority: 2 }).text.split("\n")[0]).toBe(
      'Done "Check input". Started "Check output". Not used: "priority" (unrecognized).',
    )
    expect(run(LIST, { op: "done", task: "Check input", to: "x", items: ["y"] }).text.split("\n")[0]).toBe(
      'Done "Check input". Started "Check output". Not used: "to", "items" (not fields of done).',
    )
  })

  it("in a batch, names the op; beside ops, the call", () => {
    const { text } = run(LIST, {
      ops: [
        { op: "done", task: "Check input" },
        { op: "rename", task: "Release", to: "Tag", reason: "clearer" },
      ],
      note: "x",
    })
    expect(text.split("\n")[0]).toMatch(
      / Not used: "note" \(unrecognized\)\. Not used in op 2 \(rename\): "reason" \(not a field of rename\)\.$/,
    )
  })

  it("says nothing more on a call without one, schema filler included", () => {
    for (const raw of [
      { op: "done", task: "Check input" },
      { op: "done", task: "Check input", phase: null, items: [], to: "", reason: "" },
      { op: "view" },
      { op: "init", list: [{ phase: "P", items: ["a"] }] },
    ])
      expect(run(LIST, raw).text, JSON.stringify(raw)).not.toMatch(/Not used/)
  })

  it("init with a list does not read phase", () => {
    expect(run(LIST, { op: "init", list: [{ phase: "P", items: ["a"] }], phase: "Q" }).text).toMatch(
      / Not used: "phase" \(not a field of init with "list"\)\./,
    )
  })
})

describe("init over settled tasks", () => {
  const settled: TodoList = deepFreeze([
    phase("P", t("A", "completed"), t("B", "blocked", "token"), t("C", "abandoned"), t("D", "in_progress")),
  ])

  it("names the tasks it brings back as pending, and the call that settles them again", () => {
    const { text } = run(settled, { op: "init", list: [{ phase: "New", items: ["A", "B", "D", "E"] }] })
    const line = text.split("\n")[0]!
    expect(line).toMatch(
      /Reopened by init: "A" \(was done\), "B" \(was blocked: "token"\); if they still are, send /,
    )
    const [call] = shownCalls(line)
    expect(call).toEqual({
      ops: [
        { op: "done", task: "A" },
        { op: "block", task: "B", reason: "token" },
      ],
    })
    const restored = applied(
      applied(settled, { op: "init", list: [{ phase: "New", items: ["A", "B", "D", "E"] }] }),
      call,
    )
    expect(restored[0]!.tasks.slice(0, 2)).toEqual([t("A", "completed"), t("B", "blocked", "token")])
  })

  it("one task: the single op", () => {
    const { text } = run(settled, { op: "init", list: [{ phase: "New", items: ["C", "D"] }] })
    expect(shownCalls(text)).toEqual([{ op: "drop", task: "C" }])
    expect(text).toMatch(/Reopened by init: "C" \(was dropped\); if it still is, send /)
  })

  it("says nothing more when no settled task comes back", () => {
    expect(run(settled, { op: "init", list: [{ phase: "New", items: ["D", "E"] }] }).text).not.toMatch(
      /Reopened by init/,
    )
  })
})
