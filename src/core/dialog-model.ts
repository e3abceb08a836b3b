// What the /todo dialog in the TUI shows and offers, as plain data: the task entries grouped by phase,
// the actions that make sense for each task and the op each one runs, and what the editor flow needs.
// Pure: the shell (src/tui.tsx) shows the entries and carries the actions out.

import { counts, countTasks } from "./list.ts"
import type { Op, TaskStatus, TodoList } from "./types.ts"
import { neutralize, preview, progressText, STATUS_GLYPHS, STATUS_WORDS } from "./words.ts"

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
    const category = `${neutralize(phase.name)} ${countTasks(phase.tasks).closed}/${phase.tasks.length}`
    for (const task of phase.tasks) {
      out.push({
        title: `${STATUS_GLYPHS[task.status]} ${neutralize(task.text)}`,
        text: task.text,
        status: task.status,
        category,
        description:
          task.status === "blocked" && task.blocker !== undefined
            ? `blocked: ${preview(task.blocker, 40)}`
            : STATUS_WORDS[task.status],
      })
    }
  }
  return out
}

/** "3/12 done, 1 blocked", or "empty". */
export function countsText(list: TodoList): string {
  const c = counts(list)
  return c.total === 0 ? "empty" : progressText(c)
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

// ---- the editor --------------------------------------------------------------------------------

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
