// What a Markdown list becomes when it replaces the session's list (/todo import, the dialog's import,
// an $EDITOR edit): the file as read, then the one normal form every change ends in, with notes that
// say by line what was read how and what the normal form changed. Parse rules live in markdown.ts.

import { linesText, readMarkdown } from "./markdown.ts"
import { normalize } from "./reducers.ts"
import type { Result } from "./result.ts"
import type { Limits, TodoList } from "./types.ts"
import { DEFAULT_LIMITS } from "./types.ts"
import { preview, quote } from "./words.ts"

export interface Imported {
  readonly list: TodoList
  /** What the reply says beyond the list itself, e.g. `line 4: [~] read as dropped`. */
  readonly notes: readonly string[]
}

const q = (text: string) => quote(preview(text))

// A file with dozens of [>] tasks gets one short note.
const NAMES_SHOWN = 3

export function importMarkdown(text: string, limits: Limits = DEFAULT_LIMITS): Result<Imported> {
  const read = readMarkdown(text, limits)
  if (!read.ok) return read
  const { list, notes, lines } = read.value
  const normal = normalize(list)
  const lineOf = (task: string) => lines.get(task) ?? 0
  const demoted: string[] = []
  const extra: string[] = []
  for (const change of normal.changes) {
    if (change.kind !== "status") continue
    if (change.auto === "demoted") demoted.push(change.task)
    else if (change.auto === "promoted")
      extra.push(`${linesText([lineOf(change.task)])}: started ${q(change.task)}; no task was in progress`)
  }
  if (demoted.length > 0) {
    const kept = normal.list.flatMap((phase) => phase.tasks).find((task) => task.status === "in_progress")!
    const names = demoted.slice(0, NAMES_SHOWN).map(q).join(", ")
    const more = demoted.length > NAMES_SHOWN ? ` and ${demoted.length - NAMES_SHOWN} more` : ""
    extra.push(
      `${linesText(demoted.map(lineOf))}: back to pending (${names}${more}); only ${q(kept.text)} (line ${lineOf(kept.text)}) stays in progress`,
    )
  }
  return { ok: true, value: { list: normal.list, notes: [...notes, ...extra] } }
}
