// `/todo <verb> …` typed in the TUI's prompt, run here instead of the server command: parsed by the core
// (core/list/command.ts) and carried out by the dialog's own steps, so it costs no model request. Edits queue a
// note the server gives the model on its next request (edits.ts); the result is a short toast.

import { parseCommand, TYPED_HELP, typedError } from "../core/list/command.ts"
import { copyList, exportToFile, importFromFile, openDialog } from "./dialog.tsx"
import { editInEditor } from "./editor.tsx"
import { applyOps, message } from "./edits.ts"
import { routeSession, type Shell } from "./list-source.ts"

/** Runs the text after `/todo` on the session shown; every outcome ends in a toast or a dialog. */
export function runTyped(shell: Shell, args: string): void {
  typed(shell, args).catch((error) => shell.toast("error", `/todo failed: ${message(error)}`))
}

async function typed(shell: Shell, args: string): Promise<void> {
  if (args === "") return openDialog(shell)
  const session = routeSession(shell.api)
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
      return exportToFile(shell, session, plan.path, plan.force)
    case "import":
      return importFromFile(shell, session, plan.path, plan.force)
    case "ops":
      return applyOps(shell, session, plan.ops)
  }
}
