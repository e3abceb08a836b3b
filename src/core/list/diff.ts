// What changed between two lists, in words the model reads after a user edit (the edit note). One
// mechanism for every user-side change (/todo verbs, editor, import), so the model
// is told the same way whichever path the user took.

import { eachTask, HAS_REASON } from "./queries.ts"
import { isRecord } from "./result.ts"
import type { Change, TaskStatus, TodoList } from "./types.ts"
import { quotePreview, STATUS_WORDS } from "./words.ts"

/**
 * One user edit in words: what the reply and the toast say, what a record's `edits` queue holds until the
 * model's next request, and what the tracker tells the model.
 */
export interface EditNote {
  /** One line per change, e.g. `done "Write parser"`, `added "Docs" to "Ship"`, `removed "Old"`. */
  readonly lines: readonly string[]
  /** Task texts that no longer exist, those of removed phases included: the model must not recreate them. */
  readonly removed: readonly string[]
  /**
   * Phase names that no longer exist, named apart so the model is told they were phases. Absent in notes
   * that removed no phase (and in stored notes written before phases were named apart).
   */
  readonly removedPhases?: readonly string[]
}

/** An edit note as diffLists makes it: every field present. */
export type ListDiff = Required<EditNote>

/** Whether a stored value (a record's `edits` entry, read from disk) is an edit note. */
export function isEditNote(value: unknown): value is EditNote {
  return (
    isRecord(value) &&
    Array.isArray(value.lines) &&
    value.lines.every((l) => typeof l === "string") &&
    Array.isArray(value.removed) &&
    value.removed.every((r) => typeof r === "string") &&
    (value.removedPhases === undefined ||
      (Array.isArray(value.removedPhases) && value.removedPhases.every((r) => typeof r === "string")))
  )
}

/**
 * Renames, read from the positions: a phase gone and a new one at the same index with the same tasks are a
 * renamed phase; a task gone and a new one with the same status at the same place of the same phase (renamed or
 * not) are a renamed task. `before` names map to `after` names.
 */
function renames(before: TodoList, after: TodoList) {
  const beforeNames = new Set(before.map((p) => p.name))
  const afterNames = new Set(after.map((p) => p.name))
  const phases = new Map<string, string>()
  before.forEach((phase, i) => {
    const now = after[i]
    const same =
      now?.tasks.length === phase.tasks.length && now.tasks.every((t, j) => t.text === phase.tasks[j]!.text)
    if (now && same && !afterNames.has(phase.name) && !beforeNames.has(now.name))
      phases.set(phase.name, now.name)
  })
  const beforeTexts = new Set([...eachTask(before)].map((hit) => hit.task.text))
  const afterTexts = new Set([...eachTask(after)].map((hit) => hit.task.text))
  const tasks = new Map<string, string>()
  for (const phase of before) {
    const now = after.find((p) => p.name === (phases.get(phase.name) ?? phase.name))
    if (!now) continue
    phase.tasks.forEach((task, i) => {
      const other = now.tasks[i]
      if (other?.status === task.status && !afterTexts.has(task.text) && !beforeTexts.has(other.text))
        tasks.set(task.text, other.text)
    })
  }
  return { phases, tasks }
}

/**
 * The reasons a call's changes gave that the list it left does not keep (an unblock's, a done's: the task they
 * leave carries none), by task: the edit note says them, or they would reach no one.
 */
export function unkeptReasons(changes: readonly Change[]): ReadonlyMap<string, string> {
  const said = new Map<string, string>()
  for (const change of changes)
    if (change.kind === "status" && change.reason !== undefined && !HAS_REASON.has(change.to))
      said.set(change.task, change.reason)
  return said
}

/** `said`: reasons the list does not keep (see unkeptReasons), each said on its task's status line. */
export function diffLists(
  before: TodoList,
  after: TodoList,
  said: ReadonlyMap<string, string> = new Map(),
): ListDiff {
  const lines: string[] = []
  const removed: string[] = []
  const removedPhases: string[] = []
  const renamed = renames(before, after)
  const beforeTasks = new Map<string, { status: TaskStatus; blocker?: string; phase: string }>()
  for (const { task, phaseIndex } of eachTask(before)) {
    const phase = before[phaseIndex]!.name
    beforeTasks.set(renamed.tasks.get(task.text) ?? task.text, {
      status: task.status,
      blocker: task.blocker,
      phase: renamed.phases.get(phase) ?? phase,
    })
  }
  const afterPhases = new Set(after.map((phase) => phase.name))
  const beforePhases = new Set(before.map((phase) => renamed.phases.get(phase.name) ?? phase.name))

  for (const [from, to] of renamed.phases)
    lines.push(`renamed phase ${quotePreview(from)} to ${quotePreview(to)}`)
  for (const phase of before)
    if (!afterPhases.has(renamed.phases.get(phase.name) ?? phase.name)) {
      lines.push(`removed phase ${quotePreview(phase.name)}`)
      removedPhases.push(phase.name)
    }
  for (const phase of after)
    if (!beforePhases.has(phase.name)) lines.push(`added phase ${quotePreview(phase.name)}`)
  for (const [from, to] of renamed.tasks) lines.push(`renamed ${quotePreview(from)} to ${quotePreview(to)}`)

  const seen = new Set<string>()
  for (const { task, phaseIndex } of eachTask(after)) {
    const phase = after[phaseIndex]!.name
    seen.add(task.text)
    const old = beforeTasks.get(task.text)
    const name = quotePreview(task.text)
    if (!old) {
      lines.push(`added ${name} to ${quotePreview(phase)} (${STATUS_WORDS[task.status]})`)
      continue
    }
    if (old.phase !== phase) lines.push(`moved ${name} to ${quotePreview(phase)}`)
    const why = task.blocker === undefined ? "" : ` (${quotePreview(task.blocker)})`
    const reason = said.get(task.text)
    if (old.status !== task.status)
      lines.push(
        task.blocker !== undefined
          ? `${task.status === "blocked" ? "blocked" : "dropped"} ${name}${why}`
          : `${name}: ${STATUS_WORDS[old.status]} → ${STATUS_WORDS[task.status]}${reason === undefined ? "" : ` (${quotePreview(reason)})`}`,
      )
    else if (task.status === "blocked" && old.blocker !== task.blocker)
      lines.push(`blocked ${name} (${quotePreview(task.blocker ?? "no reason")})`)
    else if (task.status === "abandoned" && task.blocker !== undefined && old.blocker !== task.blocker)
      lines.push(`dropped ${name}${why}`)
  }
  for (const [text, old] of beforeTasks)
    if (!seen.has(text)) {
      if (afterPhases.has(old.phase)) lines.push(`removed ${quotePreview(text)}`)
      removed.push(text)
    }
  return { lines, removed, removedPhases }
}
