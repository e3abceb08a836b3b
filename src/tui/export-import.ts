// Export and import in the TUI (the dialog's entries and the typed verbs): TODO.md written from the list the TUI
// shows, asking before it overwrites a file that is not ours, and read back through the core's import rule
// (src/core/view/dialog.ts importDecision), asking first when the list has work to lose. The file itself is
// src/shared/todo-file.ts's.

import { importMarkdown } from "../core/list/import.ts"
import { CANCELLED, importDecision, overwriteConfirmation, REPLACE_HEADLINES } from "../core/view/dialog.ts"
import { exportList, readImport } from "../shared/todo-file.ts"
import { applyMarkdown, closeDialog, safely } from "./edits.ts"
import type { Shell } from "./list-source.ts"

/** Writes TODO.md (or `path`), asking before it overwrites a file that is not ours unless `force`. */
export async function exportToFile(
  shell: Shell,
  session: string,
  path?: string,
  force = false,
): Promise<void> {
  const { toast } = shell
  closeDialog(shell)
  if (!shell.source.storeShared())
    return toast(
      "error",
      "This TUI is attached to a server on another machine; use /todo export, which writes TODO.md on the server.",
    )
  const list = await shell.source.read(session)
  if (list.length === 0) return toast("info", "The list is empty; nothing to export.")
  const write = async (force: boolean): Promise<void> => {
    const out = await exportList(list, shell.directory(), path, force)
    if (out.ok) return toast("success", `Wrote ${out.value.tasks} tasks to ${out.value.path}.`)
    if (!out.needsConfirm) return toast("error", out.error)
    const confirm = overwriteConfirmation(out.path)
    shell.host.dialog.confirm({
      title: confirm.title,
      message: confirm.message,
      onConfirm: () => {
        closeDialog(shell)
        safely(shell, write(true))
      },
      onCancel: () => {
        closeDialog(shell)
        toast("info", CANCELLED.export)
      },
    })
  }
  await write(force)
}

/**
 * Replaces the list from TODO.md (or `path`), asking first when that drops or rewrites work; `force`
 * (a typed `--force`) lets a file with no tasks through to that question, as for /todo import.
 */
export async function importFromFile(
  shell: Shell,
  session: string,
  path?: string,
  force = false,
): Promise<void> {
  const { toast } = shell
  closeDialog(shell)
  const problem = shell.source.editProblem()
  if (problem) return toast("error", problem)
  const file = await readImport(shell.directory(), path)
  if (!file.ok) return toast("error", file.error)
  const { text } = file.value
  const read = file.value.path
  const incoming = importMarkdown(text, shell.limits, { force })
  const decision = importDecision(await shell.source.read(session), incoming, read)
  const headline = REPLACE_HEADLINES.import(read)
  if (decision.kind === "apply") return applyMarkdown(shell, session, text, headline)
  if (decision.kind !== "confirm") return toast(decision.toast.variant, decision.toast.message)
  shell.host.dialog.confirm({
    title: decision.confirm.title,
    message: decision.confirm.message,
    onConfirm: () => safely(shell, applyMarkdown(shell, session, text, headline)),
    onCancel: () => {
      closeDialog(shell)
      toast("info", CANCELLED.import)
    },
  })
}
