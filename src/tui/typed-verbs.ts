// `/todo <verb> …` typed in the TUI's prompt, run here at no model request: parsed by the core and carried out
// through core/list/run-plan.ts by the dialog's own steps, each ending in a toast or a dialog; a TUI that cannot
// change the store hands the line to the server (shell.remote). More: docs/design.md, typed-verbs.ts.

import { parseCommand, TYPED_HELP, typedError } from "../core/list/command.ts"
import { type PlanEffects, runPlan } from "../core/list/run-plan.ts"
import { copyList, openDialog } from "./dialog.ts"
import { editInEditor } from "./editor.ts"
import { applyOps, message } from "./edits.ts"
import { exportToFile, importFromFile } from "./export-import.ts"
import type { Shell } from "./list-source.ts"

/** Runs the text after `/todo` on the session shown; every outcome ends in a toast or a dialog. */
export function runTyped(shell: Shell, args: string): void {
  typed(shell, args).catch((error) => shell.toast("error", `/todo failed: ${message(error)}`))
}

async function typed(shell: Shell, args: string): Promise<void> {
  if (args === "") return openDialog(shell)
  const session = shell.host.session()
  if (!session) return shell.toast("info", "Open a session first: each session has its own todo list.")
  const parsed = parseCommand(args, await shell.source.read(session))
  if (!parsed.ok) return shell.toast("error", typedError(parsed.error))
  return runPlan(parsed.value, tuiEffects(shell, session, args))
}

/** What the TUI does for each verb: a dialog step or a toast; a change goes to the server when it must. */
function tuiEffects(shell: Shell, session: string, args: string): PlanEffects<Promise<void> | void> {
  const unlessRemote = async (step: () => Promise<void>) => {
    if (!(await ranRemotely(shell, session, args))) await step()
  }
  return {
    show: () => openDialog(shell),
    help: () => shell.toast("info", TYPED_HELP),
    copy: () => copyList(shell, session),
    edit: () => editInEditor(shell, session),
    export: (plan) => unlessRemote(() => exportToFile(shell, session, plan.path, plan.force)),
    import: (plan) => unlessRemote(() => importFromFile(shell, session, plan.path, plan.force)),
    ops: (plan) => unlessRemote(() => applyOps(shell, session, plan.ops)),
  }
}

/** Runs the line on the server when this TUI cannot change the store and the host offers a way; says whether it did. */
async function ranRemotely(shell: Shell, session: string, args: string): Promise<boolean> {
  if (!shell.remote || shell.source.editProblem() === undefined) return false
  const reply = await shell.remote(session, args)
  if (!reply) return false
  shell.source.refresh(session)
  shell.toast(reply.ok ? "success" : "error", reply.text)
  return true
}
