// `/todo <verb> …` typed in the TUI's prompt, run here instead of the server command: parsed by the core
// (core/list/command.ts) and carried out by the dialog's own steps, so it costs no model request. Edits queue
// a note the server gives the model on its next request (edits.ts); the result is a short toast. A TUI
// that cannot change the store (attached to a server elsewhere) hands the line to the server where the
// host binding offers a way (shell.remote), which also costs no model request.

import { parseCommand, TYPED_HELP, typedError } from "../core/list/command.ts"
import { copyList, exportToFile, importFromFile, openDialog } from "./dialog.ts"
import { editInEditor } from "./editor.ts"
import { applyOps, message } from "./edits.ts"
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
  const plan = parsed.value
  switch (plan.kind) {
    case "show":
      return openDialog(shell)
    case "help":
      return shell.toast("info", TYPED_HELP)
    case "copy":
      return copyList(shell, session)
    case "edit":
      return editInEditor(shell, session)
    case "export":
      if (await ranRemotely(shell, session, args)) return
      return exportToFile(shell, session, plan.path, plan.force)
    case "import":
      if (await ranRemotely(shell, session, args)) return
      return importFromFile(shell, session, plan.path, plan.force)
    case "ops":
      if (await ranRemotely(shell, session, args)) return
      return applyOps(shell, session, plan.ops)
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
