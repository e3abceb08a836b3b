// The user's side of the demo: one change made the way the /todo dialog makes it. The dialog's own
// step (applyOps in src/tui/edits.ts) runs on the store the TUI opens, with the op the dialog's action
// row (or its "add a task" prompt) runs, and the toast it shows is kept. Only the dialog's widgets are absent.
// Given a running server, the edit also gets the 1.18 TUI's start for a session no server has met
// (forkStart over a v2 SDK client, the client that TUI holds).

import { createOpencodeClient } from "@opencode-ai/sdk/v2"
import { DEFAULT_CONFIG, limitsOf, STORED_LIMITS } from "../../src/core/config.ts"
import type { EditAnchor } from "../../src/core/history/rewind.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import { findTask } from "../../src/core/list/queries.ts"
import type { Op, TodoList } from "../../src/core/list/types.ts"
import { actionOp, type TaskAction, type ToastText, taskActions } from "../../src/core/view/dialog.ts"
import { createStore } from "../../src/store/store.ts"
import { applyOps } from "../../src/tui/edits.ts"
import type { Shell } from "../../src/tui/list-source.ts"
import { forkStart } from "../../src/tui/v1/fork-start.ts"

export interface DialogOutcome {
  /** The title of the action row the user picked ("Drop"). */
  readonly action: string
  readonly toasts: readonly ToastText[]
  readonly list: TodoList
}

/** The server a TUI is attached to: its address and the project folder it was started in. */
export interface TuiServer {
  readonly url: string
  readonly directory: string
}

/** Picks `action` on `task` in the /todo dialog of `session`, the store being the one in `dir`. */
export async function dialogAction(input: {
  readonly dir: string
  readonly session: string
  readonly task: string
  readonly action: TaskAction
  /** Where the TUI would place the change (the revert point during an undo); absent: the newest change. */
  readonly anchor?: EditAnchor
  readonly server?: TuiServer
}): Promise<DialogOutcome> {
  const { store, toasts } = openStore(input.dir)
  const before = (await store.read(input.session)).list
  const status = findTask(before, input.task)?.task.status ?? "pending"
  const row = taskActions(status).find((a) => a.action === input.action)
  const list = await runDialogOps(input, store, toasts, [actionOp(input.action, input.task)])
  return { action: row?.title ?? input.action, toasts, list }
}

/** Adds `task` to `phase` in the /todo dialog of `session` (the dialog's "add a task" prompt). */
export async function dialogAdd(input: {
  readonly dir: string
  readonly session: string
  readonly phase: string
  readonly task: string
  readonly server?: TuiServer
}): Promise<DialogOutcome> {
  const { store, toasts } = openStore(input.dir)
  const list = await runDialogOps(input, store, toasts, [
    { op: "append", phase: input.phase, items: [input.task] },
  ])
  return { action: "add", toasts, list }
}

function openStore(dir: string) {
  const toasts: ToastText[] = []
  const store = createStore({
    dir,
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (message) => toasts.push({ variant: "warning", message }),
  })
  return { store, toasts }
}

/** applyOps on a shell like the TUI's; returns the list the dialog would show after it. */
async function runDialogOps(
  input: {
    readonly dir: string
    readonly session: string
    readonly anchor?: EditAnchor
    readonly server?: TuiServer
  },
  store: ReturnType<typeof createStore>,
  toasts: ToastText[],
  ops: readonly Op[],
): Promise<TodoList> {
  let list = (await store.read(input.session)).list
  const limits = limitsOf(DEFAULT_CONFIG)
  const server = input.server
  const client = server && createOpencodeClient({ baseUrl: server.url, directory: server.directory })
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
    limits,
    toast: (variant: ToastText["variant"], message: string) => toasts.push({ variant, message }),
    directory: () => input.dir,
    startOf: client ? forkStart({ client }, store, limits) : undefined,
  } as unknown as Shell
  await applyOps(shell, input.session, ops)
  return list
}
