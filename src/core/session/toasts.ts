// The toasts that show the person at the keyboard what the session does on its own. A completion reminder or
// a nudge sent to the agent, a task the agent blocked (the user is needed), the whole list done. Pure: the
// server passes in a session step's actions, or the list before and after a todo call, and shows what comes
// back. Texts fit the host's toast box (54 columns) in a few lines.

import type { Config } from "../config.ts"
import type { DroppedEdit } from "../history/history.ts"
import { counts, eachTask } from "../list/queries.ts"
import type { Op, TodoList } from "../list/types.ts"
import { droppedText, openText, preview, tallyText } from "../list/words.ts"

/** How a toast looks, as the host names its toast variants (the server's toasts and the TUI's dialog). */
export type Variant = "info" | "success" | "warning" | "error"

export interface Toast {
  readonly variant: Variant
  readonly title: string
  readonly message: string
}

/** Blocked tasks one toast names before "… and N more". */
const BLOCKED_SHOWN = 2
/** Characters of a task or a reason in a toast: one line of the host's 54-column box. */
const TEXT_CHARS = 48

/** A session action as far as toasts care: what kind of message went to the model. */
export interface SpokenAction {
  readonly type: string
  readonly kind?: string
  /** A merged text (kind "notices") that carries a nudge. */
  readonly nudged?: boolean
}

/** What a completion reminder counts, as it counts it: open tasks, and the blocked ones apart. */
function remindedText(list: TodoList): string {
  const c = counts(list)
  return c.blocked > 0 ? `${openText(c)}, ${c.blocked} blocked` : openText(c)
}

/**
 * Toasts for what a session step sent to the model: a completion reminder (a turn the user did not start)
 * and a nudge, alone or merged with other notices in one text. One toast at most: the host shows one at a time.
 */
export function spokenToasts(
  actions: readonly SpokenAction[],
  list: TodoList,
  config: Pick<Config, "toasts">,
): Toast[] {
  if (!config.toasts || actions.length === 0) return []
  const out: Toast[] = []
  for (const action of actions) {
    if (action.type === "remind" && action.kind === "reminder")
      out.push({
        variant: "info",
        title: "Todo",
        message: `Reminded the agent: ${remindedText(list)}.`,
      })
    else if (
      (action.type === "inject" || action.type === "attach") &&
      (action.kind === "nudge" || action.nudged === true)
    )
      out.push({
        variant: "info",
        title: "Todo",
        message: "Nudged the agent to update its todo list.",
      })
  }
  return out.slice(0, 1)
}

function allDone(list: TodoList): boolean {
  const c = counts(list)
  return c.total > 0 && c.closed === c.total && c.completed > 0
}

/**
 * Toasts for what a todo call of the agent changed: tasks it blocked, with their reasons (that is when the
 * user is needed), and the whole list done, once as it becomes done (a call on a list already done says
 * nothing).
 */
export function listToasts(before: TodoList, after: TodoList, config: Pick<Config, "toasts">): Toast[] {
  if (!config.toasts || before === after) return []
  const wasBlocked = new Set<string>()
  for (const { task } of eachTask(before)) if (task.status === "blocked") wasBlocked.add(task.text)
  const blocked: string[] = []
  for (const { task } of eachTask(after))
    if (task.status === "blocked" && !wasBlocked.has(task.text))
      blocked.push(
        task.blocker
          ? `"${preview(task.text, TEXT_CHARS)}": ${preview(task.blocker, TEXT_CHARS)}`
          : `"${preview(task.text, TEXT_CHARS)}"`,
      )
  const out: Toast[] = []
  if (blocked.length > 0) {
    const shown = blocked.slice(0, BLOCKED_SHOWN)
    const more = blocked.length > BLOCKED_SHOWN ? [`… and ${blocked.length - BLOCKED_SHOWN} more`] : []
    out.push({
      variant: "warning",
      title: blocked.length === 1 ? "The agent blocked a task" : `The agent blocked ${blocked.length} tasks`,
      message: [...shown, ...more].join("\n"),
    })
  }
  if (allDone(after) && !allDone(before)) {
    const c = counts(after)
    out.push({
      variant: "success",
      title: "Todo",
      message: `All done: ${tallyText(c)} tasks${droppedText(c)}.`,
    })
  }
  return out
}

/** A typed op as the user gave it: the verb and what it named. */
function opText(op: Op): string {
  if (!("target" in op)) return op.op === "append" ? `append to "${op.phase}"` : op.op
  const target = op.target
  const what =
    target.kind === "task" ? `"${target.text}"` : target.kind === "phase" ? `"${target.name}"` : "all"
  return `${op.op} ${what}`
}

function droppedEditText(edit: DroppedEdit): string {
  switch (edit.kind) {
    case "status":
      return `"${preview(edit.task, TEXT_CHARS)}" (${edit.status.replace("_", " ")})`
    case "move":
      return `"${preview(edit.task, TEXT_CHARS)}" moved to "${preview(edit.phase, TEXT_CHARS)}"`
    case "ops":
      return preview(edit.ops.map(opText).join(", "), TEXT_CHARS)
  }
}

/**
 * Said once, whatever the toasts setting (the user's own change is lost, as with a storage warning): edits
 * the user made while a turn was undone that no longer apply to the list they came back to.
 */
export function droppedToast(dropped: readonly DroppedEdit[]): Toast | undefined {
  if (dropped.length === 0) return undefined
  const shown = dropped.slice(0, BLOCKED_SHOWN).map(droppedEditText)
  const more = dropped.length > BLOCKED_SHOWN ? [`… and ${dropped.length - BLOCKED_SHOWN} more`] : []
  return {
    variant: "warning",
    title:
      dropped.length === 1
        ? "Todo: an edit no longer applies"
        : `Todo: ${dropped.length} edits no longer apply`,
    message: ["Made while undone, not kept:", ...shown, ...more].join("\n"),
  }
}

/** Said once when the TUI plugin runs without the server plugin: the agent side is missing. */
export const SERVER_MISSING: Toast = {
  variant: "warning",
  title: "Todo: server plugin not loaded",
  message:
    "The sidebar and /todo work here, but the agent has no todo tool and is not told of your changes. Add opencode-todo to the plugin list of opencode.json.",
}
