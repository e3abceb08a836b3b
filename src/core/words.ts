// The plugin's vocabulary: its id, the default phase, how each status is written (in words, as a box in
// text and Markdown, as a glyph in the sidebar), the progress count, and the small text helpers every
// message uses. One home, so the model, the user and the sidebar read the same words for the same thing.

import type { TaskStatus } from "./types.ts"

/** The plugin's id: the host's plugin id, the log service, the prefix of its command names. */
export const PLUGIN_ID = "opencode-todo"

/** The tool's name, as the model calls it and as the host reports its results. */
export const TODO_TOOL = "todo"

/** The phase tasks go to when none is named: `init {items}`, Markdown above the first heading, a first append. */
export const DEFAULT_PHASE = "Tasks"

/** User-facing status words ("abandoned" reads as "dropped", "completed" as "done"). */
export const STATUS_WORDS: Readonly<Record<TaskStatus, string>> = {
  pending: "pending",
  in_progress: "in progress",
  completed: "done",
  abandoned: "dropped",
  blocked: "blocked",
}

/** The box each status is printed with in plain text: the model's list view and TODO.md's checklist. */
export const STATUS_BOXES: Readonly<Record<TaskStatus, string>> = {
  pending: "[ ]",
  in_progress: "[>]",
  completed: "[x]",
  abandoned: "[-]",
  blocked: "[!]",
}

/** One character per status, for the sidebar and the /todo dialog. */
export const STATUS_GLYPHS: Readonly<Record<TaskStatus, string>> = {
  in_progress: "▶",
  pending: "○",
  completed: "✓",
  abandoned: "✗",
  blocked: "⊘",
}

/** The counts a progress line needs. Done counts closed tasks (done or dropped). */
export interface Progress {
  readonly closed: number
  readonly total: number
  readonly blocked: number
}

/** "3/12 done" */
export function doneText(progress: Progress): string {
  return `${progress.closed}/${progress.total} done`
}

/** "1 blocked" */
export function blockedText(progress: Progress): string {
  return `${progress.blocked} blocked`
}

/** "3/12 done, 1 blocked"; the blocked part only when a task is blocked. */
export function progressText(progress: Progress): string {
  return progress.blocked > 0 ? `${doneText(progress)}, ${blockedText(progress)}` : doneText(progress)
}

export function quote(text: string): string {
  return `"${text}"`
}

/** Shortens text to one line of at most `max` characters, so a runaway input cannot flood a message. */
export function preview(text: string, max = 60): string {
  const flat = text.replace(/[\r\n]+/g, " ")
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`
}

/** Folds free text (a blocker reason) onto one line: a model may send a paragraph, which is folded, not refused. */
export function foldLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, " ").trim()
}

/** The error for a call with more ops than a call may carry. */
export function tooManyOpsText(count: number, limit: number): string {
  return `The call has ${count} ops; the limit is ${limit}. Split it into several calls.`
}
