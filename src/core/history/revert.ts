// What the host's undo, redo (unrevert) and commit do to the list history (history.ts). A revert sets the
// point and the list in effect before it, a redo brings the newest list back, a commit cuts the history at
// the point for good; edits made while reverted stay at the point, made again on each step's list (`remake`).
// Also the list a fork's copy carries mid-undo. Pure, never throws; when each runs: rewind.ts, effect.ts.

import type { Limits, TodoList } from "../list/types.ts"
import { DEFAULT_LIMITS } from "../list/types.ts"
import { type DroppedEdit, type PendingEdit, remake } from "./edits.ts"
import {
  append,
  currentList,
  guarded,
  historyFrom,
  type ListHistory,
  listAt,
  type Stepped,
  stepped,
  withoutRevert,
} from "./history.ts"
import { fromRows } from "./rows.ts"
import {
  compare,
  isPoint,
  type Point,
  type Pos,
  pointLabel,
  posOf,
  replay,
  spanFor,
  tailOf,
} from "./spans.ts"

/** `edits` made again on `list`, in order, and the ones that no longer apply. */
function remakeAll(
  list: TodoList,
  edits: readonly PendingEdit[],
  limits: Limits,
): { list: TodoList; dropped: DroppedEdit[] } {
  let current = list
  const dropped: DroppedEdit[] = []
  for (const edit of edits) {
    const made = remake(current, edit, limits)
    current = made.list
    dropped.push(...made.dropped)
  }
  return { list: current, dropped }
}

/**
 * The session is reverted to `point`: the list in effect becomes the list strictly before it. A second
 * revert replaces the first (as on the host, e.g. /undo twice); edits made while reverted are kept and made
 * again on the new view, and `dropped` says which of them do not apply there.
 */
export function revert(history: ListHistory, point: Point, limits: Limits = DEFAULT_LIMITS): Stepped {
  return guarded(history, () => {
    if (!isPoint(point))
      return stepped(history, [], "A revert came without a message id; the list was kept as it was.")
    const before = listAt(history, point)
    if (before.warning !== undefined) return stepped(history, [], before.warning)
    const edits = history.rev?.edits ?? []
    const made = remakeAll(before.list, edits, limits)
    return stepped({ ...history, rev: { at: { ...point }, edits }, view: made.list }, made.dropped)
  })
}

/**
 * Redo: the newest list comes back, with the edits made while reverted made again on it as operations at
 * the newest position; those that no longer apply are dropped and named in `dropped`. Not reverted: nothing.
 */
export function unrevert(history: ListHistory, limits: Limits = DEFAULT_LIMITS): Stepped {
  return guarded(history, () => {
    const rev = history.rev
    if (rev === undefined) return stepped(history)
    let h = withoutRevert(history)
    const dropped: DroppedEdit[] = []
    for (const edit of rev.edits) {
      const made = remake(h.top, edit, limits)
      dropped.push(...made.dropped)
      h = append(h, undefined, "", made.list)
    }
    return stepped(h, dropped, undefined, rev.edits.length > 0 ? history.top : undefined)
  })
}

/**
 * The messages from the revert point on are gone for good: the states after it are dropped, and work goes on
 * from the list before it, with the edits made while reverted kept (recorded at the point). `removed` is the
 * first removed message (or part) when the adapter knows it: without a pending revert it cuts there (a
 * removal seen before its revert event); before the revert point it cuts there instead. Nothing to cut:
 * nothing changes.
 */
export function commit(history: ListHistory, removed?: Point, limits: Limits = DEFAULT_LIMITS): Stepped {
  return guarded(history, () => {
    const rev = history.rev
    let at = rev?.at
    let warning: string | undefined
    if (removed !== undefined && isPoint(removed)) {
      if (at === undefined) at = removed
      else if (compare(posOf(removed), posOf(at)) < 0) {
        warning = `A message was removed before the revert point (${pointLabel(removed)} before ${pointLabel(at)}); the list went back to before the removed one.`
        at = removed
      }
    }
    if (at === undefined) return stepped(history)
    const cut = truncate(withoutRevert(history), posOf(at))
    if (cut === undefined)
      return stepped(
        historyFrom(currentList(history)),
        [],
        "The list history is damaged; it was started again from the list in effect.",
      )
    if (rev === undefined && cut.spans !== history.spans)
      warning ??= `Messages were removed without a revert first (from ${pointLabel(at)}); the list went back to before them.`
    let h = cut
    const dropped: DroppedEdit[] = []
    const edits = rev?.edits ?? []
    for (const edit of edits) {
      const made = remake(h.top, edit, limits)
      dropped.push(...made.dropped)
      h = append(h, posOf(at), "", made.list)
    }
    return stepped(h, dropped, warning, edits.length > 0 ? cut.top : undefined)
  })
}

/** The history without its entries at or after `at`; undefined when a span cannot be replayed. */
function truncate(history: ListHistory, at: Pos): ListHistory | undefined {
  const index = spanFor(history.spans, at)
  const span = history.spans[index]!
  const replayed = replay(span, at)
  if (replayed.broken) return undefined
  const top = fromRows(replayed.rows)
  if (top === undefined) return undefined
  if (index === history.spans.length - 1 && replayed.count === span.e.length) return history
  const kept = span.e.slice(0, replayed.count)
  const spans = [
    ...history.spans.slice(0, index),
    ...(index === 0 || kept.length > 0 ? [{ l: span.l, e: kept }] : []),
  ]
  const tail = tailOf(spans[spans.length - 1]!)
  return tail === undefined ? undefined : { v: 1, spans, top, tail: tail.tail }
}

/**
 * The list a copy of the conversation before `point` (all of it when absent) carries on: the list strictly
 * before it, and, when the session is reverted to a point at or before it, the edits made while reverted,
 * made again on it as a redo or commit would (they belong at the revert point). For a fork of a session in
 * the middle of an undo.
 */
export function listForCopy(
  history: ListHistory,
  point?: Point,
  limits: Limits = DEFAULT_LIMITS,
): { readonly list: TodoList; readonly warning?: string } {
  const at = listAt(history, point)
  const rev = history.rev
  if (at.warning !== undefined || rev === undefined || rev.edits.length === 0) return at
  if (point !== undefined && (!isPoint(point) || compare(posOf(point), posOf(rev.at)) < 0)) return at
  try {
    return { list: remakeAll(at.list, rev.edits, limits).list }
  } catch {
    return at
  }
}
