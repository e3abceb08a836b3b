import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { counts } from "../../src/core/list/queries.ts"
import { clipSegments, displayWidth } from "../../src/core/list/text-width.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { OPEN } from "../../src/core/list/types.ts"
import { STATUS_GLYPHS } from "../../src/core/list/words.ts"
import {
  buildSidebarView,
  lineText,
  SIDEBAR_WIDTH,
  type SidebarRow,
  type SidebarView,
  sidebarModel,
  sidebarText,
} from "../../src/core/view/sidebar.ts"
import { deepFreeze, listArb, phase, task } from "../fixtures/lists.ts"

const lines = (list: TodoList, maxRows: number, width = 60) =>
  sidebarText(buildSidebarView(list, { maxRows })!, width)

// Open tasks: Foundation 1, Build 5 (active), Ship 3. The full view is 13 rows with the header.
const sample: TodoList = deepFreeze([
  phase("Foundation", task("a", "completed"), task("b", "completed"), task("c")),
  phase(
    "Build",
    task("d", "in_progress"),
    task("e"),
    task("f", "blocked", "waiting on review"),
    task("g"),
    task("h"),
  ),
  phase("Ship", task("i"), task("j"), task("k"), task("l", "abandoned")),
])

describe("buildSidebarView basics", () => {
  it("returns undefined for the empty list", () => {
    expect(buildSidebarView([], { maxRows: 10 })).toBeUndefined()
  })

  it("exports one glyph per status", () => {
    expect(STATUS_GLYPHS).toStrictEqual({
      in_progress: "▶",
      pending: "○",
      completed: "✓",
      abandoned: "✗",
      blocked: "⊘",
    })
  })

  it("counts done tasks out of those not dropped; blocked and dropped apart", () => {
    expect(buildSidebarView(sample, { maxRows: 50 })!.header).toStrictEqual({
      completed: 2,
      abandoned: 1,
      blocked: 1,
      total: 12,
    })
    expect(lines(sample, 50)[0]).toBe("2/11 done, 1 blocked · 1 dropped")
    const noBlocked = [phase("P", task("a", "abandoned"), task("b"))]
    expect(buildSidebarView(noBlocked, { maxRows: 50 })!.header).toStrictEqual({
      completed: 0,
      abandoned: 1,
      blocked: 0,
      total: 2,
    })
    expect(lines(noBlocked, 50)[0]).toBe("0/1 done · 1 dropped")
  })

  it("shows each phase row and its open tasks in list order; closed tasks only in the count", () => {
    const list = deepFreeze([
      phase("Done phase", task("x", "completed"), task("y", "abandoned")),
      phase(
        "Work",
        task("a", "completed"),
        task("b", "blocked", "needs a key"),
        task("c", "in_progress"),
        task("d"),
      ),
      phase("Empty"),
    ])
    const view: SidebarView = {
      header: { completed: 2, abandoned: 1, blocked: 1, total: 6 },
      rows: [
        { kind: "phase", name: "Done phase", count: "1/1", active: false, text: "Done phase 1/1" },
        { kind: "phase", name: "Work", count: "1/4", active: true, text: "Work 1/4" },
        { kind: "task", text: "b", status: "blocked", blocker: "needs a key" },
        { kind: "task", text: "c", status: "in_progress" },
        { kind: "task", text: "d", status: "pending" },
        { kind: "phase", name: "Empty", count: "0/0", active: false, text: "Empty 0/0" },
      ],
    }
    expect(buildSidebarView(list, { maxRows: 7 })).toStrictEqual(view)
    expect(sidebarText(view, 40)).toStrictEqual([
      "2/5 done, 1 blocked · 1 dropped",
      "Done phase 1/1",
      "Work 1/4",
      "  ⊘ b — needs a key",
      "  ▶ c",
      "  ○ d",
      "Empty 0/0",
    ])
  })

  it("shows a list of empty phases with zero counts", () => {
    expect(buildSidebarView([phase("A")], { maxRows: 5 })).toStrictEqual({
      header: { completed: 0, abandoned: 0, blocked: 0, total: 0 },
      rows: [{ kind: "phase", name: "A", count: "0/0", active: false, text: "A 0/0" }],
    })
  })

  it("makes the first phase with open work active when nothing is in progress; blocked ranks first", () => {
    const list = [
      phase("A", task("a", "completed")),
      phase("B", task("x"), task("y", "blocked")),
      phase("C", task("z")),
    ]
    expect(buildSidebarView(list, { maxRows: 3 })!.rows).toStrictEqual([
      { kind: "phase", name: "B", count: "0/2", active: true, text: "B 0/2" },
      { kind: "task", text: "y", status: "blocked" },
    ])
  })
})

describe("buildSidebarView collapsing (the header counts as a row)", () => {
  const header = "2/11 done, 1 blocked · 1 dropped"

  it("shows everything when the budget fits", () => {
    const full = [
      header,
      "Foundation 2/3",
      "  ○ c",
      "Build 0/5",
      "  ▶ d",
      "  ○ e",
      "  ⊘ f — waiting on review",
      "  ○ g",
      "  ○ h",
      "Ship 0/3",
      "  ○ i",
      "  ○ j",
      "  ○ k",
    ]
    expect(lines(sample, 13)).toStrictEqual(full)
    expect(lines(sample, 100)).toStrictEqual(full)
    expect(lines(sample, Number.POSITIVE_INFINITY)).toStrictEqual(full)
  })

  it("cuts the far phase to just enough relevant tasks first", () => {
    expect(lines(sample, 12)).toStrictEqual([
      header,
      "Foundation 2/3",
      "  ○ c",
      "Build 0/5",
      "  ▶ d",
      "  ○ e",
      "  ⊘ f — waiting on review",
      "  ○ g",
      "  ○ h",
      "Ship 0/3",
      "  ○ i",
      "    … 2 more",
    ])
  })

  it("then reduces other phases to their row, far first", () => {
    const tenRows = [
      header,
      "Foundation 2/3",
      "  ○ c",
      "Build 0/5",
      "  ▶ d",
      "  ○ e",
      "  ⊘ f — waiting on review",
      "  ○ g",
      "  ○ h",
      "Ship 0/3",
    ]
    // Going from one task plus "more" to the row alone saves two rows, so 11 gets the 10-row view.
    expect(lines(sample, 11)).toStrictEqual(tenRows)
    expect(lines(sample, 10)).toStrictEqual(tenRows)
    expect(lines(sample, 9)).toStrictEqual([
      header,
      "Foundation 2/3",
      "Build 0/5",
      "  ▶ d",
      "  ○ e",
      "  ⊘ f — waiting on review",
      "  ○ g",
      "  ○ h",
      "Ship 0/3",
    ])
  })

  it("then cuts the active phase to its most relevant tasks, shown in list order", () => {
    expect(lines(sample, 8)).toStrictEqual([
      header,
      "Foundation 2/3",
      "Build 0/5",
      "  ▶ d",
      "  ○ e",
      "  ⊘ f — waiting on review",
      "    … 2 more",
      "Ship 0/3",
    ])
    expect(lines(sample, 7)).toStrictEqual([
      header,
      "Foundation 2/3",
      "Build 0/5",
      "  ▶ d",
      "  ⊘ f — waiting on review",
      "    … 3 more",
      "Ship 0/3",
    ])
    expect(lines(sample, 6)).toStrictEqual([
      header,
      "Foundation 2/3",
      "Build 0/5",
      "  ▶ d",
      "    … 4 more",
      "Ship 0/3",
    ])
    expect(lines(sample, 5)).toStrictEqual([header, "Foundation 2/3", "Build 0/5", "  ▶ d", "Ship 0/3"])
  })

  it("then hides phases and finally keeps only the active phase and its task", () => {
    expect(lines(sample, 4)).toStrictEqual([header, "Build 0/5", "  ▶ d", "Ship 0/3"])
    expect(lines(sample, 3)).toStrictEqual([header, "Build 0/5", "  ▶ d"])
  })

  it("treats budgets below 3 (and NaN) as 3, and floors fractions", () => {
    const three = lines(sample, 3)
    for (const budget of [2, 1, 0, -5, Number.NaN, 3.9]) expect(lines(sample, budget)).toStrictEqual(three)
    expect(lines(sample, 8.7)).toStrictEqual(lines(sample, 8))
  })

  it("reports hidden counts on the more rows", () => {
    const rows = buildSidebarView(sample, { maxRows: 7 })!.rows
    expect(rows.filter((row) => row.kind === "more")).toStrictEqual([
      { kind: "more", of: "tasks", hidden: 3, text: "… 3 more" },
    ])
  })
})

describe("buildSidebarView keeps a deep in-progress task visible", () => {
  const closedPhase = (n: number) =>
    phase(`P${n}`, ...[1, 2, 3, 4].map((i) => task(`p${n}-${i}`, i % 2 === 0 ? "completed" : "abandoned")))
  const list: TodoList = deepFreeze([
    closedPhase(1),
    closedPhase(2),
    closedPhase(3),
    closedPhase(4),
    phase("P5", task("t1"), task("t2"), task("t3", "blocked"), task("t4", "in_progress")),
    phase("P6", task("u1"), task("u2"), task("u3")),
  ])
  const header = "8/15 done, 1 blocked · 8 dropped"

  it("cuts around the active phase at 10 rows", () => {
    expect(lines(list, 10)).toStrictEqual([
      header,
      "P1 2/2",
      "P2 2/2",
      "P3 2/2",
      "P4 2/2",
      "P5 0/4",
      "  ⊘ t3",
      "  ▶ t4",
      "    … 2 more",
      "P6 0/3",
    ])
  })

  it("summarizes far phases when their rows do not fit", () => {
    expect(buildSidebarView(list, { maxRows: 6 })!.rows).toStrictEqual([
      { kind: "more", of: "phases", hidden: 3, text: "… 3 earlier phases" },
      { kind: "phase", name: "P4", count: "2/2", active: false, text: "P4 2/2" },
      { kind: "phase", name: "P5", count: "0/4", active: true, text: "P5 0/4" },
      { kind: "task", text: "t4", status: "in_progress" },
      { kind: "phase", name: "P6", count: "0/3", active: false, text: "P6 0/3" },
    ])
    // A summary that would stand for one phase shows that phase instead.
    expect(lines(list, 5)).toStrictEqual([header, "… 4 earlier phases", "P5 0/4", "  ▶ t4", "P6 0/3"])
    expect(lines(list, 4)).toStrictEqual([header, "P5 0/4", "  ▶ t4", "P6 0/3"])
    expect(lines(list, 3)).toStrictEqual([header, "P5 0/4", "  ▶ t4"])
  })

  it("uses the last phase as the anchor when everything is closed", () => {
    const closed = [closedPhase(1), closedPhase(2), closedPhase(3), closedPhase(4), closedPhase(5)]
    expect(lines(closed, 4)).toStrictEqual([
      "10/10 done · 10 dropped",
      "… 3 earlier phases",
      "P4 2/2",
      "P5 2/2",
    ])
    expect(lines(closed, 3)).toStrictEqual(["10/10 done · 10 dropped", "… 4 earlier phases", "P5 2/2"])
    expect(buildSidebarView(closed, { maxRows: 3 })!.rows[0]).toStrictEqual({
      kind: "more",
      of: "phases",
      hidden: 4,
      text: "… 4 earlier phases",
    })
  })

  it("summarizes hidden phases on both sides of the active one", () => {
    const many = [
      closedPhase(1),
      closedPhase(2),
      phase("A", task("a", "in_progress")),
      closedPhase(3),
      closedPhase(4),
    ]
    expect(lines(many, 5)).toStrictEqual([
      "8/9 done · 8 dropped",
      "… 2 earlier phases",
      "A 0/1",
      "  ▶ a",
      "… 2 more phases",
    ])
    const more = [...many, closedPhase(5)]
    expect(lines(more, 5)).toStrictEqual([
      "10/11 done · 10 dropped",
      "… 2 earlier phases",
      "A 0/1",
      "  ▶ a",
      "… 3 more phases",
    ])
    expect(lines(more, 6)).toStrictEqual([
      "10/11 done · 10 dropped",
      "P1 2/2",
      "P2 2/2",
      "A 0/1",
      "  ▶ a",
      "… 3 more phases",
    ])
    expect(lines(more, 7)).toStrictEqual([
      "10/11 done · 10 dropped",
      "P1 2/2",
      "P2 2/2",
      "A 0/1",
      "  ▶ a",
      "P3 2/2",
      "… 2 more phases",
    ])
  })
})

describe("sidebarText", () => {
  it("cuts long lines to the width with an ellipsis, counting code points", () => {
    const view = buildSidebarView(
      [phase("Phase with a long name", task("🚀🚀🚀🚀🚀🚀 launch", "in_progress"))],
      {
        maxRows: 5,
      },
    )!
    expect(sidebarText(view, 10)).toStrictEqual(["0/1 done", "Phase wit…", "  ▶ 🚀🚀🚀🚀🚀…"])
    expect(sidebarText(view, 1)).toStrictEqual(["…", "…", "…"])
    expect(sidebarText(view, 0)).toStrictEqual(["…", "…", "…"])
  })

  it("trims the space before the ellipsis", () => {
    const view = buildSidebarView([phase("ab cd", task("x"))], { maxRows: 5 })!
    expect(sidebarText(view, 4)).toStrictEqual(["0/1…", "ab…", "  ○…"])
    expect(sidebarText(view, 5)).toStrictEqual(["0/1…", "ab c…", "  ○ x"])
  })
})

function fullRows(list: TodoList): number {
  let rows = 1
  for (const p of list) rows += 1 + p.tasks.filter((t) => OPEN.has(t.status)).length
  return rows
}

describe("buildSidebarView properties", () => {
  it("never exceeds the budget, keeps the in-progress task, and stays consistent", () => {
    fc.assert(
      fc.property(listArb, fc.integer({ min: -2, max: 40 }), (raw, maxRows) => {
        const list = deepFreeze(raw)
        const before = structuredClone(raw)
        const view = buildSidebarView(list, { maxRows })!
        const budget = Math.max(3, maxRows)
        const used = 1 + view.rows.length
        expect(used).toBeLessThanOrEqual(budget)
        expect(list).toStrictEqual(before)
        expect(buildSidebarView(list, { maxRows })).toStrictEqual(view)

        const c = counts(list)
        expect(view.header.completed).toBe(c.completed)
        expect(view.header.abandoned).toBe(c.abandoned)
        expect(view.header.total).toBe(c.total)
        expect(view.header.blocked).toBe(c.blocked)

        const full = fullRows(list)
        if (full <= budget) expect(used).toBe(full)
        // Each step removes at most two rows past the need, so at most one row goes unused.
        else expect(used).toBeGreaterThanOrEqual(budget - 1)

        const current = list.flatMap((p) => p.tasks).find((t) => t.status === "in_progress")
        if (current)
          expect(view.rows).toContainEqual({ kind: "task", text: current.text, status: "in_progress" })

        checkBlocks(list, view.rows)
      }),
      { numRuns: 1000 },
    )
  })
})

/** Phase rows in list order as one contiguous run; each phase's rows match its open tasks. */
function checkBlocks(list: TodoList, rows: readonly SidebarRow[]): void {
  let i = 0
  let firstVisible = -1
  let lastVisible = -1
  if (rows[0]?.kind === "more" && rows[0].of === "phases") i = 1
  while (i < rows.length && rows[i]!.kind === "phase") {
    const row = rows[i]!
    if (row.kind !== "phase") break
    const p = list.findIndex((ph) => ph.name === row.name)
    if (firstVisible === -1) firstVisible = p
    else expect(p).toBe(lastVisible + 1)
    lastVisible = p
    const open = list[p]!.tasks.filter((t) => OPEN.has(t.status))
    i++
    const shown: string[] = []
    while (i < rows.length && rows[i]!.kind === "task") {
      const t = rows[i]!
      if (t.kind === "task") shown.push(t.text)
      i++
    }
    // Shown tasks are open tasks of this phase, in list order.
    const order = open.map((t) => t.text)
    expect(shown).toStrictEqual(order.filter((t) => shown.includes(t)))
    const more = rows[i]
    if (more?.kind === "more" && more.of === "tasks") {
      expect(more.hidden).toBe(open.length - shown.length)
      expect(more.hidden).toBeGreaterThan(0)
      expect(more.text).toBe(`… ${more.hidden} more`)
      i++
    } else if (!(row.active && shown.length === 1)) {
      expect([0, open.length]).toContain(shown.length)
    }
  }
  const top = rows[0]
  if (top?.kind === "more") expect(top.hidden).toBe(firstVisible)
  const rest = rows.slice(i)
  if (rest.length === 1) {
    const bottom = rest[0]!
    expect(bottom.kind === "more" && bottom.of === "phases").toBe(true)
    if (bottom.kind === "more") expect(bottom.hidden).toBe(list.length - 1 - lastVisible)
  } else expect(rest).toStrictEqual([])
  expect(firstVisible).toBeGreaterThanOrEqual(0)
}

const painted: TodoList = [
  phase("Design", task("Sketch the data model", "completed"), task("Write the parser", "in_progress")),
  phase(
    "Build",
    task("Wire the sidebar"),
    task("Add the dialog", "blocked", "needs review"),
    task("Old idea", "abandoned"),
  ),
]

const texts = (list: TodoList, maxRows = 14, width = SIDEBAR_WIDTH) =>
  sidebarModel(list, { maxRows, width })!.map(lineText)

describe("sidebarModel", () => {
  it("is undefined for an empty list", () => {
    expect(sidebarModel([], { maxRows: 10 })).toBeUndefined()
  })

  it("shows the header, phases with counts, and open tasks with glyphs and blockers", () => {
    expect(texts(painted)).toEqual([
      "Todo 1/4 done, 1 blocked · 1 dropped",
      "Design 1/2",
      "  ▶ Write the parser",
      "Build 0/2",
      "  ○ Wire the sidebar",
      "  ⊘ Add the dialog — needs review",
    ])
  })

  it("gives each status its own tone, the blocker muted and the header's blocked count as an error", () => {
    const lines = sidebarModel(painted, { maxRows: 14 })!
    expect(lines[0]!.segments).toEqual([
      { text: "Todo", tone: "title" },
      { text: " 1/4 done", tone: "muted" },
      { text: ", 1 blocked", tone: "error" },
      { text: " · 1 dropped", tone: "muted" },
    ])
    expect(lines[2]!.segments).toEqual([{ text: "  ▶ Write the parser", tone: "in_progress" }])
    expect(lines[4]!.segments).toEqual([{ text: "  ○ Wire the sidebar", tone: "pending" }])
    expect(lines[5]!.segments).toEqual([
      { text: "  ⊘ Add the dialog", tone: "blocked" },
      { text: " — needs review", tone: "muted" },
    ])
  })

  it("marks the active phase in the text tone and the others muted", () => {
    const lines = sidebarModel(painted, { maxRows: 14 })!
    expect(lines[1]!.segments[0]).toEqual({ text: "Design", tone: "text" })
    expect(lines[3]!.segments[0]).toEqual({ text: "Build", tone: "muted" })
  })

  it("keeps within the row budget and says what it hides", () => {
    const many: TodoList = [phase("Work", ...["a", "b", "c", "d", "e", "f"].map((t) => task(t)))]
    const lines = texts(many, 5)
    expect(lines).toEqual(["Todo  0/6 done", "Work 0/6", "  ○ a", "  ○ b", "    … 4 more"])
    expect(lines).toHaveLength(5)
  })

  it("cuts long rows to the width with an ellipsis", () => {
    const long: TodoList = [phase("P", task("x".repeat(60), "in_progress"))]
    const row = sidebarModel(long, { maxRows: 14, width: 20 })![2]!
    expect(lineText(row)).toBe(`  ▶ ${"x".repeat(15)}…`)
    expect(displayWidth(lineText(row))).toBe(20)
    expect(row.segments).toEqual([{ text: `  ▶ ${"x".repeat(15)}…`, tone: "in_progress" }])
  })

  it("counts wide characters as two columns", () => {
    const wide: TodoList = [phase("P", task("漢字漢字漢字漢字漢字漢字", "in_progress"))]
    const row = lineText(sidebarModel(wide, { maxRows: 14, width: 12 })![2]!)
    expect(row).toBe("  ▶ 漢字漢…")
    expect(displayWidth(row)).toBeLessThanOrEqual(12)
  })
})

describe("clipSegments", () => {
  it("leaves fitting segments alone, dropping empty ones", () => {
    expect(
      clipSegments(
        [
          { text: "ab", tone: "text" },
          { text: "", tone: "muted" },
        ],
        5,
      ),
    ).toEqual([{ text: "ab", tone: "text" }])
  })

  it("ends the cut in the tone of the segment it falls in", () => {
    expect(
      clipSegments(
        [
          { text: "abc", tone: "text" },
          { text: " defgh", tone: "muted" },
        ],
        6,
      ),
    ).toEqual([
      { text: "abc", tone: "text" },
      { text: " d…", tone: "muted" },
    ])
  })

  it("trims the space before the ellipsis", () => {
    expect(clipSegments([{ text: "abcd efgh", tone: "text" }], 6)).toEqual([{ text: "abcd…", tone: "text" }])
  })
})
