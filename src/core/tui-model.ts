// What the TUI shows and offers, as plain data: the sidebar lines (coloured segments cut to the panel
// width), the /todo dialog's task entries and per-task actions, and the small parsers the TUI shell needs.
// Pure: the shell (src/tui.tsx) maps tones to theme colours and carries the actions out.

import { buildHud, GLYPH } from "./hud.ts"
import { counts, eachTask, preview } from "./list.ts"
import type { Op, TaskStatus, TodoList } from "./types.ts"

/** Columns the host's session sidebar shows of a plugin row: 42 wide, less padding and the scrollbar (37 seen), minus one spare. */
export const SIDEBAR_WIDTH = 36
/** Sidebar rows (header included) when the user sets none. */
export const DEFAULT_SIDEBAR_ROWS = 14

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

export const STATUS_LABEL: Readonly<Record<TaskStatus, string>> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "done",
  abandoned: "dropped",
  blocked: "blocked",
}

/**
 * The sidebar block: a header line ("Todo  3/12 done, 1 blocked") and the rows of buildHud, each cut
 * to `width` columns. Undefined for a list without phases: the block is then not shown at all.
 */
export function sidebarModel(
  list: TodoList,
  options: { readonly maxRows: number; readonly width?: number },
): SidebarLine[] | undefined {
  const view = buildHud(list, { maxRows: options.maxRows })
  if (view === undefined) return undefined
  const width = Math.max(8, Math.floor(options.width ?? SIDEBAR_WIDTH))
  const { header } = view
  const headerSegments: Segment[] = [
    { text: "Todo", tone: "title" },
    { text: `  ${header.closed}/${header.total} done`, tone: "muted" },
  ]
  if (header.blocked > 0) headerSegments.push({ text: `, ${header.blocked} blocked`, tone: "error" })
  const lines: SidebarLine[] = [{ kind: "header", segments: headerSegments }]
  for (const row of view.rows) {
    if (row.kind === "phase") {
      lines.push({
        kind: "phase",
        segments: [
          { text: row.name, tone: row.active ? "text" : "muted" },
          { text: ` ${row.closed}/${row.total}`, tone: "muted" },
        ],
      })
    } else if (row.kind === "task") {
      const segments: Segment[] = [{ text: `  ${GLYPH[row.status]} ${row.text}`, tone: row.status }]
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

// Emoji drawn two columns wide by default, including those outside the ranges below ("✅", "⚡", "⏳").
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u

/** Terminal columns of one code point: 2 for wide East Asian and emoji, 0 for combining marks. */
export function charWidth(cp: number): number {
  if (cp === 0 || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) return 0
  if (cp >= 0x2000 && cp < 0x1f300 && EMOJI_PRESENTATION.test(String.fromCodePoint(cp))) return 2
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2
  return 1
}

export function displayWidth(text: string): number {
  let width = 0
  for (const ch of text) width += charWidth(ch.codePointAt(0)!)
  return width
}

/** Cuts segments to `width` columns; a cut line ends in "…" (in the tone of the segment it falls in). */
export function clipSegments(segments: readonly Segment[], width: number): Segment[] {
  let total = 0
  for (const s of segments) total += displayWidth(s.text)
  if (total <= width) return segments.filter((s) => s.text !== "")
  const room = width - 1
  const out: Segment[] = []
  let used = 0
  for (const s of segments) {
    let kept = ""
    let full = true
    for (const ch of s.text) {
      const w = charWidth(ch.codePointAt(0)!)
      if (used + w > room) {
        full = false
        break
      }
      kept += ch
      used += w
    }
    if (full) {
      if (kept !== "") out.push({ text: kept, tone: s.tone })
      continue
    }
    out.push({ text: `${kept.trimEnd()}…`, tone: s.tone })
    return out
  }
  return out
}

// ---- the /todo dialog ----------------------------------------------------------------------------

export interface TaskEntry {
  /** "▶ Write the parser" */
  readonly title: string
  readonly text: string
  readonly status: TaskStatus
  /** The phase row this entry is listed under, e.g. "Build 1/3"; unique because phase names are. */
  readonly category: string
  /** "in progress", or "blocked: waiting on review" */
  readonly description: string
}

/** Every task of the list in order, grouped by phase through `category`. */
export function taskEntries(list: TodoList): TaskEntry[] {
  const out: TaskEntry[] = []
  for (const phase of list) {
    let closed = 0
    for (const task of phase.tasks) if (task.status === "completed" || task.status === "abandoned") closed++
    const category = `${phase.name} ${closed}/${phase.tasks.length}`
    for (const task of phase.tasks) {
      out.push({
        title: `${GLYPH[task.status]} ${task.text}`,
        text: task.text,
        status: task.status,
        category,
        description:
          task.status === "blocked" && task.blocker !== undefined
            ? `blocked: ${preview(task.blocker, 40)}`
            : STATUS_LABEL[task.status],
      })
    }
  }
  return out
}

/** "3/12 done, 1 blocked", or "empty". */
export function countsText(list: TodoList): string {
  const c = counts(list)
  if (c.total === 0) return "empty"
  return `${c.closed}/${c.total} done${c.blocked > 0 ? `, ${c.blocked} blocked` : ""}`
}

export type TaskAction = "start" | "done" | "drop" | "block" | "unblock" | "rm"

export interface ActionEntry {
  readonly action: TaskAction
  readonly title: string
}

/** The actions that make sense for a task in this status, most likely first. Each is a valid op for it. */
export function taskActions(status: TaskStatus): ActionEntry[] {
  switch (status) {
    case "pending":
      return [
        { action: "start", title: "Start" },
        { action: "done", title: "Done" },
        { action: "block", title: "Block…" },
        { action: "drop", title: "Drop" },
        { action: "rm", title: "Remove…" },
      ]
    case "in_progress":
      return [
        { action: "done", title: "Done" },
        { action: "block", title: "Block…" },
        { action: "drop", title: "Drop" },
        { action: "rm", title: "Remove…" },
      ]
    case "blocked":
      return [
        { action: "unblock", title: "Unblock" },
        { action: "start", title: "Start" },
        { action: "done", title: "Done" },
        { action: "block", title: "Change the reason…" },
        { action: "drop", title: "Drop" },
        { action: "rm", title: "Remove…" },
      ]
    case "completed":
      return [
        { action: "start", title: "Reopen and start" },
        { action: "rm", title: "Remove…" },
      ]
    case "abandoned":
      return [
        { action: "start", title: "Reopen and start" },
        { action: "done", title: "Done" },
        { action: "rm", title: "Remove…" },
      ]
  }
}

/** The op a task action runs. A blank reason blocks without one. */
export function actionOp(action: TaskAction, text: string, reason?: string): Op {
  const target = { kind: "task", text } as const
  switch (action) {
    case "start":
      return { op: "start", target }
    case "block": {
      const why = reason?.trim()
      return why ? { op: "block", target, reason: why } : { op: "block", target }
    }
    default:
      return { op: action, target }
  }
}

/** The phase a new task goes to unless the user picks another: the one in progress, else the last. */
export function defaultAppendPhase(list: TodoList): string | undefined {
  for (const { task, phaseIndex } of eachTask(list))
    if (task.status === "in_progress") return list[phaseIndex]!.name
  return list.at(-1)?.name
}

// ---- small parsers -------------------------------------------------------------------------------

/** The 1-based line a Markdown parse error names ("Line 7: ..."), if any. */
export function errorLine(error: string): number | undefined {
  const match = /^Line (\d+):/.exec(error)
  return match ? Number(match[1]) : undefined
}

/** The editor to run, as the host's own /editor does: $VISUAL, else $EDITOR, else vi; split on spaces. */
export function editorCommand(env: Readonly<Record<string, string | undefined>>): string[] {
  const raw = env.VISUAL?.trim() || env.EDITOR?.trim() || "vi"
  return raw.split(/\s+/)
}

/** Command names the server may publish as `tui.command.execute` after it changed a list. */
export const REFRESH_COMMAND = "opencode-todo.refresh"
export const CHANGED_PREFIX = "opencode-todo.changed:"

/** What a `tui.command.execute` command asks of us: refresh every shown list, one session's, or nothing. */
export function refreshTarget(command: unknown): { all: true } | { session: string } | undefined {
  if (typeof command !== "string") return undefined
  if (command === REFRESH_COMMAND) return { all: true }
  if (command.startsWith(CHANGED_PREFIX)) {
    const session = command.slice(CHANGED_PREFIX.length)
    return session ? { session } : { all: true }
  }
  return undefined
}

/**
 * Key under which the server may attach the list to the text part of a `/todo <verb>` command
 * (`metadata[COMMAND_PART_KEY] = { list }`), so a TUI that cannot read the store (attached to a
 * server elsewhere) still follows changes made by the command.
 */
export const COMMAND_PART_KEY = "opencodeTodo"

/**
 * The list carried by the newest part among `parts` (oldest first) that carries one, unvalidated:
 * a completed `todo` tool part (the tool returns `metadata.list`) or a command text part (see
 * COMMAND_PART_KEY). Undefined when no such part exists.
 */
export function latestToolList(parts: readonly unknown[]): unknown {
  for (let i = parts.length - 1; i >= 0; i--) {
    const list = toolPartList(parts[i])
    if (list !== undefined) return list
  }
  return undefined
}

/** The list a part carries: `state.metadata.list` of a completed `todo` tool part, or a command part's; else undefined. */
export function toolPartList(part: unknown): unknown {
  if (typeof part !== "object" || part === null) return undefined
  const p = part as { type?: unknown; tool?: unknown; state?: unknown; metadata?: unknown }
  if (p.type === "text") {
    const carried = (p.metadata as Record<string, unknown> | undefined)?.[COMMAND_PART_KEY]
    return typeof carried === "object" && carried !== null && "list" in carried
      ? (carried as { list: unknown }).list
      : undefined
  }
  if (p.type !== "tool" || p.tool !== "todo") return undefined
  const state = p.state as { status?: unknown; metadata?: unknown } | undefined
  if (state?.status !== "completed") return undefined
  const metadata = state.metadata as { list?: unknown } | undefined
  return typeof metadata === "object" && metadata !== null && "list" in metadata ? metadata.list : undefined
}
