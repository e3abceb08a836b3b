// One call of the agent's `todo` tool, decided: whether it may run, what it leaves stored, and what the shell
// performs and answers after it. server/todo-tool.ts runs `runCall` under the store's lock and performs the rest.

import type { Config } from "../config.ts"
import type { ListHistory } from "../history/history.ts"
import { type CallAnchor, recordCall } from "../history/placement.ts"
import { type ExecuteResult, execute } from "../list/execute.ts"
import type { Limits, TodoList } from "../list/types.ts"
import { formatOutcome } from "../model/format.ts"
import { type HostEvent, type SessionFacts, todoRefusal } from "./session.ts"
import { listToasts, type Toast } from "./toasts.ts"

/*
 * The call, step by step (values in, values out; the store's locked update is the only break):
 *   refusedCall   a session that may not call todo (a subagent) is answered at once, before any approval is
 *                 asked and before its list is read; nothing else happens.
 *   runCall       under the lock, on the list as stored: execute the ops; a call that fails, or changes
 *                 nothing, asks for no write (no `next`). A change is recorded where the call sits
 *                 (placement.ts recordCall), which may warn (a history cut short).
 *   answerCall    given what the store kept (its list after the update; busy, or no run when the change
 *                 threw): the actions, in the order the shell performs them, then the answer.
 *                   warn     what recording warned of, first;
 *                   toast    the list toasts (blocked tasks, all done) against the list the store kept;
 *                   track    `todo.finished` for the tracker, always last (ok false with no ops when unstored);
 *                 and the answer: formatOutcome's text, its first line (80 characters) as the title, or
 *                 "todo: error"; busy or failed calls answer the store's error and carry `unstored`.
 * Invariants (test/unit/todo-call.property.test.ts): a failing call asks for no `next` and its answer's list is
 * the kept one; a run that succeeds answers exactly formatOutcome's text; `track` is the last action.
 */

/** The tracker's event for a finished call. */
export type TodoFinished = Extract<HostEvent, { type: "todo.finished" }>

/** What one call of the tool answers, whichever host asked: the text for the model and the list after it. */
export interface TodoCallResult {
  readonly ok: boolean
  /** The call changed the stored list (the stale rule reads it: core/model/stale.ts). */
  readonly changed: boolean
  readonly title: string
  readonly output: string
  readonly list: TodoList
  /** The store was busy or the change failed under its lock: the core's answer is not known. */
  readonly unstored?: true
  /** The session may not call the tool (a subagent): nothing ran; `output` says why. */
  readonly refused?: true
}

/** What the shell performs after the locked update, in this order. */
export type TodoCallAction =
  | { readonly type: "warn"; readonly message: string }
  | { readonly type: "toast"; readonly toast: Toast }
  | { readonly type: "track"; readonly event: TodoFinished }

/** What the run under the lock computed, on the stored list. */
export interface CallRun {
  readonly before: TodoList
  readonly result: ExecuteResult
  /** The call changed the list (the stale rule reads it as an update). */
  readonly changed: boolean
  /** What recording the call in the history warned of (a history cut short). */
  readonly warning?: string | undefined
}

/** The stored part a call reads and may replace. */
export interface StoredList {
  readonly list: TodoList
  readonly history: ListHistory
}

/** The error texts of the store, for a call whose change it did not keep. */
export interface StoreErrors {
  readonly busy: string
  readonly failed: string
}

/** The answer to a call the session may not make (a subagent's); undefined when it may. */
export function refusedCall(facts: SessionFacts, list: TodoList): TodoCallResult | undefined {
  const refusal = todoRefusal(facts)
  if (refusal === undefined) return undefined
  return { ok: false, changed: false, title: "todo: refused", output: refusal, list, refused: true }
}

/** The call's one run of the core, under the store's lock: `next` is what to store, absent for no write. */
export function runCall(
  stored: StoredList,
  args: unknown,
  call: CallAnchor | undefined,
  limits: Limits,
): { readonly next?: StoredList; readonly run: CallRun } {
  const before = stored.list
  const result = execute(before, args, limits)
  if (!result.ok || result.list === before) return { run: { before, result, changed: false } }
  const recorded = recordCall(stored.history, call ?? { message: "", callID: "" }, result.list, limits)
  return {
    next: { list: recorded.list, history: recorded.history },
    run: { before, result, changed: true, warning: recorded.warning },
  }
}

/**
 * What follows the locked update: `run` is its value (undefined when the change threw or the store was busy),
 * `kept` the store's answer (its list after the update, and whether it was busy).
 */
export function answerCall(
  run: CallRun | undefined,
  kept: { readonly busy: boolean; readonly list: TodoList },
  config: Pick<Config, "toasts">,
  errors: StoreErrors,
): { readonly actions: readonly TodoCallAction[]; readonly output: TodoCallResult } {
  const actions: TodoCallAction[] = []
  if (run?.warning) actions.push({ type: "warn", message: run.warning })
  if (kept.busy || run === undefined) {
    actions.push({ type: "track", event: { type: "todo.finished", ok: false, ops: [] } })
    // No value and not busy: the change threw, and the store said why in its warning.
    const title = kept.busy ? "todo: busy" : "todo: error"
    const output = `Error: ${kept.busy ? errors.busy : errors.failed}`
    return { actions, output: { ok: false, changed: false, title, output, list: kept.list, unstored: true } }
  }
  const { before, result, changed } = run
  for (const toast of listToasts(before, kept.list, config)) actions.push({ type: "toast", toast })
  // The ops as the core parsed them: a call without "op" has its op inferred from its shape.
  const ops = result.ok ? result.ops.map((op) => op.op) : []
  actions.push({ type: "track", event: { type: "todo.finished", ok: result.ok, ops } })
  const output = formatOutcome(before, result)
  const title = result.ok ? output.split("\n")[0]!.slice(0, 80) : "todo: error"
  return { actions, output: { ok: result.ok, changed, title, output, list: kept.list } }
}
