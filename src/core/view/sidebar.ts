// The sidebar: which rows to show for a list within a row budget (buildSidebarView), those rows as
// coloured segments cut to the panel width (sidebarModel, with core/list/text-width.ts), and as plain
// text (sidebarText, for a picture of the sidebar outside the TUI). Pure: the TUI shell
// (src/tui/sidebar.tsx) maps tones to theme colours.

/*
 * Rules:
 * - The header (overall counts) counts as one row: 1 + rows.length <= maxRows.
 *   A maxRows below 3 (or NaN) is treated as 3, the smallest view that still shows the header,
 *   the active phase and its focus task.
 * - A phase shows its row ("Name done/counted", dropped tasks out of the count as words.ts says) and
 *   its open tasks (pending, in progress, blocked) in list order. Closed tasks are only counted on the
 *   phase row; a fully closed phase is its row.
 * - The active phase is the one holding the in-progress task, else the first with open tasks.
 *   With no open task anywhere, the last phase anchors the view instead.
 * - Relevance inside a phase: in progress, then blocked, then pending in list order. A phase cut to
 *   its k most relevant tasks shows them in list order followed by "… N more" (N hidden open tasks).
 * - When the full view does not fit, the steps below run in order, each stopping as soon as it fits.
 *   "Far first" means by distance from the active phase, the later one first on a tie.
 *   1. Other phases, far first, are cut to just enough relevant tasks (at least one). A phase with
 *      two or fewer open tasks is left whole: one task plus a "more" row would save nothing.
 *   2. Other phases, far first, are reduced to their phase row only (no "more" row: the count says it).
 *   3. The active phase is cut to just enough relevant tasks (at least its focus task).
 *   4. The active phase drops to its focus task alone (no "more" row).
 *   5. Other phases, far first, are hidden; the visible ones stay a contiguous run around the
 *      active phase, with "… N earlier phases" above and "… N more phases" below.
 *   6. The "earlier phases" row is dropped, then the "more phases" row.
 *   Finally a phases row standing for a single phase is swapped for that phase's row (same cost).
 *   So the in-progress task always stays visible and the budget is never exceeded. One pass, O(tasks).
 */

import { MIN_SIDEBAR_ROWS } from "../config.ts"
import { activePhase, countTasks } from "../list/queries.ts"
import { clipSegments, displayWidth } from "../list/text-width.ts"
import type { Task, TaskStatus, TodoList } from "../list/types.ts"
import { OPEN } from "../list/types.ts"
import {
  blockedText,
  doneText,
  droppedText,
  neutralize,
  type Progress,
  phaseTallyText,
  progressText,
  STATUS_GLYPHS,
  tallyText,
} from "../list/words.ts"

/** Columns the host's session sidebar shows of a plugin row: 42 wide, less padding and the scrollbar (37 seen), minus one spare. */
export const SIDEBAR_WIDTH = 36

export type SidebarRow =
  | {
      readonly kind: "phase"
      readonly name: string
      /** "1/2": done out of the tasks not dropped, or "dropped" (words.ts's phaseTallyText). */
      readonly count: string
      /** True for the phase the view centres on (see the rules above). */
      readonly active: boolean
      /** e.g. "Foundation 1/2" */
      readonly text: string
    }
  | { readonly kind: "task"; readonly text: string; readonly status: TaskStatus; readonly blocker?: string }
  | {
      readonly kind: "more"
      /** Hidden open tasks of the phase above ("tasks"), or hidden phases ("phases"). */
      readonly of: "tasks" | "phases"
      readonly hidden: number
      /** "… N more", "… N earlier phases", "… N more phases" */
      readonly text: string
    }

export interface SidebarView {
  /** The overall counts. */
  readonly header: Progress
  readonly rows: readonly SidebarRow[]
}

export interface SidebarOptions {
  readonly maxRows: number
}

interface PhasePlan {
  /** Open tasks in list order. */
  readonly open: readonly Task[]
  /** Indices into `open`, most relevant first. */
  readonly ranked: readonly number[]
  /** How many open tasks are shown. */
  quota: number
  /** Whether a "… N more" row follows the shown tasks. */
  more: boolean
}

export function buildSidebarView(list: TodoList, options: SidebarOptions): SidebarView | undefined {
  if (list.length === 0) return undefined
  const budget = Number.isNaN(options.maxRows)
    ? MIN_SIDEBAR_ROWS
    : Math.max(MIN_SIDEBAR_ROWS, Math.floor(options.maxRows))

  const all: Task[] = []
  const plans: PhasePlan[] = []
  for (const phase of list) {
    all.push(...phase.tasks)
    const open = phase.tasks.filter((task) => OPEN.has(task.status))
    plans.push({ open, ranked: rank(open), quota: open.length, more: false })
  }
  const active = activePhase(list)
  const hasActive = active !== -1
  const anchor = hasActive ? active : list.length - 1

  const overall = countTasks(all)
  const header: Progress = {
    completed: overall.completed,
    abandoned: overall.abandoned,
    blocked: overall.blocked,
    total: overall.total,
  }

  const rowsOf = (plan: PhasePlan): number => 1 + plan.quota + (plan.more ? 1 : 0)
  let total = 1
  for (const plan of plans) total += rowsOf(plan)
  const over = (): boolean => total > budget

  /** Cuts a phase to just enough relevant tasks to remove the excess, keeping at least one. */
  const cut = (plan: PhasePlan): void => {
    if (plan.quota < plan.open.length || plan.open.length < 3) return
    const quota = Math.max(1, plan.open.length - 1 - (total - budget))
    total -= rowsOf(plan)
    plan.quota = quota
    plan.more = true
    total += rowsOf(plan)
  }

  const order = farFirst(list.length, anchor)
  // 1.
  for (const p of order) {
    if (!over()) break
    cut(plans[p]!)
  }
  // 2.
  for (const p of order) {
    if (!over()) break
    const plan = plans[p]!
    total -= rowsOf(plan) - 1
    plan.quota = 0
    plan.more = false
  }
  // 3.
  if (over() && hasActive) cut(plans[anchor]!)
  // 4.
  if (over() && hasActive) {
    const plan = plans[anchor]!
    total -= rowsOf(plan)
    plan.quota = 1
    plan.more = false
    total += rowsOf(plan)
  }
  // 5.
  let lo = 0
  let hi = list.length - 1
  let above = false
  let below = false
  for (const p of order) {
    if (!over()) break
    total -= rowsOf(plans[p]!)
    if (p < anchor) {
      lo = p + 1
      if (!above) total++
      above = true
    } else {
      hi = p - 1
      if (!below) total++
      below = true
    }
  }
  // 6.
  if (over() && above) {
    above = false
    total--
  }
  if (over() && below) {
    below = false
    total--
  }
  // Hidden phases are row-only by now, so showing the one phase a summary stands for costs the same.
  if (above && lo === 1) {
    above = false
    lo = 0
  }
  if (below && hi === list.length - 2) {
    below = false
    hi = list.length - 1
  }

  const shown: Window = { lo, hi, above, below }
  return { header, rows: windowRows(list, plans, shown, hasActive ? anchor : -1) }
}

/** The phases the budget leaves shown, lo..hi, and whether a summary row stands for those above or below. */
interface Window {
  readonly lo: number
  readonly hi: number
  readonly above: boolean
  readonly below: boolean
}

/** The rows of the phases in `shown`, each with the tasks its plan shows; phase `active` is marked so. */
function windowRows(
  list: TodoList,
  plans: readonly PhasePlan[],
  shown: Window,
  active: number,
): SidebarRow[] {
  const { lo, hi, above, below } = shown
  const rows: SidebarRow[] = []
  if (above) rows.push(phasesRow(lo, "earlier"))
  for (let p = lo; p <= hi; p++) {
    const phase = list[p]!
    const plan = plans[p]!
    const count = countTasks(phase.tasks)
    rows.push({
      kind: "phase",
      name: phase.name,
      count: phaseTallyText(count),
      active: p === active,
      text: `${neutralize(phase.name)} ${phaseTallyText(count)}`,
    })
    const shownTasks = new Set(plan.ranked.slice(0, plan.quota))
    plan.open.forEach((task, i) => {
      if (shownTasks.has(i)) rows.push(taskRow(task))
    })
    if (plan.more) {
      const hidden = plan.open.length - plan.quota
      rows.push({ kind: "more", of: "tasks", hidden, text: `… ${hidden} more` })
    }
  }
  if (below) rows.push(phasesRow(list.length - 1 - hi, "more"))
  return rows
}

/** Plain-text picture of a view: header, then one line per row, each cut to `width` code points. */
export function sidebarText(view: SidebarView, width: number): string[] {
  const lines = [progressText(view.header)]
  for (const row of view.rows) {
    if (row.kind === "phase") lines.push(row.text)
    else if (row.kind === "task")
      lines.push(
        `  ${STATUS_GLYPHS[row.status]} ${row.text}${row.blocker === undefined ? "" : ` — ${row.blocker}`}`,
      )
    else lines.push(row.of === "tasks" ? `    ${row.text}` : row.text)
  }
  return lines.map((line) => clip(line, width))
}

function clip(line: string, width: number): string {
  const max = Math.max(1, Math.floor(width))
  const chars = Array.from(line)
  if (chars.length <= max) return line
  return `${chars
    .slice(0, max - 1)
    .join("")
    .trimEnd()}…`
}

/** Indices of open tasks, most relevant first: in progress, blocked, pending, each in list order. */
function rank(open: readonly Task[]): number[] {
  const buckets: number[][] = [[], [], []]
  open.forEach((task, i) => {
    buckets[task.status === "in_progress" ? 0 : task.status === "blocked" ? 1 : 2]!.push(i)
  })
  return buckets.flat()
}

function taskRow(task: Task): SidebarRow {
  return task.blocker === undefined
    ? { kind: "task", text: neutralize(task.text), status: task.status }
    : { kind: "task", text: neutralize(task.text), status: task.status, blocker: neutralize(task.blocker) }
}

// Always plural: a summary standing for one phase is replaced by that phase's row.
function phasesRow(hidden: number, where: "earlier" | "more"): SidebarRow {
  return { kind: "more", of: "phases", hidden, text: `… ${hidden} ${where} phases` }
}

/** Phase indices other than the anchor, farthest from it first; on a tie the later phase first. */
function farFirst(count: number, anchor: number): number[] {
  const order: number[] = []
  let left = 0
  let right = count - 1
  while (left < anchor || right > anchor) {
    if (right > anchor && (left >= anchor || right - anchor >= anchor - left)) order.push(right--)
    else order.push(left++)
  }
  return order
}

// ---- painted lines -------------------------------------------------------------------------------

/** How a piece of text is painted; the shell maps each tone to a theme colour. */
export type Tone = "title" | "text" | "muted" | "error" | TaskStatus

export interface Segment {
  readonly text: string
  readonly tone: Tone
}

export interface SidebarLine {
  readonly kind: "header" | "phase" | "task" | "more"
  readonly segments: readonly Segment[]
}

/**
 * The sidebar block: a header line ("Todo  3/12 done, 1 blocked · 1 dropped") and the rows of buildSidebarView, each cut
 * to `width` columns. Undefined for a list without phases: the block is then not shown at all.
 */
export function sidebarModel(
  list: TodoList,
  options: { readonly maxRows: number; readonly width?: number },
): SidebarLine[] | undefined {
  const view = buildSidebarView(list, { maxRows: options.maxRows })
  if (view === undefined) return undefined
  const width = Math.max(8, Math.floor(options.width ?? SIDEBAR_WIDTH))
  const { header } = view
  const headerSegments: Segment[] = [
    { text: "Todo", tone: "title" },
    { text: `  ${doneText(header)}`, tone: "muted" },
  ]
  if (header.blocked > 0) headerSegments.push({ text: `, ${blockedText(header)}`, tone: "error" })
  if (header.abandoned > 0) headerSegments.push({ text: droppedText(header), tone: "muted" })
  // The counts stay whole before the gap and the word "done" do: "Todo 12/40, 3 blocked · 10 dropped".
  const rest = displayWidth(
    headerSegments
      .slice(2)
      .map((s) => s.text)
      .join(""),
  )
  const count =
    [`  ${doneText(header)}`, ` ${doneText(header)}`, `  ${tallyText(header)}`].find(
      (text) => 4 + displayWidth(text) + rest <= width,
    ) ?? ` ${tallyText(header)}`
  headerSegments[1] = { text: count, tone: "muted" }
  const lines: SidebarLine[] = [{ kind: "header", segments: headerSegments }]
  for (const row of view.rows) {
    if (row.kind === "phase") {
      lines.push({
        kind: "phase",
        segments: [
          { text: neutralize(row.name), tone: row.active ? "text" : "muted" },
          { text: ` ${row.count}`, tone: "muted" },
        ],
      })
    } else if (row.kind === "task") {
      const segments: Segment[] = [{ text: `  ${STATUS_GLYPHS[row.status]} ${row.text}`, tone: row.status }]
      if (row.blocker !== undefined) segments.push({ text: ` — ${row.blocker}`, tone: "muted" })
      lines.push({ kind: "task", segments })
    } else {
      lines.push({
        kind: "more",
        segments: [{ text: row.of === "tasks" ? `    ${row.text}` : row.text, tone: "muted" }],
      })
    }
  }
  return lines.map((line) => ({ kind: line.kind, segments: clipSegments(line.segments, width) }))
}

/** The text of a sidebar line, segments joined. */
export function lineText(line: SidebarLine): string {
  return line.segments.map((s) => s.text).join("")
}
