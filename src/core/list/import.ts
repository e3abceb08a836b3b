// What a Markdown list becomes when it replaces the session's list (/todo import, the dialog's import, an
// $EDITOR edit). The file as read, then the one normal form every change ends in, with notes that say by line
// what was read how and what the normal form changed; parse rules live in markdown.ts. A file is not trusted:
// what it may quote back and when an empty one may replace the list is in docs/design.md.

import { isTodoExport, linesText, readMarkdown } from "./markdown.ts"
import { taskCount } from "./queries.ts"
import { normalize } from "./reducers.ts"
import type { Result } from "./result.ts"
import type { Limits, TodoList } from "./types.ts"
import { DEFAULT_LIMITS } from "./types.ts"
import { quotePreview } from "./words.ts"

export interface Imported {
  readonly list: TodoList
  /** What the reply says beyond the list itself, e.g. `line 4: [~] read as dropped`. */
  readonly notes: readonly string[]
}

/** A refusal the user may override (`needsConfirm`): the TUI asks, `/todo import --force` says yes up front. */
export type ImportOutcome = Result<Imported, { readonly needsConfirm?: boolean }>

export interface ImportOptions {
  /**
   * Replace the list even with a file that has no tasks and is not our export: `--force`, a confirmation
   * the user gave, or the user's own editor buffer.
   */
  readonly force?: boolean
}

const q = (text: string): string => quotePreview(text)

// A file with dozens of [>] tasks gets one short note.
const NAMES_SHOWN = 3

const NO_TASKS_ERROR =
  "the file has no tasks and is not a todo export, so importing it would clear the list. Import it with --force to clear the list, or give a file with tasks."

export function importMarkdown(
  text: string,
  limits: Limits = DEFAULT_LIMITS,
  options: ImportOptions = {},
): ImportOutcome {
  const ours = isTodoExport(text)
  const read = readMarkdown(text, limits, { quote: ours })
  if (!read.ok) return read
  const { list, notes, lines } = read.value
  if (!ours && options.force !== true && taskCount(list) === 0)
    return { ok: false, needsConfirm: true, error: NO_TASKS_ERROR }
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
