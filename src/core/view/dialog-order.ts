// The order the /todo dialog lists a list in, and which phases it folds: the work first, finished
// phases out of the way. Pure: src/core/view/dialog.ts turns this into rows, the TUI shell shows them.

/*
 * Rules (the host shows about 16 rows at 45 lines and 19 at 50, below the list actions' 6):
 * - The active phase (core/list/queries.ts `activePhase`: the one holding the in-progress task, else
 *   the first with an open task) is listed first, then the other phases with open tasks in list order.
 * - Inside a listed phase the task in progress comes first, then the other open tasks, then the
 *   closed ones, each in list order: the work is never below the finished tasks of its own phase.
 * - A finished phase (it has tasks, and every one is done or dropped) is folded: one row for the whole
 *   phase, after the listed phases, in list order. A phase named in `unfolded` is listed instead, after
 *   the phases with open tasks, its tasks in list order.
 * - A phase with no tasks has no row (as before: the dialog lists tasks, not phases).
 * So every task is either listed once or stands inside exactly one folded row, no open task is ever
 * folded, and the in-progress task is the first task listed.
 */

import { activePhase } from "../list/queries.ts"
import type { Task, TodoList } from "../list/types.ts"
import { CLOSED, OPEN } from "../list/types.ts"

export interface ListedPhase {
  /** The phase's index in the list. */
  readonly phase: number
  /** Its tasks' indexes, in the order listed. */
  readonly tasks: readonly number[]
}

export interface DialogOrder {
  /** The phases whose tasks are listed, in the order listed. */
  readonly listed: readonly ListedPhase[]
  /** The finished phases shown as one folded row each, by index, in list order. */
  readonly folded: readonly number[]
}

/** Whether a phase is finished: it has tasks and every one is closed. */
export function finishedPhase(tasks: readonly Task[]): boolean {
  return tasks.length > 0 && tasks.every((task) => CLOSED.has(task.status))
}

export function dialogOrder(list: TodoList, unfolded: readonly string[] = []): DialogOrder {
  const active = activePhase(list)
  const open: ListedPhase[] = []
  const opened: ListedPhase[] = []
  const folded: number[] = []
  list.forEach((phase, index) => {
    if (phase.tasks.length === 0) return
    const indexes = phase.tasks.map((_, i) => i)
    if (finishedPhase(phase.tasks)) {
      if (unfolded.includes(phase.name)) opened.push({ phase: index, tasks: indexes })
      else folded.push(index)
      return
    }
    const rank = (i: number) => {
      const status = phase.tasks[i]!.status
      return status === "in_progress" ? 0 : OPEN.has(status) ? 1 : 2
    }
    // A stable sort: each rank keeps list order.
    const entry = { phase: index, tasks: indexes.sort((a, b) => rank(a) - rank(b)) }
    if (index === active) open.unshift(entry)
    else open.push(entry)
  })
  return { listed: [...open, ...opened], folded }
}
