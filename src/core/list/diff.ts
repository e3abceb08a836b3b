// What changed between two lists, in words the model reads after a user edit. One
// mechanism for every user-side change (/todo verbs, editor, import), so the model
// is told the same way whichever path the user took.

import { eachTask } from "./queries.ts"
import type { TaskStatus, TodoList } from "./types.ts"
import { preview, quote, STATUS_WORDS } from "./words.ts"

export interface ListDiff {
  /** One line per change, e.g. `done "Write parser"`, `added "Docs" to "Ship"`, `removed "Old"`. */
  readonly lines: readonly string[]
  /** Task texts that no longer exist, those of removed phases included: the model must not recreate them. */
  readonly removed: readonly string[]
  /** Phase names that no longer exist, named apart so the model is told they were phases. */
  readonly removedPhases: readonly string[]
}

export function diffLists(before: TodoList, after: TodoList): ListDiff {
  const lines: string[] = []
  const removed: string[] = []
  const removedPhases: string[] = []
  const beforeTasks = new Map<string, { status: TaskStatus; blocker?: string; phase: string }>()
  for (const { task, phaseIndex } of eachTask(before))
    beforeTasks.set(task.text, {
      status: task.status,
      blocker: task.blocker,
      phase: before[phaseIndex]!.name,
    })
  const afterPhases = new Set(after.map((phase) => phase.name))
  const beforePhases = new Set(before.map((phase) => phase.name))

  for (const phase of before)
    if (!afterPhases.has(phase.name)) {
      lines.push(`removed phase ${quote(preview(phase.name))}`)
      removedPhases.push(phase.name)
    }
  for (const phase of after)
    if (!beforePhases.has(phase.name)) lines.push(`added phase ${quote(preview(phase.name))}`)

  const seen = new Set<string>()
  for (const { task, phaseIndex } of eachTask(after)) {
    const phase = after[phaseIndex]!.name
    seen.add(task.text)
    const old = beforeTasks.get(task.text)
    const name = quote(preview(task.text))
    if (!old) {
      lines.push(`added ${name} to ${quote(preview(phase))} (${STATUS_WORDS[task.status]})`)
      continue
    }
    if (old.phase !== phase) lines.push(`moved ${name} to ${quote(preview(phase))}`)
    if (old.status !== task.status)
      lines.push(
        task.status === "blocked" && task.blocker
          ? `blocked ${name} (${quote(preview(task.blocker))})`
          : `${name}: ${STATUS_WORDS[old.status]} -> ${STATUS_WORDS[task.status]}`,
      )
    else if (task.status === "blocked" && old.blocker !== task.blocker)
      lines.push(`blocked ${name} (${quote(preview(task.blocker ?? "no reason"))})`)
  }
  for (const [text, old] of beforeTasks)
    if (!seen.has(text)) {
      if (afterPhases.has(old.phase)) lines.push(`removed ${quote(preview(text))}`)
      removed.push(text)
    }
  return { lines, removed, removedPhases }
}
