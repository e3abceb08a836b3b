// The user's side of the demo: one change made the way the /todo dialog makes it. The dialog's own
// step (applyOps in src/tui/edits.ts) runs on the store the TUI opens, with the op the dialog's action
// row runs, and the toast it shows is kept. Only the dialog's widgets are absent.

import { DEFAULT_CONFIG, limitsOf, STORED_LIMITS } from "../../src/core/config.ts"
import type { EditAnchor } from "../../src/core/history/rewind.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import { findTask } from "../../src/core/list/queries.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { actionOp, type TaskAction, type ToastText, taskActions } from "../../src/core/view/dialog.ts"
import { createStore } from "../../src/store/store.ts"
import { applyOps } from "../../src/tui/edits.ts"
import type { Shell } from "../../src/tui/list-source.ts"

export interface DialogOutcome {
  /** The title of the action row the user picked ("Drop"). */
  readonly action: string
  readonly toasts: readonly ToastText[]
  readonly list: TodoList
}

/** Picks `action` on `task` in the /todo dialog of `session`, the store being the one in `dir`. */
export async function dialogAction(input: {
  readonly dir: string
  readonly session: string
  readonly task: string
  readonly action: TaskAction
  /** Where the TUI would place the change (the revert point during an undo); absent: the newest change. */
  readonly anchor?: EditAnchor
}): Promise<DialogOutcome> {
  const toasts: ToastText[] = []
  const store = createStore({
    dir: input.dir,
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (message) => toasts.push({ variant: "warning", message }),
  })
  const before = (await store.read(input.session)).list
  const status = findTask(before, input.task)?.task.status ?? "pending"
  const row = taskActions(status).find((a) => a.action === input.action)
  let list = before
  const shell = {
    api: { ui: { dialog: { clear() {} } } },
    store,
    source: {
      refresh(_session: string, known?: TodoList) {
        if (known) list = known
      },
      editProblem: () => undefined,
      // Without an anchor (the TUI's newest message) the change goes at the newest recorded change.
      anchorOf: () => input.anchor,
    },
    limits: limitsOf(DEFAULT_CONFIG),
    toast: (variant: ToastText["variant"], message: string) => toasts.push({ variant, message }),
    directory: () => input.dir,
  } as unknown as Shell
  await applyOps(shell, input.session, [actionOp(input.action, input.task)])
  return { action: row?.title ?? input.action, toasts, list }
}
