// The /todo dialog opens at the work: the order it lists a list in and the phases it folds
// (src/core/view/dialog-order.ts), and the rows the host shows on its first screen.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { activePhase } from "../../src/core/list/queries.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { CLOSED, OPEN } from "../../src/core/list/types.ts"
import {
  FOLDED_CATEGORY,
  type MainOption,
  mainOptions,
  mainPlaceholder,
  unfoldedFocus,
} from "../../src/core/view/dialog.ts"
import { dialogOrder, finishedPhase } from "../../src/core/view/dialog-order.ts"
import { listArb, phase, task } from "../fixtures/lists.ts"

/**
 * The rows the 1.18 host's select dialog lays the options out in: grouped by category in order of
 * first appearance, each group under its heading, a blank row between groups. It shows
 * floor(lines / 2) - 6 of them (16 at 45 lines, 19 at 50) before scrolling.
 */
function hostRows(options: readonly MainOption[]): string[] {
  const groups = new Map<string, MainOption[]>()
  for (const option of options) groups.set(option.category, [...(groups.get(option.category) ?? []), option])
  const rows: string[] = []
  for (const [category, members] of groups) {
    if (rows.length > 0) rows.push("")
    rows.push(category, ...members.map((m) => `${m.title} ${m.description}`))
  }
  return rows
}
const firstScreen = (lines: number) => Math.floor(lines / 2) - 6

/** The list: 8 tasks, the earlier phases finished, the work in the last one. */
const laterWork: TodoList = [
  phase(
    "Design",
    task("Sketch the model", "completed"),
    task("Write the parser", "completed"),
    task("Old idea", "abandoned"),
  ),
  phase("Build", task("Wire the sidebar", "completed"), task("Add the dialog", "completed")),
  phase("Ship", task("Tag the release", "in_progress"), task("Publish the package"), task("Announce it")),
]

describe("the dialog opens at the work", () => {
  it("shows the in-progress phase's open tasks on the first screen at 160x45 once earlier phases are finished", () => {
    const rows = hostRows(mainOptions(laterWork)).slice(0, firstScreen(45))
    for (const open of ["▶ Tag the release", "○ Publish the package", "○ Announce it"])
      expect(rows.some((row) => row.startsWith(open))).toBe(true)
    expect(rows).toContain("Append a task… add a task to a phase")
  })

  it("folds each finished phase to one row with its count, after the work", () => {
    const options = mainOptions(laterWork)
    const folded = options.filter((o) => o.category === FOLDED_CATEGORY)
    expect(folded.map((o) => [o.title, o.value])).toEqual([
      ["▸ Design 2/2", { kind: "phase", name: "Design" }],
      ["▸ Build 2/2", { kind: "phase", name: "Build" }],
    ])
    expect(options.some((o) => o.value.kind === "task" && o.value.text === "Sketch the model")).toBe(false)
    expect(options.at(-1)?.category).toBe(FOLDED_CATEGORY)
  })

  it("a chosen folded phase is listed whole, and the cursor goes to its first task", () => {
    const options = mainOptions(laterWork, ["Design"])
    const design = options.filter((o) => o.category === "Design 2/2").map((o) => o.title)
    expect(design).toEqual(["✓ Sketch the model", "✓ Write the parser", "✗ Old idea"])
    expect(options.filter((o) => o.category === FOLDED_CATEGORY).map((o) => o.title)).toEqual(["▸ Build 2/2"])
    expect(unfoldedFocus(laterWork, "Design")).toEqual({ kind: "task", text: "Sketch the model" })
  })

  it("lists the active phase first; in a phase the task in progress, the other open tasks, then the closed ones", () => {
    const list: TodoList = [
      phase("Plan", task("Outline")),
      phase(
        "Build",
        task("Parse", "completed"),
        task("Lint", "blocked", "why"),
        task("Render", "in_progress"),
        task("Test"),
      ),
    ]
    const order = dialogOrder(list)
    expect(order.listed).toEqual([
      { phase: 1, tasks: [2, 1, 3, 0] },
      { phase: 0, tasks: [0] },
    ])
  })

  it("says what typing finds", () => {
    expect(mainPlaceholder([])).toBe("The list is empty")
    expect(mainPlaceholder([phase("P", task("a"))])).toBe("Type to find a task")
    expect(mainPlaceholder(laterWork)).toBe("Type to find a task or a finished phase")
  })
})

describe("dialogOrder, for any list", () => {
  const unfoldedArb = (list: TodoList) =>
    fc.subarray(list.map((p) => p.name)).map((names) => ({ list, unfolded: names }))
  const cases = listArb.chain(unfoldedArb)

  it("lists every task once or folds it inside exactly one finished phase; no open task is folded", () => {
    fc.assert(
      fc.property(cases, ({ list, unfolded }) => {
        const { listed, folded } = dialogOrder(list, unfolded)
        const seen = new Set<string>()
        for (const { phase: p, tasks } of listed) {
          expect([...tasks].sort((a, b) => a - b)).toEqual(list[p]!.tasks.map((_, i) => i))
          for (const t of tasks) seen.add(`${p}/${t}`)
        }
        for (const p of folded) {
          expect(finishedPhase(list[p]!.tasks)).toBe(true)
          expect(unfolded).not.toContain(list[p]!.name)
          for (const t of list[p]!.tasks.keys()) seen.add(`${p}/${t}`)
        }
        const total = list.reduce((n, p) => n + p.tasks.length, 0)
        expect(seen.size).toBe(total)
        expect(listed.length + folded.length).toBe(list.filter((p) => p.tasks.length > 0).length)
      }),
    )
  })

  it("leads with the active phase and its task in progress; in each phase open tasks come first, each kind in list order", () => {
    fc.assert(
      fc.property(cases, ({ list, unfolded }) => {
        const { listed } = dialogOrder(list, unfolded)
        const active = activePhase(list)
        if (active >= 0) expect(listed[0]?.phase).toBe(active)
        const inProgress = list.flatMap((p) => p.tasks).find((t) => t.status === "in_progress")
        if (inProgress) expect(list[listed[0]!.phase]!.tasks[listed[0]!.tasks[0]!]).toBe(inProgress)
        // Phases with work left come before unfolded finished ones.
        const finished = listed.map(({ phase: p }) => finishedPhase(list[p]!.tasks))
        expect(finished).toEqual([...finished].sort((a, b) => Number(a) - Number(b)))
        for (const { phase: p, tasks } of listed) {
          const statuses = tasks.map((t) => list[p]!.tasks[t]!.status)
          const firstClosed = statuses.findIndex((s) => CLOSED.has(s))
          if (firstClosed >= 0) expect(statuses.slice(firstClosed).every((s) => !OPEN.has(s))).toBe(true)
          const open = tasks.filter(
            (t) => OPEN.has(list[p]!.tasks[t]!.status) && list[p]!.tasks[t] !== inProgress,
          )
          expect(open).toEqual([...open].sort((a, b) => a - b))
          const closed = tasks.filter((t) => CLOSED.has(list[p]!.tasks[t]!.status))
          expect(closed).toEqual([...closed].sort((a, b) => a - b))
        }
      }),
    )
  })
})
