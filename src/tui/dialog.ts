// The /todo dialog: the main menu (list actions, then the tasks by phase, the work first and finished
// phases folded until chosen), a task's actions, Append and Copy; Export and Import are export-import.ts's.
// What each screen shows and says comes from src/core/view/dialog.ts; this file puts it on screen through
// the host's dialog port (host.ts) and carries the choice out.

import { renderMarkdown } from "../core/list/markdown.ts"
import { appendPhase, findTask } from "../core/list/queries.ts"
import { preview } from "../core/list/words.ts"
import {
  actionOp,
  blockPrompt,
  COPY_ANSWER_KEY,
  copyConfirmation,
  copyFollowUp,
  copySentText,
  MARKDOWN_VIEW_TITLE,
  type MainChoice,
  type MenuItem,
  mainOptions,
  mainPlaceholder,
  mainTitle,
  removeConfirmation,
  renamePrompt,
  type TaskAction,
  taskActions,
  unfoldedFocus,
} from "../core/view/dialog.ts"
import { editInEditor } from "./editor.ts"
import { applyOps, closeDialog, message, safely } from "./edits.ts"
import { exportToFile, importFromFile } from "./export-import.ts"
import type { Shell } from "./list-source.ts"

export function openDialog(shell: Shell): void {
  openMain(shell).catch((error) => shell.toast("error", message(error)))
}

/** Shows the main dialog; `unfolded` names the finished phases shown whole, the newest last. */
async function openMain(shell: Shell, unfolded: readonly string[] = []): Promise<void> {
  const { host, source } = shell
  const session = host.session()
  if (!session) return shell.toast("info", "Open a session first: each session has its own todo list.")
  const list = await source.read(session)
  source.refresh(session, list)
  const focus = unfolded.length > 0 ? unfoldedFocus(list, unfolded.at(-1)!) : undefined
  host.dialog.select<MainChoice>({
    title: mainTitle(list),
    placeholder: mainPlaceholder(list),
    options: mainOptions(list, unfolded),
    ...(focus ? { current: focus } : {}),
    onSelect: (choice) => {
      if (choice.kind === "task") safely(shell, openTask(shell, session, choice.text))
      else if (choice.kind === "phase") safely(shell, openMain(shell, [...unfolded, choice.name]))
      else safely(shell, runMenu(shell, session, choice.item))
    },
  })
}

function runMenu(shell: Shell, session: string, item: MenuItem): Promise<void> | void {
  switch (item) {
    case "append":
      return openAppend(shell, session)
    case "edit":
      return editInEditor(shell, session)
    case "copy":
      return copyList(shell, session)
    case "export":
      return exportToFile(shell, session)
    case "import":
      return importFromFile(shell, session)
  }
}

async function openTask(shell: Shell, session: string, text: string): Promise<void> {
  const found = findTask(await shell.source.read(session), text)
  if (!found) {
    shell.toast("warning", `"${preview(text)}" is no longer in the list.`)
    return openMain(shell)
  }
  const { status, blocker } = found.task
  shell.host.dialog.select<TaskAction>({
    title: preview(text, 48),
    placeholder: "Choose an action",
    options: taskActions(status).map((entry) => ({ title: entry.title, value: entry.action })),
    onSelect: (action) => safely(shell, runTaskAction(shell, session, text, action, blocker)),
  })
}

async function runTaskAction(
  shell: Shell,
  session: string,
  text: string,
  action: TaskAction,
  blocker: string | undefined,
): Promise<void> {
  const { dialog } = shell.host
  if (action === "block") {
    dialog.prompt({
      title: blockPrompt(text),
      placeholder: "Reason (optional)",
      value: blocker ?? "",
      onConfirm: (reason) => safely(shell, applyOps(shell, session, [actionOp("block", text, reason)])),
      onCancel: () => closeDialog(shell),
    })
    return
  }
  if (action === "rename") {
    dialog.prompt({
      title: renamePrompt(text),
      placeholder: "The new text",
      value: text,
      onConfirm: (to) => {
        if (to.trim() && to.trim() !== text)
          return safely(shell, applyOps(shell, session, [actionOp("rename", text, to)]))
        closeDialog(shell)
      },
      onCancel: () => closeDialog(shell),
    })
    return
  }
  if (action === "rm") {
    const confirm = removeConfirmation(text)
    dialog.confirm({
      title: confirm.title,
      message: confirm.message,
      onConfirm: () => safely(shell, applyOps(shell, session, [actionOp("rm", text)])),
      onCancel: () => closeDialog(shell),
    })
    return
  }
  await applyOps(shell, session, [actionOp(action, text)])
}

function openAppend(shell: Shell, session: string): void {
  shell.host.dialog.prompt({
    title: "Append a task",
    placeholder: "What needs doing?",
    onConfirm: (value) => {
      const text = value.trim()
      if (text) return safely(shell, choosePhase(shell, session, text))
      closeDialog(shell)
      shell.toast("warning", "No task text given; nothing was added.")
    },
    onCancel: () => closeDialog(shell),
  })
}

type PhaseChoice = { readonly kind: "phase"; readonly name: string } | { readonly kind: "new" }

async function choosePhase(shell: Shell, session: string, text: string): Promise<void> {
  const list = await shell.source.read(session)
  const current = appendPhase(list)
  if (list.length === 0) return promptPhase(shell, session, text, current)
  const options: { title: string; value: PhaseChoice }[] = [
    ...list.map((phase) => ({
      title: preview(phase.name, 48),
      value: { kind: "phase", name: phase.name } as const,
    })),
    { title: "New phase…", value: { kind: "new" } },
  ]
  shell.host.dialog.select<PhaseChoice>({
    title: `Phase for "${preview(text, 30)}"`,
    options,
    current: options.find((o) => o.value.kind === "phase" && o.value.name === current)?.value,
    onSelect: (choice) => {
      if (choice.kind === "new") promptPhase(shell, session, text, "")
      else safely(shell, appendTask(shell, session, choice.name, text))
    },
  })
}

function promptPhase(shell: Shell, session: string, text: string, suggested: string): void {
  shell.host.dialog.prompt({
    title: "New phase name",
    placeholder: "e.g. Tests",
    value: suggested,
    onConfirm: (value) => {
      const phase = value.trim()
      if (phase) return safely(shell, appendTask(shell, session, phase, text))
      closeDialog(shell)
      shell.toast("warning", "No phase name given; nothing was added.")
    },
    onCancel: () => closeDialog(shell),
  })
}

function appendTask(shell: Shell, session: string, phase: string, text: string): Promise<void> {
  return applyOps(shell, session, [{ op: "append", phase, items: [text] }])
}

function showMarkdown(shell: Shell, markdown: string): void {
  shell.host.dialog.alert({
    title: MARKDOWN_VIEW_TITLE,
    message: markdown,
    onConfirm: () => closeDialog(shell),
  })
}

export async function copyList(shell: Shell, session: string): Promise<void> {
  closeDialog(shell)
  const list = await shell.source.read(session)
  if (list.length === 0) return shell.toast("info", "The list is empty; nothing to copy.")
  const markdown = renderMarkdown(list)
  const renderer = shell.host.renderer as { copyToClipboardOSC52?: (text: string) => boolean }
  let sent = false
  try {
    sent = typeof renderer.copyToClipboardOSC52 === "function" && renderer.copyToClipboardOSC52(markdown)
  } catch {
    sent = false
  }
  if (!sent) return showMarkdown(shell, markdown)
  // Asked once: the answer is kept where the host keeps values for the user.
  const { kept } = shell.host
  const next = copyFollowUp(kept.get(COPY_ANSWER_KEY))
  if (next === "show") return showMarkdown(shell, markdown)
  if (next === "sent") return shell.toast("info", copySentText(list))
  const confirm = copyConfirmation(list, kept.keptFor)
  shell.host.dialog.confirm({
    title: confirm.title,
    message: confirm.message,
    onConfirm: () => {
      kept.set(COPY_ANSWER_KEY, true)
      // The confirm dialog clears the dialog stack after this returns: show the view after that.
      setTimeout(() => showMarkdown(shell, markdown), 0)
    },
    onCancel: () => {
      kept.set(COPY_ANSWER_KEY, false)
      closeDialog(shell)
    },
  })
}
