// The server's /todo command: parses the arguments (core/list/command.ts), carries the plan out through
// core/list/run-plan.ts on the store or in the project folder (shared/user-edits.ts, shared/todo-file.ts), and
// reports what happened for the model turn the host starts after it.

import { COMMAND_USAGE, parseCommand, unchangedText } from "../core/list/command.ts"
import { renderMarkdown } from "../core/list/markdown.ts"
import { type PlanEffects, type PlanOf, runPlan } from "../core/list/run-plan.ts"
import type { Limits, Op, TodoList } from "../core/list/types.ts"
import { PLUGIN_ID, quote } from "../core/list/words.ts"
import { formatList } from "../core/model/format.ts"
import type { CommandReport } from "../core/model/prompts.ts"
import { exportList, readImport } from "../shared/todo-file.ts"
import { type EditAnchor, type EditTarget, replaceFromMarkdown, runUserOps } from "../shared/user-edits.ts"
import type { Store } from "../store/store.ts"

/** One `/todo <text>` on a session. */
export interface CommandRequest {
  readonly store: Store
  /** The project folder export and import paths resolve in. */
  readonly directory: string
  readonly limits: Limits
  readonly session: string
  /** The session's list in effect (while reverted, the list before the revert point). */
  readonly list: TodoList
  /** The text after `/todo`. */
  readonly text: string
  /** Where a change is recorded. */
  readonly at?: EditAnchor | undefined
  /** The command's mark (its message carries it). */
  readonly mark?: string | undefined
}

/** The report, the list after it and, for a verb, the ops it ran (made again as typed if its edit moves among others'). */
export interface CommandOutcome {
  readonly report: CommandReport
  readonly list: TodoList
  readonly ops?: readonly Op[]
}

/** Runs `/todo <text>` on the session's list in effect; a change is recorded at `at` with the command's `mark`. */
export async function runCommand(request: CommandRequest): Promise<CommandOutcome> {
  const parsed = parseCommand(request.text, request.list)
  if (!parsed.ok) return { report: { error: parsed.error }, list: request.list }
  return runPlan(parsed.value, serverEffects(request))
}

/** What the server does for each verb: a report for the model, the store changed where the verb changes it. */
function serverEffects(request: CommandRequest): PlanEffects<Promise<CommandOutcome>> {
  const { list } = request
  const unchanged = async (report: CommandReport): Promise<CommandOutcome> => ({ report, list })
  return {
    show: () => unchanged({ shown: "the todo list", output: formatList(list) }),
    help: () => unchanged({ shown: "the /todo usage", output: COMMAND_USAGE }),
    copy: () => unchanged({ shown: "the list as Markdown", output: renderMarkdown(list) }),
    edit: () =>
      unchanged({
        error: `Editing in $EDITOR needs the ${PLUGIN_ID} TUI plugin (choose Edit in the /todo dialog). Here, use /todo export, edit TODO.md, then /todo import.`,
      }),
    export: (plan) => exportFile(request, plan),
    import: (plan) => importFile(request, plan),
    ops: (plan) => runOps(request, plan),
  }
}

/** The edit a command makes: told to the model by the command's reply, settled on its message. */
function commandTarget(request: CommandRequest): EditTarget {
  const { store, session, limits, at, mark } = request
  return { store, session, limits, notify: "none", at, command: mark }
}

async function exportFile(request: CommandRequest, plan: PlanOf<"export">): Promise<CommandOutcome> {
  const { list } = request
  const out = await exportList(list, request.directory, plan.path, plan.force)
  const report: CommandReport = out.ok
    ? {
        action: "exported the todo list",
        output: `Wrote ${out.value.tasks} tasks (${out.value.bytes} bytes) to ${out.value.path}.`,
      }
    : { error: out.error }
  return { report, list }
}

async function importFile(request: CommandRequest, plan: PlanOf<"import">): Promise<CommandOutcome> {
  const file = await readImport(request.directory, plan.path)
  if (!file.ok) return { report: { error: file.error }, list: request.list }
  const { path, text } = file.value
  const out = await replaceFromMarkdown(commandTarget(request), text, { force: plan.force })
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

async function runOps(request: CommandRequest, plan: PlanOf<"ops">): Promise<CommandOutcome> {
  const out = await runUserOps(commandTarget(request), plan.ops)
  if (out.ok && out.diff.lines.length === 0)
    return { report: { unchanged: unchangedText(plan.ops, out.list, quote) }, list: request.list }
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
