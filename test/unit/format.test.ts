// Pins the exact words the model reads, and that results stay short over a typical session.

import { describe, expect, it } from "vitest"
import type { ExecuteResult } from "../../src/core/list/execute.ts"
import { execute } from "../../src/core/list/execute.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { STATUSES } from "../../src/core/list/types.ts"
import { STATUS_BOXES, STATUS_WORDS } from "../../src/core/list/words.ts"
import { formatList, formatOutcome, formatTask, summaryLine } from "../../src/core/model/format.ts"
import { task as t } from "../fixtures/lists.ts"

/** Runs a call and formats its result the way the tool does. */
function run(list: TodoList, raw: unknown): { text: string; result: ExecuteResult } {
  const result = execute(list, raw)
  return { text: formatOutcome(list, result), result }
}

const SAMPLE: TodoList = [
  { name: "Foundation", tasks: [t("Scaffold crate", "completed"), t("Wire workspace", "in_progress")] },
  {
    name: "Auth",
    tasks: [t("Port store"), t("Get keys", "blocked", "waiting on ops"), t("Old thing", "abandoned")],
  },
]

describe("glyphs and words", () => {
  it("has one distinct glyph per status", () => {
    expect(STATUS_BOXES).toEqual({
      pending: "[ ]",
      in_progress: "[>]",
      completed: "[x]",
      abandoned: "[-]",
      blocked: "[!]",
    })
    expect(new Set(STATUSES.map((s) => STATUS_BOXES[s])).size).toBe(STATUSES.length)
  })

  it("uses the user-facing status words", () => {
    expect(STATUSES.map((s) => STATUS_WORDS[s])).toEqual([
      "pending",
      "in progress",
      "done",
      "dropped",
      "blocked",
    ])
  })

  it("formats a task with its glyph and, when blocked, its reason", () => {
    expect(formatTask(t("A", "blocked", "why"))).toBe('[!] "A" (blocked: "why")')
    expect(formatTask(t("A", "blocked"))).toBe('[!] "A"')
    expect(formatTask(t("A", "completed"))).toBe('[x] "A"')
  })
})

describe("formatList", () => {
  it("prints phases with closed/total, tasks with glyphs, then the summary", () => {
    expect(formatList(SAMPLE)).toBe(
      [
        '"Foundation" (1/2)',
        '  [x] "Scaffold crate"',
        '  [>] "Wire workspace"',
        '"Auth" (0/2)',
        '  [ ] "Port store"',
        '  [!] "Get keys" (blocked: "waiting on ops")',
        '  [-] "Old thing"',
        'Next: "Port store". 1/4 done, 1 blocked · 1 dropped.',
      ].join("\n"),
    )
  })

  it("prints an empty phase and an empty list", () => {
    expect(formatList([{ name: "Later", tasks: [] }])).toBe('"Later" (0/0)\nThe list has no tasks.')
    expect(formatList([])).toBe("The list is empty.")
  })
})

describe("summaryLine", () => {
  it("names the next pending task and the counts", () => {
    expect(summaryLine(SAMPLE)).toBe('Next: "Port store". 1/4 done, 1 blocked · 1 dropped.')
  })

  it("omits blocked when none, and Next when nothing is pending", () => {
    expect(summaryLine([{ name: "W", tasks: [t("A", "completed"), t("B", "in_progress")] }])).toBe(
      "1/2 done.",
    )
  })

  it("says when only blocked tasks are open", () => {
    expect(summaryLine([{ name: "W", tasks: [t("A", "completed"), t("B", "blocked")] }])).toBe(
      "1/2 done, 1 blocked, none in progress.",
    )
  })

  it("says when everything is closed", () => {
    expect(summaryLine([{ name: "W", tasks: [t("A", "completed"), t("B", "abandoned")] }])).toBe(
      "Nothing open: 1/1 done · 1 dropped.",
    )
    expect(summaryLine([{ name: "W", tasks: [t("A", "completed")] }])).toBe("Nothing open: 1/1 done.")
  })

  it("says when there is nothing", () => {
    expect(summaryLine([])).toBe("The list is empty.")
    expect(summaryLine([{ name: "W", tasks: [] }])).toBe("The list has no tasks.")
  })
})

describe("formatOutcome", () => {
  it("done then auto-start", () => {
    expect(run(SAMPLE, { op: "done", task: "Wire workspace" }).text).toBe(
      'Done "Wire workspace". Started "Port store".\n2/4 done, 1 blocked · 1 dropped.',
    )
  })

  it("start demotes explicitly", () => {
    expect(run(SAMPLE, { op: "start", task: "Port store" }).text).toBe(
      'Started "Port store"; "Wire workspace" moved back to pending.\nNext: "Wire workspace". 1/4 done, 1 blocked · 1 dropped.',
    )
  })

  it("start of a blocked task says why it was blocked", () => {
    expect(run(SAMPLE, { op: "start", task: "Get keys" }).text).toBe(
      'Started "Get keys" (was blocked: "waiting on ops"); "Wire workspace" moved back to pending.\nNext: "Wire workspace". 1/4 done · 1 dropped.',
    )
  })

  it("start of a closed task says it was reopened", () => {
    expect(run(SAMPLE, { op: "start", task: "Old thing" }).text).toBe(
      'Reopened "Old thing" (was dropped); "Wire workspace" moved back to pending.\nNext: "Wire workspace". 1/5 done, 1 blocked.',
    )
  })

  it("says what is in progress when the op did not change it", () => {
    expect(run(SAMPLE, { op: "block", task: "Port store", reason: "needs review" }).text).toBe(
      'Blocked "Port store" ("needs review").\nNow: "Wire workspace". 1/4 done, 2 blocked · 1 dropped.',
    )
    expect(run(SAMPLE, { op: "drop", task: "Port store" }).text).toBe(
      'Dropped "Port store".\nNow: "Wire workspace". 1/3 done, 1 blocked · 2 dropped.',
    )
  })

  it("rename of a task and of a phase", () => {
    expect(run(SAMPLE, { op: "rename", task: "Port store", to: "Port the key store" }).text).toBe(
      'Renamed "Port store" to "Port the key store".\nNow: "Wire workspace". Next: "Port the key store". 1/4 done, 1 blocked · 1 dropped.',
    )
    expect(run(SAMPLE, { op: "rename", phase: "Auth", to: "Login" }).text).toBe(
      'Renamed phase "Auth" to "Login".\nNow: "Wire workspace". Next: "Port store". 1/4 done, 1 blocked · 1 dropped.',
    )
  })

  it("append after a task names it", () => {
    expect(run(SAMPLE, { op: "append", after: "Port store", items: ["Hash keys"] }).text).toBe(
      'Added "Hash keys" after "Port store".\nNow: "Wire workspace". Next: "Port store". 1/5 done, 1 blocked · 1 dropped.',
    )
  })

  it("a drop reason is said, and shown in the list as a blocker's is", () => {
    expect(run(SAMPLE, { op: "drop", task: "Port store", reason: "the store is generated" }).text).toBe(
      'Dropped "Port store" ("the store is generated").\nNow: "Wire workspace". 1/3 done, 1 blocked · 2 dropped.',
    )
    expect(formatTask(t("Old", "abandoned", "not needed"))).toBe('[-] "Old" (dropped: "not needed")')
  })

  it("a batch that finishes a task and appends to its phase starts the appended task", () => {
    const list: TodoList = [
      { name: "Build", tasks: [t("Lex", "completed"), t("Parse", "in_progress")] },
      { name: "Ship", tasks: [t("Tag")] },
    ]
    expect(
      run(list, {
        ops: [
          { op: "done", task: "Parse" },
          { op: "append", phase: "Build", items: ["Fuzz"] },
        ],
      }).text,
    ).toBe('Done "Parse". Added "Fuzz" at the end of "Build". Started "Fuzz".\nNext: "Tag". 2/4 done.')
  })

  it("block without a reason, and an updated reason", () => {
    expect(run(SAMPLE, { op: "block", task: "Port store" }).text).toBe(
      'Blocked "Port store".\nNow: "Wire workspace". 1/4 done, 2 blocked · 1 dropped.',
    )
    expect(run(SAMPLE, { op: "block", task: "Get keys", reason: "vendor" }).text).toBe(
      '"Get keys" still blocked: "vendor".\nNow: "Wire workspace". Next: "Port store". 1/4 done, 1 blocked · 1 dropped.',
    )
  })

  it("unblock, and unblock that auto-starts", () => {
    expect(run(SAMPLE, { op: "unblock", task: "Get keys" }).text).toBe(
      'Unblocked "Get keys".\nNow: "Wire workspace". Next: "Port store". 1/4 done · 1 dropped.',
    )
    const idle: TodoList = [{ name: "W", tasks: [t("A", "completed"), t("B", "blocked")] }]
    expect(run(idle, { op: "unblock", task: "B" }).text).toBe('Unblocked and started "B".\n1/2 done.')
  })

  it("unchanged results", () => {
    expect(run(SAMPLE, { op: "done", task: "Scaffold crate" }).text).toBe(
      '"Scaffold crate" is already done.\nNow: "Wire workspace". Next: "Port store". 1/4 done, 1 blocked · 1 dropped.',
    )
    expect(run(SAMPLE, { op: "start", task: "Wire workspace" }).text).toBe(
      '"Wire workspace" is already in progress.\nNow: "Wire workspace". Next: "Port store". 1/4 done, 1 blocked · 1 dropped.',
    )
  })

  it("a phase op lists at most three tasks", () => {
    const big: TodoList = [{ name: "P", tasks: ["a", "b", "c", "d", "e"].map((x) => t(x)) }]
    expect(run(big, { op: "drop", phase: "P" }).text).toBe(
      'Dropped "a", "b", "c" and 2 more.\nNothing open: 0/0 done · 5 dropped.',
    )
  })

  it("a phase op with nothing to do says so", () => {
    expect(run(SAMPLE, { op: "done", phase: "Foundation" }).text).toBe(
      'Done "Wire workspace". Started "Port store".\n2/4 done, 1 blocked · 1 dropped.',
    )
    const closed: TodoList = [{ name: "P", tasks: [t("a", "completed")] }]
    expect(run(closed, { op: "done", phase: "P" }).text).toBe(
      'Nothing to change in phase "P".\nNothing open: 1/1 done.',
    )
    expect(run(closed, { op: "done", task: "a", phase: "P" }).text).toBe(
      '"a" is already done.\nNothing open: 1/1 done.',
    )
  })

  it("appends", () => {
    expect(run(SAMPLE, { phase: "Auth", items: ["Rotate keys"] }).text).toBe(
      'Added "Rotate keys" at the end of "Auth".\nNow: "Wire workspace". Next: "Port store". 1/5 done, 1 blocked · 1 dropped.',
    )
    expect(run(SAMPLE, { phase: "Docs", items: ["Guide", "FAQ"] }).text).toBe(
      'Added "Guide", "FAQ" to new last phase "Docs".\nNow: "Wire workspace". Next: "Port store". 1/6 done, 1 blocked · 1 dropped.',
    )
  })

  it("removals", () => {
    expect(run(SAMPLE, { op: "rm", task: "Old thing" }).text).toBe(
      'Removed "Old thing".\nNow: "Wire workspace". Next: "Port store". 1/4 done, 1 blocked.',
    )
    expect(run(SAMPLE, { op: "rm", phase: "Foundation" }).text).toBe(
      'Removed phase "Foundation" (2 tasks). Started "Port store".\n0/2 done, 1 blocked · 1 dropped.',
    )
    expect(run(SAMPLE, { op: "rm" }).text).toBe("Removed 2 phases, 5 tasks.\nThe list is empty.")
    expect(run([], { op: "rm" }).text).toBe("The list was already empty.\nThe list is empty.")
  })

  it("a batch reads as net effects", () => {
    expect(
      run(SAMPLE, {
        ops: [
          { op: "done", task: "Wire workspace" },
          { op: "done", task: "Port store" },
          { op: "unblock", task: "Get keys" },
        ],
      }).text,
    ).toBe('Done "Wire workspace", "Port store". Unblocked and started "Get keys".\n3/4 done · 1 dropped.')
  })

  it("a batch that ends where it started reads as nothing changed", () => {
    expect(
      run(SAMPLE, {
        ops: [
          { op: "start", task: "Port store" },
          { op: "start", task: "Wire workspace" },
        ],
      }).text,
    ).toBe('No net change.\nNow: "Wire workspace". Next: "Port store". 1/4 done, 1 blocked · 1 dropped.')
  })

  it("everything closed", () => {
    expect(run(SAMPLE, { op: "drop", phase: "Auth" }).text).toBe(
      'Dropped "Port store", "Get keys".\nNow: "Wire workspace". 1/2 done · 3 dropped.',
    )
    expect(
      run(SAMPLE, {
        ops: [
          { op: "drop", phase: "Auth" },
          { op: "done", task: "Wire workspace" },
        ],
      }).text,
    ).toBe('Dropped "Port store", "Get keys". Done "Wire workspace".\nNothing open: 2/2 done · 3 dropped.')
  })

  it("init prints the whole list", () => {
    expect(
      run([], {
        list: [
          { phase: "Plan", items: ["a", "b"] },
          { phase: "Do", items: ["c"] },
        ],
      }).text,
    ).toBe(
      [
        '"Plan" (0/2)',
        '  [>] "a"',
        '  [ ] "b"',
        '"Do" (0/1)',
        '  [ ] "c"',
        'Next: "b". 0/3 done.',
        "Marks: [>] in progress.",
      ].join("\n"),
    )
  })

  it("init over a list says what it replaced", () => {
    expect(run(SAMPLE, { op: "init", items: ["x"] }).text).toBe(
      [
        'Replaced a list of 2 phases, 5 tasks (1/4 done, 1 blocked · 1 dropped). Discarded 3 open tasks: "Wire workspace" (was in progress), "Port store", "Get keys"; append any still needed.',
        '"Tasks" (0/1)',
        '  [>] "x"',
        "0/1 done.",
        "Marks: [>] in progress.",
      ].join("\n"),
    )
    const one: TodoList = [{ name: "P", tasks: [t("a")] }]
    expect(run(one, { op: "init", items: ["x"] }).text.split("\n")[0]).toBe(
      'Replaced a list of 1 phase, 1 task (0/1 done). Discarded 1 open task: "a"; append any still needed.',
    )
  })

  it("view prints the whole list, then what each mark in it means", () => {
    expect(run(SAMPLE, { op: "view" }).text).toBe(
      `${formatList(SAMPLE)}\nMarks: [>] in progress, [-] dropped, [!] blocked.`,
    )
    expect(run([], { op: "view" }).text).toBe("The list is empty.")
  })

  it("a list of only pending and done tasks carries no legend: a checklist's own marks say themselves", () => {
    const list: TodoList = [{ name: "P", tasks: [t("a", "completed"), t("b", "completed")] }]
    expect(run(list, { op: "view" }).text).not.toContain("Marks:")
  })

  it("errors say nothing was changed", () => {
    expect(run(SAMPLE, { op: "drop", task: "Scaffold crate" }).text).toBe(
      'Error: Task "Scaffold crate" is already done; use rm to remove it. Nothing was changed.',
    )
    expect(run(SAMPLE, { ops: [{ op: "view" }, { op: "view" }, { op: "done", task: "Nope" }] }).text).toBe(
      'Error: op 3 (done) failed: No task "Nope". Tasks are addressed by their exact text. Open tasks: "Wire workspace", "Port store", "Get keys". Nothing was changed.',
    )
  })
})

describe("result size over a typical session", () => {
  const NOUNS = ["parser", "lexer", "session store", "auth flow", "CLI", "config loader", "cache", "logger"]
  const VERBS = ["Write the", "Test the", "Document the", "Refactor the", "Wire up the"]
  const texts: string[] = []
  for (const verb of VERBS) for (const noun of NOUNS) texts.push(`${verb} ${noun}`)

  it("averages well under 200 characters per non-init, non-view call", () => {
    expect(texts).toHaveLength(40)
    let list: TodoList = []
    const first = run(list, {
      list: [0, 1, 2, 3, 4].map((p) => ({ phase: `Phase ${p + 1}`, items: texts.slice(p * 8, p * 8 + 8) })),
    })
    expect(first.result.ok).toBe(true)
    list = first.result.list
    const sizes: number[] = []
    const call = (raw: unknown) => {
      const { text, result } = run(list, raw)
      sizes.push(text.length)
      list = result.list
    }
    const current = (): string => {
      for (const phase of list)
        for (const task of phase.tasks) if (task.status === "in_progress") return task.text
      throw new Error("nothing in progress")
    }
    for (let i = 0; i < 50; i++) {
      if (i % 10 === 3) call({ op: "block", task: current(), reason: "waiting on review" })
      else if (i % 10 === 5) call({ op: "append", phase: "Phase 5", items: [`Follow-up ${i}`] })
      else if (i % 10 === 7) call({ op: "done", task: "No such task" })
      else if (i % 10 === 8)
        call({
          ops: [
            { op: "done", task: current() },
            { op: "drop", task: texts[39 - i]! },
          ],
        })
      else call({ op: "done", task: current() })
    }
    expect(sizes).toHaveLength(50)
    const average = sizes.reduce((a, b) => a + b, 0) / sizes.length
    expect(average).toBeLessThan(150)
  })
})
