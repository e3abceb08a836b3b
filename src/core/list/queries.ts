// Read-only queries over a TodoList and the checks every whole list must pass
// (init, import, edit, stored snapshots all go through `checkList`).

import type { Counts, Limits, Phase, Task, TodoList } from "./types.ts"
import { OPEN, type TaskStatus } from "./types.ts"
import { DEFAULT_PHASE, hostileText, quotePreview } from "./words.ts"

export interface Located {
  readonly task: Task
  readonly phaseIndex: number
  readonly taskIndex: number
}

/** Trim surrounding whitespace; the only normalization applied to addressing text. */
export function clean(text: string): string {
  return text.trim()
}

export function* eachTask(list: TodoList): Generator<Located> {
  for (let p = 0; p < list.length; p++) {
    const tasks = list[p]!.tasks
    for (let t = 0; t < tasks.length; t++) yield { task: tasks[t]!, phaseIndex: p, taskIndex: t }
  }
}

export function findTask(list: TodoList, text: string): Located | undefined {
  const wanted = clean(text)
  for (const hit of eachTask(list)) if (hit.task.text === wanted) return hit
  return undefined
}

export function findPhase(list: TodoList, name: string): number {
  const wanted = clean(name)
  return list.findIndex((phase) => phase.name === wanted)
}

export function taskCount(list: TodoList): number {
  let n = 0
  for (const phase of list) n += phase.tasks.length
  return n
}

export function countTasks(tasks: readonly Task[]): Omit<Counts, "phases"> {
  let completed = 0
  let abandoned = 0
  let blocked = 0
  let pending = 0
  let inProgress = 0
  for (const task of tasks) {
    if (task.status === "completed") completed++
    else if (task.status === "abandoned") abandoned++
    else if (task.status === "blocked") blocked++
    else if (task.status === "pending") pending++
    else inProgress++
  }
  return {
    total: tasks.length,
    closed: completed + abandoned,
    completed,
    abandoned,
    blocked,
    pending,
    inProgress,
  }
}

export function counts(list: TodoList): Counts {
  const all: Task[] = []
  for (const phase of list) all.push(...phase.tasks)
  return { ...countTasks(all), phases: list.length }
}

export function inProgressTask(list: TodoList): Located | undefined {
  for (const hit of eachTask(list)) if (hit.task.status === "in_progress") return hit
  return undefined
}

/**
 * The phase the work is in: the one holding the in-progress task, else the first with an open task;
 * -1 when no task is open. The sidebar and the dialog both lead with it.
 */
export function activePhase(list: TodoList): number {
  const current = inProgressTask(list)
  if (current) return current.phaseIndex
  return list.findIndex((phase) => phase.tasks.some((task) => OPEN.has(task.status)))
}

/** The task that would start after the current one: the earliest pending task. */
export function nextPendingTask(list: TodoList): Located | undefined {
  for (const hit of eachTask(list)) if (hit.task.status === "pending") return hit
  return undefined
}

/** True when a task is pending or in progress: work the agent can do now (blocked tasks wait on something else). */
export function hasActionableTask(list: TodoList): boolean {
  for (const { task } of eachTask(list))
    if (task.status === "pending" || task.status === "in_progress") return true
  return false
}

/** True when any task is open: pending, in progress or blocked. */
export function hasOpenTask(list: TodoList): boolean {
  for (const { task } of eachTask(list)) if (OPEN.has(task.status)) return true
  return false
}

/** The phase a task the user appends goes to unless another is named: the one in progress, else the last. */
export function appendPhase(list: TodoList): string {
  const current = inProgressTask(list)
  return current ? list[current.phaseIndex]!.name : (list.at(-1)?.name ?? DEFAULT_PHASE)
}

/** The statuses a task may carry a reason in: why it waits, or why it was dropped. */
export const HAS_REASON: ReadonlySet<TaskStatus> = new Set(["blocked", "abandoned"])

const ID_LIKE = /^(?:task|item|todo|phase|step)?[-_ #]?\d+$/i

/** True for strings that look like a generated id ("task-3", "#2", "7") rather than task text. */
export function looksLikeId(text: string): boolean {
  return ID_LIKE.test(clean(text))
}

/**
 * Checks a single task text or phase name. Returns an error sentence or undefined.
 * `what` is how the error names the value, e.g. `task "…"` or `phase name`.
 */
export function checkText(text: string, what: string, limits: Limits, quoted = true): string | undefined {
  const named = quoted ? `${what} ${quotePreview(text)}` : what
  const shape = checkShape(text, what, () => named, limits)
  if (shape) return shape
  const hostile = hostileText(text)
  return hostile ? `${named} ${hostile}.` : undefined
}

/**
 * The rules every stored text keeps. The character rule is left out on purpose: it guards new text, and a record
 * saved before it must still load and still take ops (its text is neutralised wherever it is shown).
 */
function checkShape(text: string, what: string, named: () => string, limits: Limits): string | undefined {
  if (text.length === 0) return `${what} is empty; give it a short description.`
  if (/[\r\n]/.test(text)) return `${named()} spans several lines; keep it to one line.`
  if (text.length > limits.maxTaskChars)
    return `${named()} is ${text.length} characters; the limit is ${limits.maxTaskChars}. Shorten it.`
  return undefined
}

// The name is quoted only for an error: quoting a text costs more than checking it, on every text of a list.
function checkStored(text: string, what: string, limits: Limits): string | undefined {
  return checkShape(text, what, () => `${what} ${quotePreview(text)}`, limits)
}

/**
 * Every rule a whole list must satisfy: non-empty one-line texts within the length cap,
 * no duplicate task text anywhere, no duplicate phase name, task and phase counts within caps,
 * reasons only on blocked or dropped tasks. Returns the first violation as a sentence.
 */
export function checkList(list: readonly Phase[], limits: Limits): string | undefined {
  if (list.length > limits.maxPhases)
    return `The list has ${list.length} phases; the limit is ${limits.maxPhases}. Merge phases.`
  const total = taskCount(list)
  if (total > limits.maxTasks)
    return `The list has ${total} tasks; the limit is ${limits.maxTasks}. Plan at a coarser grain.`
  const phases = new Set<string>()
  const tasks = new Map<string, string>()
  for (const phase of list) {
    const bad = checkStored(phase.name, "Phase name", limits)
    if (bad) return bad
    if (phases.has(phase.name))
      return `Duplicate phase ${quotePreview(phase.name)}; phase names must be unique.`
    phases.add(phase.name)
    for (const task of phase.tasks) {
      const badTask = checkStored(task.text, "Task", limits)
      if (badTask) return badTask
      const seen = tasks.get(task.text)
      if (seen !== undefined)
        return seen === phase.name
          ? `Duplicate task ${quotePreview(task.text)} in phase ${quotePreview(phase.name)}; task texts must be unique.`
          : `Duplicate task ${quotePreview(task.text)} (in phases ${quotePreview(seen)} and ${quotePreview(phase.name)}); task texts must be unique across the list.`
      tasks.set(task.text, phase.name)
      if (task.blocker !== undefined && !HAS_REASON.has(task.status))
        return `Task ${quotePreview(task.text)} has a reason but is ${task.status}; only blocked and dropped tasks carry one.`
      if (task.blocker !== undefined) {
        const badReason = checkStored(task.blocker, "Blocker reason", limits)
        if (badReason) return badReason
      }
    }
  }
  return undefined
}
