// "Edit as Markdown in $EDITOR": the list goes to a temporary TODO.md, the user's editor runs with the
// TUI suspended, and the saved text goes back through the core's save rule (src/core/view/dialog.ts
// saveDecision): a parse error offers to reopen, an unchanged save changes nothing, a save over a list
// that changed meanwhile asks first.

import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseMarkdown, renderMarkdown } from "../core/list/markdown.ts"
import { fail, ok, type Result } from "../core/list/result.ts"
import type { TodoList } from "../core/list/types.ts"
import { CANCELLED, editorCommand, REPLACE_HEADLINES, saveDecision } from "../core/view/dialog.ts"
import { applyMarkdown, closeDialog, safely } from "./edits.ts"
import type { Shell } from "./list-source.ts"

/** Runs $VISUAL/$EDITOR on `text` with the renderer suspended; returns the saved text. */
function runEditor(shell: Shell, text: string): Result<string> {
  const [command = "vi", ...args] = editorCommand(process.env)
  const folder = mkdtempSync(join(tmpdir(), "opencode-todo-"))
  const file = join(folder, "TODO.md")
  try {
    writeFileSync(file, text)
    const renderer = shell.host.renderer
    renderer.suspend()
    let result: ReturnType<typeof spawnSync>
    try {
      result = spawnSync(command, [...args, file], { stdio: "inherit" })
    } finally {
      try {
        renderer.currentRenderBuffer.clear()
      } catch {
        // Older renderers repaint fully on resume anyway.
      }
      renderer.resume()
      renderer.requestRender()
    }
    if (result.error) return fail(`Could not run the editor "${command}": ${result.error.message}`)
    if (result.status !== 0)
      return fail(
        `The editor "${command}" exited with ${result.status ?? result.signal}; the list was not changed.`,
      )
    return ok(readFileSync(file, "utf8"))
  } finally {
    rmSync(folder, { recursive: true, force: true })
  }
}

/**
 * Opens the editor on the session's list (or on `draft`, the text of a save that did not parse,
 * with `opened` the list the first round started from) and applies the save by the core's rule.
 */
export async function editInEditor(
  shell: Shell,
  session: string,
  draft?: { readonly text: string; readonly opened: TodoList },
): Promise<void> {
  const { host, source, toast } = shell
  closeDialog(shell)
  const problem = source.editProblem()
  if (problem) return toast("error", problem)
  const opened = draft?.opened ?? (await source.read(session))
  const edited = runEditor(shell, draft?.text ?? renderMarkdown(opened))
  if (!edited.ok) return toast("error", edited.error)
  const current = await source.read(session)
  // The list may have changed while the editor ran: show what it is now, whatever the save does.
  source.refresh(session, current)
  const decision = saveDecision({ opened, current, edited: parseMarkdown(edited.value, shell.limits) })
  switch (decision.kind) {
    case "reopen":
      toast(decision.toast.variant, decision.toast.message)
      host.dialog.confirm({
        title: decision.confirm.title,
        message: decision.confirm.message,
        onConfirm: () => safely(shell, editInEditor(shell, session, { text: edited.value, opened })),
        onCancel: () => closeDialog(shell),
      })
      return
    case "unchanged":
      return toast(decision.toast.variant, decision.toast.message)
    case "confirm":
      host.dialog.confirm({
        title: decision.confirm.title,
        message: decision.confirm.message,
        onConfirm: () =>
          safely(shell, applyMarkdown(shell, session, edited.value, REPLACE_HEADLINES.editOverOther)),
        onCancel: () => {
          closeDialog(shell)
          toast("info", CANCELLED.edit)
        },
      })
      return
    case "save":
      return applyMarkdown(shell, session, edited.value, decision.headline)
  }
}
