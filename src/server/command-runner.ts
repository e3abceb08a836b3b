// The server's /todo command: parses the arguments (core/list/command.ts), carries the plan out on the store
// or in the project folder (shared/user-edits.ts, shared/todo-file.ts), and reports what happened for the
// model turn the host starts after it.

import { COMMAND_USAGE, parseCommand, unchangedText } from "../core/list/command.ts"
import { renderMarkdown } from "../core/list/markdown.ts"
import type { Limits, Op, TodoList } from "../core/list/types.ts"
import { PLUGIN_ID, quote } from "../core/list/words.ts"
import { formatList } from "../core/model/format.ts"
import type { CommandReport } from "../core/model/prompts.ts"
import { exportList, readImport } from "../shared/todo-file.ts"
import { type EditAnchor, replaceFromMarkdown, runUserOps } from "../shared/user-edits.ts"
import type { Store } from "../store/store.ts"

export interface CommandContext {
  readonly store: Store
  /** The project folder export and import paths resolve in. */
  readonly directory: string
  readonly limits: Limits
}

/**
 * Runs `/todo <argumentsText>` on the session's list in effect (while reverted, the list before the revert
 * point); a change is recorded at `at`, with the command's `mark` (its message carries it). Returns the report,
 * the list after it and, for a verb, the ops it ran (made again as typed if its edit moves among others').
 */
export async function runCommand(
  context: CommandContext,
  session: string,
  list: TodoList,
  argumentsText: string,
  at?: EditAnchor,
  mark?: string,
): Promise<{ readonly report: CommandReport; readonly list: TodoList; readonly ops?: readonly Op[] }> {
  const { store, directory, limits } = context
  const parsed = parseCommand(argumentsText, list)
  const unchanged = (report: CommandReport) => ({ report, list })
  if (!parsed.ok) return unchanged({ error: parsed.error })
  const plan = parsed.value
  switch (plan.kind) {
    case "show":
      return unchanged({ shown: "the todo list", output: formatList(list) })
    case "help":
      return unchanged({ shown: "the /todo usage", output: COMMAND_USAGE })
    case "copy":
      return unchanged({ shown: "the list as Markdown", output: renderMarkdown(list) })
    case "edit":
      return unchanged({
        error: `Editing in $EDITOR needs the ${PLUGIN_ID} TUI plugin (choose Edit in the /todo dialog). Here, use /todo export, edit TODO.md, then /todo import.`,
      })
    case "export": {
      const out = await exportList(list, directory, plan.path, plan.force)
      return unchanged(
        out.ok
          ? {
              action: "exported the todo list",
              output: `Wrote ${out.value.tasks} tasks (${out.value.bytes} bytes) to ${out.value.path}.`,
            }
          : { error: out.error },
      )
    }
    case "import": {
      const file = await readImport(directory, plan.path)
      if (!file.ok) return unchanged({ error: file.error })
      const { path, text } = file.value
      const out = await replaceFromMarkdown(
        store,
        session,
        text,
        limits,
        "none",
        { force: plan.force },
        at,
        mark,
      )
      const report: CommandReport = out.ok
        ? {
            lines: [`imported ${path}`, ...out.diff.lines],
            removed: out.diff.removed,
            removedPhases: out.diff.removedPhases,
            list: out.list,
          }
        : { error: `${path}: ${out.error}` }
      return { report, list: out.list }
    }
    case "ops": {
      const out = await runUserOps(store, session, plan.ops, limits, "none", at, mark)
      if (out.ok && out.diff.lines.length === 0)
        return unchanged({ unchanged: unchangedText(plan.ops, out.list, quote) })
      const report: CommandReport = out.ok
        ? {
            lines: out.diff.lines,
            removed: out.diff.removed,
            removedPhases: out.diff.removedPhases,
            list: out.list,
          }
        : { error: out.error }
      return { report, list: out.list, ops: plan.ops }
    }
  }
}
