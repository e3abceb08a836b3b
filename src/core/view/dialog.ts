// What the /todo dialog in the TUI shows, offers and says, as plain data. The main menu (its order:
// docs/design.md), each task's actions and their ops, confirmations, toast texts, and whether an editor save
// or an import applies, asks first or changes nothing. Pure: the shell (src/tui/dialog.ts, editor.ts) shows
// it and carries the choices out.

import type { ImportOutcome } from "../list/import.ts"
import { counts, countTasks, taskCount } from "../list/queries.ts"
import { displayWidth, fitText } from "../list/text-width.ts"
import type { Op, TaskStatus, TodoList } from "../list/types.ts"
import {
  neutralize,
  type Progress,
  phaseTallyText,
  preview,
  progressText,
  STATUS_GLYPHS,
  STATUS_WORDS,
} from "../list/words.ts"
import type { CommandReport } from "../model/prompts.ts"
import type { Variant } from "../session/toasts.ts"
import { dialogOrder } from "./dialog-order.ts"

/**
 * Columns of a dialog row the host shows in its default (medium) size: about 52, less a spare. A
 * longer row is clipped by the host without "…", so every title, description and heading is fitted
 * to this here.
 */
export const DIALOG_ROW_WIDTH = 50
/** The group of list-wide actions; listed first so it is never below the fold. */
export const LIST_CATEGORY = "List"
/** The group of folded finished phases, one row each, after the phases with work left. */
export const FOLDED_CATEGORY = "Finished"
/** What a folded phase's row says it does when chosen. */
const UNFOLD_HINT = "show its tasks"

export type MenuItem = "append" | "edit" | "copy" | "export" | "import"

/** What a row of the main dialog stands for; the shell switches on `kind`, never parses a string. */
export type MainChoice =
  | { readonly kind: "menu"; readonly item: MenuItem }
  | { readonly kind: "task"; readonly text: string }
  | { readonly kind: "phase"; readonly name: string }

export interface MainOption {
  readonly title: string
  readonly value: MainChoice
  readonly category: string
  readonly description: string
}

export const MENU: readonly {
  readonly item: MenuItem
  readonly title: string
  readonly description: string
}[] = [
  { item: "append", title: "Append a task…", description: "add a task to a phase" },
  { item: "edit", title: "Edit as Markdown in $EDITOR…", description: "the whole list" },
  { item: "copy", title: "Copy as Markdown", description: "terminal clipboard" },
  { item: "export", title: "Export to TODO.md…", description: "in the project folder" },
  { item: "import", title: "Import from TODO.md…", description: "replace the list" },
]

/**
 * The rows of the main dialog: the list actions first (the host has no pinning, and a long list
 * would push them below the fold), then the tasks under their phases, the active phase first and
 * finished phases folded to one row each unless named in `unfolded` (dialog-order.ts has the
 * rules). Each row fits DIALOG_ROW_WIDTH.
 */
export function mainOptions(list: TodoList, unfolded: readonly string[] = []): MainOption[] {
  const menu: MainOption[] = MENU.map((entry) => ({
    title: entry.title,
    value: { kind: "menu", item: entry.item },
    category: LIST_CATEGORY,
    description: entry.description,
  }))
  const order = dialogOrder(list, unfolded)
  const tasks: MainOption[] = order.listed.flatMap(({ phase, tasks }) => {
    const entries = phaseEntries(list, phase)
    return tasks.map((t) => {
      const entry = entries[t]!
      return {
        title: entry.title,
        value: { kind: "task", text: entry.text },
        category: entry.category,
        description: entry.description,
      } satisfies MainOption
    })
  })
  const folded: MainOption[] = order.folded.map((p) => {
    const phase = list[p]!
    const room = DIALOG_ROW_WIDTH - 1 - displayWidth(UNFOLD_HINT) - 2
    return {
      title: `▸ ${phaseHeading(neutralize(phase.name), countTasks(phase.tasks), room)}`,
      value: { kind: "phase", name: phase.name },
      category: FOLDED_CATEGORY,
      description: UNFOLD_HINT,
    }
  })
  return [...menu, ...tasks, ...folded]
}

/** What the main dialog's filter field says: what typing finds. */
export function mainPlaceholder(list: TodoList): string {
  if (taskCount(list) === 0) return "The list is empty"
  return dialogOrder(list).folded.length > 0
    ? "Type to find a task or a finished phase"
    : "Type to find a task"
}

/** The row to put the cursor on after unfolding `name`: its first task. */
export function unfoldedFocus(list: TodoList, name: string): MainChoice | undefined {
  const text = list.find((phase) => phase.name === name)?.tasks[0]?.text
  return text === undefined ? undefined : { kind: "task", text }
}

/** The main dialog's title: "Todo  3/12 done, 1 blocked". */
export function mainTitle(list: TodoList): string {
  return fitText(`Todo  ${countsText(list)}`, DIALOG_ROW_WIDTH)
}

/** A phase heading fitted to `width` (a row); the count stays whole and the name is cut (headings would wrap). */
export function phaseHeading(name: string, progress: Progress, width = DIALOG_ROW_WIDTH): string {
  const count = ` ${phaseTallyText(progress)}`
  return `${fitText(name, Math.max(4, width - displayWidth(count)))}${count}`
}

/** Whether two lists are the same, task for task. */
export function identicalLists(a: TodoList, b: TodoList): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b)
}

export interface TaskEntry {
  /** "▶ Write the parser", cut with "…" so that it and the description fit one dialog row. */
  readonly title: string
  readonly text: string
  readonly status: TaskStatus
  /** The phase row this entry is listed under, e.g. "Build 1/3"; unique because phase names are. */
  readonly category: string
  /** "in progress", or "blocked: waiting on review" (the reason cut short): kept whole, so it shows. */
  readonly description: string
}

/** Columns a blocker reason may take in a task row's description. */
const BLOCKER_COLUMNS = 20
/** A task row's title never gets fewer columns than this, whatever the description. */
const MIN_TITLE_COLUMNS = 16

/** Every task of the list in order, grouped by phase through `category`. */
export function taskEntries(list: TodoList): TaskEntry[] {
  return list.flatMap((_, p) => phaseEntries(list, p))
}

/** The entries of one phase's tasks, in list order. */
function phaseEntries(list: TodoList, p: number): TaskEntry[] {
  const phase = list[p]!
  const category = phaseHeading(neutralize(phase.name), countTasks(phase.tasks))
  return phase.tasks.map((task) => {
    const description =
      task.blocker !== undefined
        ? `${STATUS_WORDS[task.status]}: ${fitText(neutralize(task.blocker), BLOCKER_COLUMNS)}`
        : STATUS_WORDS[task.status]
    const room = Math.max(MIN_TITLE_COLUMNS, DIALOG_ROW_WIDTH - 1 - displayWidth(description))
    return {
      title: fitText(`${STATUS_GLYPHS[task.status]} ${neutralize(task.text)}`, room),
      text: task.text,
      status: task.status,
      category,
      description,
    }
  })
}

/** "3/12 done, 1 blocked", or "empty". */
export function countsText(list: TodoList): string {
  const c = counts(list)
  return c.total === 0 ? "empty" : progressText(c)
}

export type TaskAction = "start" | "done" | "drop" | "block" | "unblock" | "rename" | "rm"

export interface ActionEntry {
  readonly action: TaskAction
  readonly title: string
}

/** The actions that make sense for a task in this status, most likely first. Each is a valid op for it. */
export function taskActions(status: TaskStatus): ActionEntry[] {
  switch (status) {
    case "pending":
      return [
        { action: "start", title: "Start" },
        { action: "done", title: "Done" },
        { action: "block", title: "Block…" },
        { action: "drop", title: "Drop" },
        { action: "rename", title: "Rename…" },
        { action: "rm", title: "Remove…" },
      ]
    case "in_progress":
      return [
        { action: "done", title: "Done" },
        { action: "block", title: "Block…" },
        { action: "drop", title: "Drop" },
        { action: "rename", title: "Rename…" },
        { action: "rm", title: "Remove…" },
      ]
    case "blocked":
      return [
        { action: "unblock", title: "Unblock" },
        { action: "start", title: "Start" },
        { action: "done", title: "Done" },
        { action: "block", title: "Change the reason…" },
        { action: "drop", title: "Drop" },
        { action: "rename", title: "Rename…" },
        { action: "rm", title: "Remove…" },
      ]
    case "completed":
      return [
        { action: "start", title: "Reopen and start" },
        { action: "rename", title: "Rename…" },
        { action: "rm", title: "Remove…" },
      ]
    case "abandoned":
      return [
        { action: "start", title: "Reopen and start" },
        { action: "done", title: "Done" },
        { action: "rename", title: "Rename…" },
        { action: "rm", title: "Remove…" },
      ]
  }
}

/** The op a task action runs. `input` is a block's reason (blank: none) or a rename's new text. */
export function actionOp(action: TaskAction, text: string, input?: string): Op {
  const target = { kind: "task", text } as const
  const reason = input
  switch (action) {
    case "start":
      return { op: "start", target }
    case "rename":
      return { op: "rename", target, to: input?.trim() || text }
    case "block": {
      const why = reason?.trim()
      return why ? { op: "block", target, reason: why } : { op: "block", target }
    }
    default:
      return { op: action, target }
  }
}

// ---- what the dialog says ----------------------------------------------------------------------

export interface ToastText {
  readonly variant: Variant
  readonly message: string
}

export interface Confirmation {
  readonly title: string
  readonly message: string
}

/** Diff lines a toast lists before "… and N more": toasts have no line limit of their own. */
const TOAST_LINES = 3

/**
 * The toast after a change. The diff lines say what changed, so a single-task action needs no
 * headline of its own (it would say the same thing twice); a whole-list change (an editor save, an
 * import) leads with `headline`. A change that changed nothing says so.
 */
export function changeToast(input: {
  readonly lines: readonly string[]
  readonly list: TodoList
  readonly headline?: string
}): ToastText {
  const { lines, list, headline } = input
  const now = `Now ${countsText(list)}.`
  if (lines.length === 0)
    return { variant: "info", message: [headline, "Nothing changed.", now].filter(Boolean).join("\n") }
  const shown = lines.slice(0, TOAST_LINES)
  const more = lines.length > TOAST_LINES ? [`… and ${lines.length - TOAST_LINES} more`] : []
  return {
    variant: "success",
    message: [...(headline ? [headline] : []), ...shown, ...more, now].join("\n"),
  }
}

/** The confirmation before removing a task. */
export function removeConfirmation(text: string): Confirmation {
  return { title: "Remove this task?", message: `"${preview(text)}" will be removed from the list.` }
}

/** The title of the prompt asking why a task is blocked. */
export function blockPrompt(text: string): string {
  return `Why is "${preview(text, 34)}" blocked?`
}

export function renamePrompt(text: string): string {
  return `Rename "${preview(text, 40)}" to:`
}

/** The headline of a whole-list change, by what made it. */
export const REPLACE_HEADLINES = {
  edit: "Saved your edit.",
  editOverOther: "Replaced the list with your edit.",
  import: (path: string) => `Imported ${preview(path)}.`,
} as const

/**
 * How long a kept answer lasts: "install" where the TUI keeps it in its own store (1.18's key-value
 * store, OpenCode 2's plugin storage), "run" where the host offers none and it is kept in memory.
 */
export type KeptFor = "install" | "run"

/**
 * What Copy says the first time: OSC 52 is never confirmed, so a sent copy offers the Markdown to view
 * as well. The answer is kept (COPY_ANSWER_KEY), so this is asked once per install at most.
 */
export function copyConfirmation(list: TodoList, keptFor: KeptFor = "install"): Confirmation {
  const n = taskCount(list)
  const once =
    keptFor === "install"
      ? "Asked once: your answer is kept for the next copies."
      : "Asked once while this TUI runs: this OpenCode keeps no plugin settings."
  return {
    title: "Sent to the terminal clipboard (OSC 52)",
    message: `${n} ${n === 1 ? "task" : "tasks"} as Markdown. Terminals do not confirm OSC 52 and some ignore it. Show the Markdown to select and copy it by hand? ${once}`,
  }
}

/** The key the answer to copyConfirmation is kept under (the host binding adds the plugin's prefix where its store is shared). */
export const COPY_ANSWER_KEY = "copy.showMarkdown"

/**
 * What Copy does after it sent the Markdown: ask (no answer kept), show the Markdown (the answer
 * was yes) or say it was sent (the answer was no). Anything else kept counts as no answer.
 */
export function copyFollowUp(kept: unknown): "ask" | "show" | "sent" {
  return kept === true ? "show" : kept === false ? "sent" : "ask"
}

/** The toast after a copy when the user said before that they need not see the Markdown. */
export function copySentText(list: TodoList): string {
  const n = taskCount(list)
  return `Sent ${n} ${n === 1 ? "task" : "tasks"} as Markdown to the terminal clipboard (OSC 52).`
}

/** The title of the Markdown view (Copy without OSC 52, or asked for after a copy). */
export const MARKDOWN_VIEW_TITLE = "Todo as Markdown (select and copy)"

/** The confirmation before an export overwrites a file that is not one of ours. */
export function overwriteConfirmation(path: string | undefined): Confirmation {
  return {
    title: "Overwrite TODO.md?",
    message: `${preview(path ?? "TODO.md")} exists and is not a todo export. Overwrite it?`,
  }
}

export const CANCELLED = {
  export: "Export cancelled; nothing was written.",
  import: "Import cancelled; the list was not changed.",
  edit: "Your edit was discarded; the list was not changed.",
} as const

export type ImportDecision =
  | { readonly kind: "apply" }
  | { readonly kind: "same" | "refused"; readonly toast: ToastText }
  | { readonly kind: "confirm"; readonly confirm: Confirmation }

/**
 * What the dialog's Import does with the file at `path`, as core/list/import.ts read it (`incoming`):
 * - a file that cannot be imported changes nothing, and the toast says why;
 * - importing into a list with no tasks applies at once: there is nothing to lose;
 * - the same list changes nothing;
 * - a file with no tasks that is not our export asks before it clears the list;
 * - anything else asks before it replaces the list.
 */
export function importDecision(current: TodoList, incoming: ImportOutcome, path: string): ImportDecision {
  if (!incoming.ok && !incoming.needsConfirm)
    return {
      kind: "refused",
      toast: { variant: "error", message: `${preview(path)}: ${incoming.error} The list was not changed.` },
    }
  if (current.length === 0 || taskCount(current) === 0) return { kind: "apply" }
  if (!incoming.ok)
    return {
      kind: "confirm",
      confirm: {
        title: "Clear the list?",
        message: `${preview(path)} has no tasks and is not a todo export. Clear the current list (${countsText(current)})?`,
      },
    }
  if (identicalLists(current, incoming.value.list))
    return {
      kind: "same",
      toast: { variant: "info", message: `${preview(path)} holds the list as it is; nothing changed.` },
    }
  return {
    kind: "confirm",
    confirm: {
      title: "Replace the list?",
      message: `Replace the current list (${countsText(current)}) with ${preview(path)} (${countsText(incoming.value.list)})?`,
    },
  }
}

// ---- the editor --------------------------------------------------------------------------------

/** The 1-based line a Markdown parse error names ("Line 7: ..."), if any. */
export function errorLine(error: string): number | undefined {
  const match = /^Line (\d+):/.exec(error)
  return match ? Number(match[1]) : undefined
}

/** The editor to run, as the host's own /editor does: $VISUAL, else $EDITOR, else vi; split on spaces. */
export function editorCommand(env: Readonly<Record<string, string | undefined>>): string[] {
  const raw = env.VISUAL?.trim() || env.EDITOR?.trim() || "vi"
  return raw.split(/\s+/)
}

export type SaveDecision =
  | { readonly kind: "reopen"; readonly confirm: Confirmation; readonly toast: ToastText }
  | { readonly kind: "unchanged"; readonly toast: ToastText }
  | { readonly kind: "confirm"; readonly confirm: Confirmation }
  | { readonly kind: "save"; readonly headline: string }

/**
 * What an editor save does. `opened` is the list the editor was opened with, `current` the list now.
 * - A parse error changes nothing and offers to reopen the editor on the same text.
 * - A save equal to what was opened changes nothing, even when the list changed meanwhile: the user
 *   edited nothing, so the other change (often the agent's) stays.
 * - A save equal to the current list changes nothing either.
 * - When the list changed meanwhile, replacing it would undo that change: ask first.
 * - Otherwise the save applies.
 */
export function saveDecision(input: {
  readonly opened: TodoList
  readonly current: TodoList
  readonly edited:
    | { readonly ok: true; readonly value: TodoList }
    | { readonly ok: false; readonly error: string }
}): SaveDecision {
  const { opened, current, edited } = input
  const changedMeanwhile = !identicalLists(current, opened)
  if (!edited.ok) {
    const line = errorLine(edited.error)
    return {
      kind: "reopen",
      confirm: {
        title: line === undefined ? "Your edit has an error" : `Line ${line} of your edit has an error`,
        message: `${edited.error}\n\nThe list was not changed. Reopen the editor to fix it?`,
      },
      toast: { variant: "error", message: `The list was not changed. ${edited.error}` },
    }
  }
  if (identicalLists(edited.value, opened))
    return {
      kind: "unchanged",
      toast: {
        variant: "info",
        message: changedMeanwhile
          ? "You made no changes; the list was updated meanwhile and keeps that update."
          : "No changes.",
      },
    }
  if (identicalLists(edited.value, current))
    return { kind: "unchanged", toast: { variant: "info", message: "No changes." } }
  if (changedMeanwhile)
    return {
      kind: "confirm",
      confirm: {
        title: "The list changed meanwhile",
        message: `The list changed while you were editing (the agent may have updated it; now ${countsText(current)}). Replace it with your version? That undoes the other change.`,
      },
    }
  return { kind: "save", headline: REPLACE_HEADLINES.edit }
}

/**
 * What the person who ran `/todo <verb> …` is told when the host shows no reply of its own (OpenCode 2 runs the
 * command without a model turn): the error, the change as a change toast words it, or what the command produced.
 */
export function commandOutcomeText(report: CommandReport, list: TodoList): ToastText {
  if (report.error !== undefined) return { variant: "error", message: report.error }
  const lines = report.lines ?? []
  if (lines.length > 0) return changeToast({ lines, list: report.list ?? list })
  const what =
    report.action === undefined
      ? `Showing ${report.shown ?? "the todo list"}.`
      : `${report.action[0]?.toUpperCase() ?? ""}${report.action.slice(1)}.`
  return { variant: "info", message: report.output === undefined ? what : `${what}\n${report.output}` }
}
