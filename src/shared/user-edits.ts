// What the user can do to a session's stored list, shared by the server's /todo command and the TUI: run verbs,
// replace the list (editor, import). Each change is one locked read-modify-write, so it cannot lose a concurrent
// tool call's update, and is recorded in the list's history where it happened in the conversation (its anchor).
// Reading and writing the TODO.md file itself is todo-file.ts's.

import { currentList, type ListHistory, revertPoint } from "../core/history/history.ts"
import { recordEdit } from "../core/history/placement.ts"
import { revert } from "../core/history/revert.ts"
import { type EditAnchor, samePoint } from "../core/history/rewind.ts"
import { diffLists, type EditNote, type ListDiff, unkeptReasons } from "../core/list/diff.ts"
import { executeOps } from "../core/list/execute.ts"
import { type ImportOptions, importMarkdown } from "../core/list/import.ts"
import { fail, ok, type Result } from "../core/list/result.ts"
import type { Limits, Op, TodoList } from "../core/list/types.ts"
import { historyOf } from "../store/record.ts"
import { type Computed, LIST_BUSY, type Store } from "../store/store.ts"

export type EditOutcome =
  | { readonly ok: true; readonly before: TodoList; readonly list: TodoList; readonly diff: ListDiff }
  | { readonly ok: false; readonly error: string; readonly list: TodoList }

/**
 * How an edit reaches the model. "record": queue a note in the store that the server
 * delivers on the model's next request (TUI edits, which start no turn). "none": the
 * caller tells the model itself (the server command's reply does).
 */
export type Notify = "record" | "none"

/**
 * Where in the conversation a user edit is made (core/history/rewind.ts): while the session is reverted, at the
 * revert point (`{kind: "reverted", point}`, the host's `session.revert` as `{message, part?}`); otherwise
 * after the newest message the caller knows of (`{kind: "after", message}`). Undefined: after the newest
 * recorded change.
 */
export type { EditAnchor }

/**
 * Where a session with no record starts, worked out as the server does when it first meets it (a fork: its
 * source's list at the fork point, back along the chain of sources; shared/origin.ts over core/history/fork.ts);
 * undefined to start empty. A TUI edit to a session no server has met yet is made on that list, so the record it
 * writes starts where the server would have started it.
 */
export type StartOf = (
  session: string,
) => Promise<{ readonly list: TodoList; readonly history: ListHistory } | undefined>

/** Where a user edit is made and how it is told: the same for every edit one caller makes in one place. */
export interface EditTarget {
  readonly store: Store
  readonly session: string
  readonly limits: Limits
  readonly notify: Notify
  /** Where in the conversation (EditAnchor); undefined: after the newest recorded change. */
  readonly at?: EditAnchor | undefined
  /** The mark of the /todo command that makes the edit (placement.ts `settleEdit`). */
  readonly command?: string | undefined
  /** Where a session with no record starts (the TUI's; the server has started every session it edits). */
  readonly start?: StartOf | undefined
}

/** The list a change leaves, and what the reply says beyond the diff (how an imported file was read). */
interface Replacement {
  readonly list: TodoList
  readonly notes?: readonly string[]
  /** Reasons the ops gave that the list does not keep (diff.ts unkeptReasons), said in the note. */
  readonly said?: ReadonlyMap<string, string>
}

/**
 * One user edit: `compute` runs on the list the user sees (while reverted, the list before the revert
 * point, with the edits made since), and the result is recorded in the history at `at`. `ops` are kept
 * with an edit made while reverted, so that redo makes it again as those ops.
 */
async function change(
  target: EditTarget,
  compute: (list: TodoList) => Result<Replacement>,
  ops?: readonly Op[],
): Promise<EditOutcome> {
  const { store, session, notify, at, limits, command, start } = target
  // Asked outside the lock (it asks the host); used only if the record is still unwritten under it.
  const started =
    start && (await store.stamp(session)) === undefined ? await startOf(start, session) : undefined
  const { snapshot, value: outcome } = await store.update(session, (current): Computed<EditOutcome> => {
    let history = current.revision === 0 && started ? started.history : historyOf(current)
    // The edit follows an undo the history has not heard of yet (the server follows the host's events).
    const point = revertPoint(history) ?? null
    if (at?.kind === "reverted" && !samePoint(point, at.point))
      history = revert(history, at.point, limits).history
    const seen = currentList(history)
    const next = compute(seen)
    if (!next.ok) return { value: { ok: false, error: next.error, list: seen } }
    const { list, notes = [], said } = next.value
    const diff = diffLists(seen, list, said)
    // The notes lead the lines, so the toast and the reply say first why a line reads as it does.
    const told = notes.length === 0 ? diff : { ...diff, lines: [...notes, ...diff.lines] }
    const outcome: EditOutcome = { ok: true, before: seen, list, diff: told }
    if (diff.lines.length === 0 && diff.removed.length === 0 && diff.removedPhases.length === 0)
      return { value: outcome }
    const note: EditNote = {
      lines: told.lines,
      removed: diff.removed,
      ...(diff.removedPhases.length > 0 ? { removedPhases: diff.removedPhases } : {}),
    }
    const edits = notify === "record" ? [...current.edits, note] : current.edits
    const anchor = {
      ...(at?.kind === "after" ? { after: at.message } : {}),
      ...(ops ? { ops } : {}),
      ...(command === undefined ? {} : { command }),
    }
    const recorded = recordEdit(history, anchor, list)
    return { next: { ...current, list: recorded.list, history: recorded.history, edits }, value: outcome }
  })
  if (snapshot.busy) return { ok: false, error: LIST_BUSY, list: snapshot.list }
  return outcome ?? { ok: false, error: "The list could not be read.", list: snapshot.list }
}

/** The session's start, or undefined when it cannot be worked out (the edit is then made on the empty list). */
async function startOf(start: StartOf, session: string) {
  try {
    return await start(session)
  } catch {
    return undefined
  }
}

/** Runs typed ops (from a /todo verb or a TUI action) against the list the user sees, made at `target`. */
export function runUserOps(target: EditTarget, ops: readonly Op[]): Promise<EditOutcome> {
  return change(
    target,
    (list) => {
      const result = executeOps(list, ops, target.limits)
      return result.ok ? ok({ list: result.list, said: unkeptReasons(result.changes) }) : fail(result.error)
    },
    ops,
  )
}

/**
 * Replaces the list with one read from Markdown (editor or import), in the normal form; the diff's
 * lines start with the notes on how the file was read. A parse error, or a file with no tasks that is
 * not our export without `force`, changes nothing (see core/list/import.ts).
 */
export function replaceFromMarkdown(
  target: EditTarget,
  markdown: string,
  options: ImportOptions = {},
): Promise<EditOutcome> {
  return change(target, () => importMarkdown(markdown, target.limits, options))
}
