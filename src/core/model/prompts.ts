// Every text the plugin shows the model: the tool description, its argument descriptions and each
// injected message. Kept in one place so wording stays consistent and every injected text carries the marker.

import type { EagerMode } from "../config.ts"
import type { EditNote } from "../list/diff.ts"
import { inProgressTask, nextPendingTask } from "../list/queries.ts"
import type { TodoList } from "../list/types.ts"
import { MARKER, quote } from "../list/words.ts"
import { formatPhases } from "./format.ts"
import type { Guidance } from "./mode.ts"

// The marker lives with the words so the character rule (core/list/queries.ts) can refuse it inside task text.
export { MARKER }

/** True when the text is one of ours (it starts with the marker, leading whitespace ignored). */
export function isPluginText(text: string): boolean {
  return text.trimStart().startsWith(MARKER)
}

// Rides on every model request: every word here costs characters on every turn, so each op, field and rule is
// said once (tool-text.test.ts checks it against the README's tool table; the schema names no more, not even
// the op names: the lines below list them, and a mistyped op is answered with the one it likely means).
export const TOOL_DESCRIPTION = `Phased todo list. Tasks by exact text, phases by exact name; no ids.
- init: list:[{phase,items}] (replaces the list)
- start: task
- done, drop, block, unblock: task|phase; reason? for drop, block
- rm: task|phase, or neither to clear the list
- append: items, phase (created if missing) or after (a task)
- rename: task|phase, to (place and status stay)
- view
block: waiting on something external. drop: not needed (stays listed); rm: deletes. done works from any status.
ops:[{op,...}]: a batch, in order, all or nothing.
One task is in progress; start moves the running one back. After each call, if none is, the first pending task starts.`

/**
 * The description under lean guidance (mode.ts): every op and field, the addressing and batch rules, nothing
 * a call's result or error would teach anyway.
 */
export const LEAN_TOOL_DESCRIPTION = `Phased todo list; tasks by exact text, phases by exact name, no ids.
init list:[{phase,items}]; start task; done|drop|block|unblock task|phase, reason?; rm task|phase (neither: clear); append items, phase|after; rename task|phase, to; view.
Each call: op and its fields, or ops:[{op,...}] (all or nothing).`

/** The tool description the guidance gets. */
export function toolDescription(guidance: Guidance): string {
  return guidance === "lean" ? LEAN_TOOL_DESCRIPTION : TOOL_DESCRIPTION
}

/** The todo tool's answer in a subagent session: the list belongs to the main session the user watches. */
export const SUBAGENT_REFUSAL =
  "Error: the todo list belongs to the main session; a subagent reports its progress in its final answer instead. Nothing was changed."

function withMarker(lines: readonly string[]): string {
  return [MARKER, ...lines].join("\n")
}

/** Eager prelude for the first prompt of a new session; undefined in "default" mode. */
export function preludeText(eager: EagerMode): string | undefined {
  if (eager === "preferred")
    return withMarker([
      "If this request is multi-step work, first lay out a phased plan with one todo init call, then work through it.",
    ])
  if (eager === "always")
    return withMarker([
      'Before any other tool, you MUST call the todo tool with op "init" to lay out a phased plan for this request (a single phase is fine for small work).',
    ])
  return undefined
}

/** What changed through /todo (or the sidebar): edit notes merged when several arrive before delivery. */
export interface EditSummary extends EditNote {
  /** How many older lines were left out to keep the notice short. */
  readonly omitted: number
}

/** The one-shot notices a single delivery may carry. They share one marker and one copy of the list. */
export interface Notices {
  readonly resumed?: boolean
  /** The session started from a list its conversation does not show (a fork with later edits, a rebuild). */
  readonly carried?: boolean
  readonly compacted?: boolean
  readonly edits?: EditSummary
  /** Edits since the last todo update, when a mid-run nudge is due. */
  readonly nudge?: number
}

function editLines(edits: EditSummary): string[] {
  const lines = ["The user changed the todo list with /todo:"]
  if (edits.omitted > 0) lines.push(`  (${edits.omitted} earlier changes not shown)`)
  for (const line of edits.lines) lines.push(`  ${line}`)
  const recreate = doNotRecreate(edits.removed, edits.removedPhases ?? [])
  if (recreate) lines.push(recreate)
  return lines
}

/** `Do not recreate removed phases ("P") or tasks ("a", "b").`; undefined when nothing was removed. */
function doNotRecreate(tasks: readonly string[], phases: readonly string[]): string | undefined {
  const named: string[] = []
  if (phases.length > 0) named.push(`phases (${phases.map(quote).join(", ")})`)
  if (tasks.length > 0) named.push(`tasks (${tasks.map(quote).join(", ")})`)
  return named.length === 0 ? undefined : `Do not recreate removed ${named.join(" or ")}.`
}

function nudgeLines(list: TodoList, edits: number): string[] {
  const lines = [
    `${edits} edits or commands since the todo list was last updated. Mark finished tasks done, or start the task you are actually working on.`,
  ]
  const current = inProgressTask(list)
  const next = nextPendingTask(list)
  const where: string[] = []
  if (current) where.push(`In progress: ${quote(current.task.text)}.`)
  if (next) where.push(`Next: ${quote(next.task.text)}.`)
  if (where.length > 0) lines.push(where.join(" "))
  return lines
}

/**
 * Renders whichever notices are due as one text, from the list as it is now (so it is never stale).
 * The list appears once even when a resume, a compaction and user edits are all pending.
 */
export function noticesText(notices: Notices, list: TodoList): string | undefined {
  const lines: string[] = []
  const restored = notices.resumed === true || notices.compacted === true || notices.carried === true
  if (notices.carried) lines.push("This session's todo list differs from what the conversation above shows.")
  if (notices.resumed && notices.compacted)
    lines.push(
      "This session's todo list was restored from an earlier run, and the conversation was compacted.",
    )
  else if (notices.resumed) lines.push("This session's todo list was restored from an earlier run.")
  else if (notices.compacted) lines.push("The conversation was compacted; this session's todo list is below.")
  if (notices.edits) lines.push(...editLines(notices.edits))
  if (restored || notices.edits) lines.push("Todo list:", formatPhases(list))
  if (notices.carried) lines.push("Work from this list.")
  else if (restored) lines.push("Continue from it; do not init a new list.")
  else if (notices.edits) lines.push("Work from the list as the user left it.")
  if (notices.nudge !== undefined && notices.nudge > 0) lines.push(...nudgeLines(list, notices.nudge))
  return lines.length === 0 ? undefined : withMarker(lines)
}

/** Context handed to the summarizer when the conversation is compacted. */
export function compactionContextText(list: TodoList): string {
  return withMarker([
    "This session has a todo list kept by the todo tool. Include it verbatim in the summary:",
    formatPhases(list),
  ])
}

// A long list would flood the reminder; the model can always call view for the rest.
const REMINDER_MAX_TASKS = 12

/** Completion reminder: the agent stopped while tasks are still open. */
export function reminderText(list: TodoList): string {
  const open: string[] = []
  const blocked: string[] = []
  const current = inProgressTask(list)
  if (current) open.push(`  ${quote(current.task.text)} (in progress)`)
  for (const phase of list)
    for (const task of phase.tasks) {
      if (task.status === "pending") open.push(`  ${quote(task.text)}`)
      else if (task.status === "blocked")
        blocked.push(`  ${quote(task.text)}${task.blocker ? ` (${quote(task.blocker)})` : ""}`)
    }
  const lines = ["You stopped, but the todo list still has open tasks:", ...capped(open)]
  if (blocked.length > 0) lines.push("Blocked (not counted):", ...capped(blocked))
  lines.push(
    "Continue with the next task. If a task is finished or cannot proceed, mark it done, dropped or blocked with the todo tool. If you need the user's input, ask.",
  )
  return withMarker(lines)
}

function capped(lines: readonly string[]): string[] {
  if (lines.length <= REMINDER_MAX_TASKS) return [...lines]
  return [...lines.slice(0, REMINDER_MAX_TASKS), `  … and ${lines.length - REMINDER_MAX_TASKS} more`]
}

/** What a /todo command did, for the model turn the host starts after every command. */
export interface CommandReport {
  /** One line per change, e.g. `done "X"`. Empty or absent when nothing changed. */
  readonly lines?: readonly string[]
  /** Texts of removed tasks. */
  readonly removed?: readonly string[]
  /** Names of removed phases. */
  readonly removedPhases?: readonly string[]
  /** What the user looked at when nothing changed, e.g. "the todo list". */
  readonly shown?: string
  /** What the user did when nothing in the list changed, e.g. "exported the todo list"; replaces "viewed …". */
  readonly action?: string
  /** Text the command produced, printed verbatim under the first line (the list, the usage, what an export wrote). */
  readonly output?: string
  /** A verb that changed nothing: what it addressed and why, e.g. `start "X": it is already in progress`. */
  readonly unchanged?: readonly string[]
  /** The command failed with this message; nothing changed. */
  readonly error?: string
  /** The list after the change, when the model should see it. */
  readonly list?: TodoList
}

const ACK =
  "No action needed: reply with one short line acknowledging it, then continue any work in progress."

/** The text handed to the model for a /todo command turn. */
export function commandReplyText(report: CommandReport): string {
  const lines: string[] = []
  const changes = report.lines ?? []
  if (report.error !== undefined)
    lines.push(`The user's /todo command failed; nothing changed. Error: ${report.error}`)
  else if (report.unchanged !== undefined && report.unchanged.length > 0 && changes.length === 0) {
    lines.push("The user's /todo command changed nothing:")
    for (const line of report.unchanged) lines.push(`  ${line}`)
  } else if (changes.length > 0) {
    lines.push("The user changed the todo list with /todo:")
    for (const line of changes) lines.push(`  ${line}`)
    const recreate = doNotRecreate(report.removed ?? [], report.removedPhases ?? [])
    if (recreate) lines.push(recreate)
  } else {
    const what = report.action ?? `viewed ${report.shown ?? "the todo list"}`
    lines.push(`The user ${what} with /todo; nothing changed.`)
    if (report.output !== undefined) lines.push(report.output)
  }
  if (report.list !== undefined && report.error === undefined && changes.length > 0)
    lines.push("Todo list now:", formatPhases(report.list))
  lines.push(ACK)
  return withMarker(lines)
}

/**
 * What a request carries in place of one of our stored messages once a later todo update made it stale
 * (stale.ts): one line, so the model still sees that something was said there.
 */
export const STALE_STUB = "[todo plugin: earlier message, superseded by a later todo update]"

/**
 * What a request carries in place of a todo result once a later successful todo call superseded it (stale.ts):
 * the call's arguments stay, so the model still sees what it did, and learns where the list is now.
 */
export const STALE_RESULT_STUB = "[Superseded; the newest todo result is current, todo view shows the list]"

/** The same for a failed call's error: the history must not suggest that the call worked. */
export const STALE_FAILED_STUB = "[This call failed and changed nothing; the newest todo result is current]"
