// What an import of TODO.md may do to the list: a file that is not our export never has its text quoted back
// (it may be a secret behind a link), and a file with no tasks replaces the list only when it is our own empty
// export or the user said --force, so a stray empty or title-only file cannot wipe the plan.

import { taskCount } from "./list.ts"
import { isTodoExport, parseMarkdown } from "./markdown.ts"
import type { Result } from "./result.ts"
import type { Limits, TodoList } from "./types.ts"

/** A refusal the user may override: the TUI asks, `/todo import --force` says yes up front. */
export type ImportOutcome = Result<TodoList, { readonly needsConfirm?: boolean }>

export function parseImport(text: string, limits: Limits, force: boolean): ImportOutcome {
  const ours = isTodoExport(text)
  const parsed = parseMarkdown(text, limits, { quote: ours })
  if (!parsed.ok || ours || force || taskCount(parsed.value) > 0) return parsed
  return {
    ok: false,
    needsConfirm: true,
    error:
      "the file has no tasks and is not a todo export, so importing it would clear the list. Import it with --force to clear the list, or give a file with tasks.",
  }
}
