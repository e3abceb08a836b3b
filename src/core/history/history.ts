// The history of a session's list, anchored in the conversation, so the list can follow the host's undo
// (revert), redo (unrevert) and commit. Pure, JSON in and out, never throws: every function answers a
// consistent list, and a warning value for input it cannot make sense of. Owns the value, a change added at
// the end and the list at a point (its siblings own the rest; what is stored and why: docs/design.md).

import { isRecord } from "../list/result.ts"
import type { TodoList } from "../list/types.ts"
import { type DroppedEdit, fingerprint, type PendingEdit } from "./edits.ts"
import { applyDelta, diffRows, fromRows, isDelta, sameRows, shortHash, toRows } from "./rows.ts"
import {
  compare,
  EMPTY_TAIL,
  encodeEntry,
  HISTORY_CAPS,
  isPoint,
  MAX_SPAN_ENTRIES,
  type Meter,
  MIN_SPAN_CHARS,
  type Point,
  type Pos,
  pointOf,
  posOf,
  RECENT,
  type Replayed,
  replay,
  SPAN_WEIGHT,
  type Span,
  spanFor,
  type Tail,
  tailOf,
  walk,
  weight,
} from "./spans.ts"

// Values are re-exported without `export … from`: the store's child-process build follows imports only.
export type { DroppedEdit } from "./edits.ts"
export type { Meter, Point }
export { HISTORY_CAPS }

interface Reverted {
  readonly at: Point
  /** Edits made while reverted, in order. */
  readonly edits: readonly PendingEdit[]
}

export interface ListHistory {
  readonly v: 1
  readonly spans: readonly Span[]
  readonly rev?: Reverted
  /** Derived, never read from a record: the newest list. */
  readonly top: TodoList
  /** Derived: the list in effect while reverted (the list before the point, with the edits made since). */
  readonly view?: TodoList
  /** Derived: where the newest span ends, so recording and a revert near the end cost the same at any length. */
  readonly tail?: Tail
}

/** The answer of every step: the history after it, the list in effect, and what went wrong, if anything. */
export interface Stepped {
  readonly history: ListHistory
  readonly list: TodoList
  /** Edits made while reverted that could not be made again (redo, commit, a second revert). */
  readonly dropped: readonly DroppedEdit[]
  /** A sentence for the log: input that made no sense and how it was taken. */
  readonly warning?: string
  /**
   * Redo or commit with edits made while reverted: the list they were made again on (the newest list, or the
   * list before the point), so what the user changed can be told as one net change.
   */
  readonly remadeOn?: TodoList
}

export interface CallState {
  readonly callID: string
  readonly point: Point
  /** The list strictly before the call. */
  readonly before: TodoList
  /** The list the call left. */
  readonly after: TodoList
}

// ---------------------------------------------------------------------------------------------------------
// Building a history

/** A history whose only state is `list`: a new session, or a record written before histories. */
export function historyFrom(list: TodoList): ListHistory {
  const l = toRows(list)
  return { v: 1, spans: [{ l, e: [] }], top: list, tail: { ...EMPTY_TAIL, checkpoint: weight(l) } }
}

/** Two lists are the same list (phases, tasks, statuses and reasons, in order). */
export function sameList(a: TodoList, b: TodoList): boolean {
  return sameRows(toRows(a), toRows(b))
}

/** The list in effect: the reverted view while reverted, else the newest list. */
export function currentList(history: ListHistory): TodoList {
  return history.view ?? history.top
}

export function revertPoint(history: ListHistory): Point | undefined {
  return history.rev?.at
}

// The pieces every step is made of (placement.ts, revert.ts, stored.ts): a change added at the end, the
// answer of a step, and the guard that keeps a step from throwing.

/** Where the newest span ends (derived when a history was built without it). */
export function tailFor(history: ListHistory): Tail {
  return history.tail ?? tailOf(history.spans[history.spans.length - 1]!)?.tail ?? EMPTY_TAIL
}

/** Adds a change at `at` (the newest recorded position when absent, or when `at` is before it). */
export function append(history: ListHistory, at: Pos | undefined, call: string, list: TodoList): ListHistory {
  const before = toRows(history.top)
  const after = toRows(list)
  if (sameRows(before, after)) return history
  const spans = history.spans
  const last = spans[spans.length - 1]!
  const tail = tailFor(history)
  let pos = at ?? tail.pos ?? { m: "", k: 2, p: "" }
  if (tail.pos !== undefined && compare(pos, tail.pos) < 0) pos = tail.pos
  const delta = diffRows(before, after)
  const full =
    last.e.length >= MAX_SPAN_ENTRIES ||
    (last.e.length > 0 && tail.weight >= Math.max(MIN_SPAN_CHARS, SPAN_WEIGHT * tail.checkpoint))
  const entry = full ? encodeEntry(pos, "", "", call, delta) : encodeEntry(pos, tail.m, tail.p, call, delta)
  const next: Span = full ? { l: before, e: [entry] } : { l: last.l, e: [...last.e, entry] }
  const kept = full ? spans : spans.slice(0, -1)
  const size = weight(entry)
  const nextTail: Tail = {
    pos,
    m: pos.m,
    p: pos.k === 1 ? pos.p : full ? "" : tail.p,
    weight: next.e.length === 1 ? size + 2 : tail.weight + size + 1,
    checkpoint: full ? weight(before) : tail.checkpoint,
    recent: [...(full ? [] : tail.recent.slice(1 - RECENT)), { pos, list }],
  }
  return { ...withoutRevert(history), spans: [...kept, next], top: list, tail: nextTail }
}

/** The history without its revert: a recorded change, a redo and a commit end it. */
export function withoutRevert(history: ListHistory): ListHistory {
  const { rev: _rev, view: _view, ...rest } = history
  return rest
}

/** The answer of a step on `history`. */
export function stepped(
  history: ListHistory,
  dropped: readonly DroppedEdit[] = [],
  warning?: string,
  remadeOn?: TodoList,
): Stepped {
  const base: Stepped = { history, list: currentList(history), dropped }
  const told = remadeOn === undefined ? base : { ...base, remadeOn }
  return warning === undefined ? told : { ...told, warning }
}

/** A short fingerprint of a list, for the adapters to say "the list that edit left" without keeping it. */
export function listFingerprint(list: TodoList): string {
  return fingerprint(toRows(list))
}

/** Never throws: an unforeseen failure keeps the history as it was and says so. */
export function guarded(history: ListHistory, step: () => Stepped): Stepped {
  try {
    return step()
  } catch (error) {
    const safe = isRecord(history) && Array.isArray(history.spans) ? history : historyFrom([])
    const list = Array.isArray(safe.view) ? safe.view : Array.isArray(safe.top) ? safe.top : []
    const kind = error instanceof Error ? error.name : "error"
    return {
      history: safe,
      list,
      dropped: [],
      warning: `The list history could not be updated (${kind}); the list was kept as it was.`,
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Reading

function rowsBefore(history: ListHistory, at: Pos): Replayed {
  return replay(history.spans[spanFor(history.spans, at)]!, at)
}

/** The list strictly before `point`, or the newest list when there is no point. */
export function listAt(
  history: ListHistory,
  point?: Point,
): { readonly list: TodoList; readonly warning?: string } {
  try {
    if (point === undefined) return { list: history.top }
    if (!isPoint(point))
      return {
        list: currentList(history),
        warning: "A position without a message id was asked for; the list in effect was used.",
      }
    const at = posOf(point)
    const recent = history.tail?.recent
    if (recent !== undefined && recent.length > 0 && compare(recent[0]!.pos, at) < 0) {
      for (let i = recent.length - 1; i >= 0; i--)
        if (compare(recent[i]!.pos, at) < 0) return { list: recent[i]!.list }
    }
    const replayed = rowsBefore(history, at)
    const list = replayed.broken ? undefined : fromRows(replayed.rows)
    if (list === undefined)
      return {
        list: currentList(history),
        warning: "The list history is damaged; the list in effect was used.",
      }
    return { list }
  } catch {
    const top = isRecord(history) && Array.isArray(history.top) ? history.top : []
    return { list: top, warning: "The list history is damaged; the list in effect was used." }
  }
}

/**
 * Whether the history recorded a change anchored in one of `messageIDs` (a call, a /todo command's edit, a
 * dialog edit after it): it then saw those messages, so its list before any of them is the one they had.
 * Walks the whole history without replay: for a fork, not for every request.
 */
export function recordedIn(history: ListHistory, messageIDs: readonly string[]): boolean {
  try {
    const wanted = new Set(messageIDs)
    for (const span of history.spans) for (const { pos } of walk(span)) if (wanted.has(pos.m)) return true
    return false
  } catch {
    return false
  }
}

/**
 * The newest recorded call among `callIDs` (a fork keeps its parent's call ids, with new message ids), with
 * the list before and after it. Walks the whole history: for a fork or an import, not for every request.
 */
export function stateAtCall(history: ListHistory, callIDs: readonly string[]): CallState | undefined {
  try {
    const wanted = new Map(callIDs.map((id) => [shortHash(id), id] as const))
    // Positions and hashes first (no replay), then the one span that holds the newest of the calls.
    let last = -1
    for (let i = 0; i < history.spans.length; i++)
      for (const { entry } of walk(history.spans[i]!)) if (entry[2] !== "" && wanted.has(entry[2])) last = i
    if (last < 0) return undefined
    const span = history.spans[last]!
    const rows = [...span.l]
    let found: CallState | undefined
    for (const { pos, entry } of walk(span)) {
      const callID = entry[2] === "" ? undefined : wanted.get(entry[2])
      const before = callID === undefined ? undefined : fromRows(rows)
      if (!isDelta(entry[3]) || !applyDelta(rows, entry[3]) || rows.length > HISTORY_CAPS.rows) return found
      if (callID !== undefined && before !== undefined) {
        const after = fromRows(rows)
        if (after !== undefined) found = { callID, point: pointOf(pos), before, after }
      }
    }
    return found
  } catch {
    return undefined
  }
}
