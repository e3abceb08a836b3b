// How the TUI changes a list and reports it: one locked change through src/shared/user-edits.ts, made where the
// host stands in the conversation, the views refreshed, the change checked in the store, and the core's toast.
// Also the two guards every dialog step runs under.

import { unchangedText } from "../core/list/command.ts"
import type { Op } from "../core/list/types.ts"
import { preview } from "../core/list/words.ts"
import { changeToast } from "../core/view/dialog.ts"
import { type EditOutcome, type EditTarget, replaceFromMarkdown, runUserOps } from "../shared/user-edits.ts"
import type { Shell } from "./list-source.ts"

export function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

export function closeDialog(shell: Shell): void {
  try {
    shell.host.dialog.clear()
  } catch {
    // Already closed.
  }
}

/** Runs a dialog step started from a callback; whatever it throws becomes an error toast. */
export function safely(shell: Shell, step: Promise<void> | void): void {
  Promise.resolve(step).catch((error) => {
    closeDialog(shell)
    shell.toast("error", message(error))
  })
}

/** The toast's first line: given, or worked out from the outcome (why a verb changed nothing). */
type Headline = string | ((outcome: EditOutcome & { ok: true }) => string | undefined)

async function report(
  shell: Shell,
  session: string,
  outcome: EditOutcome,
  headline?: Headline,
): Promise<void> {
  shell.source.refresh(session, outcome.list)
  if (!outcome.ok) return shell.toast("error", outcome.error)
  const snapshot = await shell.store.read(session)
  if (!snapshot.persisted)
    return shell.toast(
      "error",
      "The change could not be saved to the todo storage, so it exists only in this TUI and the agent will not see it.",
    )
  const first = typeof headline === "function" ? headline(outcome) : headline
  const text = changeToast({ lines: outcome.diff.lines, list: outcome.list, headline: first })
  shell.toast(text.variant, text.message)
}

async function change(
  shell: Shell,
  session: string,
  run: () => Promise<EditOutcome>,
  headline?: Headline,
): Promise<void> {
  closeDialog(shell)
  const problem = shell.source.editProblem()
  if (problem) return shell.toast("error", problem)
  try {
    await report(shell, session, await run(), headline)
  } catch (error) {
    shell.toast("error", `The change failed: ${message(error)}`)
  }
}

/**
 * Runs ops the user chose; the toast lists what changed, or, when nothing did, names each verb and
 * what it addressed and why (`start "X": it is already in progress`).
 */
export function applyOps(shell: Shell, session: string, ops: readonly Op[]): Promise<void> {
  const target = editTarget(shell, session)
  return change(
    shell,
    session,
    () => runUserOps(target, ops),
    (outcome) =>
      outcome.diff.lines.length === 0
        ? unchangedText(ops, outcome.list, (text) => `"${preview(text, 40)}"`).join("\n")
        : undefined,
  )
}

/**
 * Replaces the list from Markdown (an editor save, an import); the toast leads with `headline`. Called
 * only once the core's saveDecision or importDecision said to apply, having asked the user wherever the
 * list had something to lose, so a file with no tasks is taken as it is (`force`).
 */
export function applyMarkdown(
  shell: Shell,
  session: string,
  markdown: string,
  headline: string,
): Promise<void> {
  const target = editTarget(shell, session)
  return change(shell, session, () => replaceFromMarkdown(target, markdown, { force: true }), headline)
}

/** A TUI edit: queued for the model's next request ("record"), made where the host stands when it is asked. */
function editTarget(shell: Shell, session: string): EditTarget {
  return {
    store: shell.store,
    session,
    limits: shell.limits,
    notify: "record",
    at: shell.source.anchorOf(session),
    start: shell.startOf,
  }
}
