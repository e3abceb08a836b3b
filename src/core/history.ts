// The history of a session's list, anchored in the conversation, so the list can follow the host's undo
// (revert), redo (unrevert) and commit (the next prompt removes the reverted messages). Pure, JSON in and
// out, never throws: every function answers a consistent list, and a warning value for input it could
// not make sense of. The adapters feed it host facts; the store carries it in the session's record.
//
// What is stored, and why: each change is kept as the exact step between the list before and after it
// (a row delta, history-rows.ts), at its position, with a checkpoint (the whole list) starting each span
// of entries. Not the call's arguments: replaying arguments ties every stored state to the reducers,
// limits and normal form of the plugin version that replays them, and a later version could rebuild a
// state the user never saw. A step is exact whatever the version, and shorter (a task done and the next
// started is "17c18i"). Only an edit made while reverted must be made again on another list (redo): it
// keeps its typed ops, or its changes by task (history-edits.ts), beside the list it made.
//
// Positions: a todo call sits at its assistant message and tool part; a user edit after the newest
// surviving message (or, when the adapter gives none, at the newest recorded change); an edit made while
// reverted at the revert point. Entries are kept in position order; a change anchored before the newest
// recorded one (parallel calls finishing out of order, a stale anchor) is placed at the newest one.
// "Strictly before a point" compares message ids, then part ids, as strings: the host mints ascending ids
// (a clock prefix, then a counter), and its own /redo compares them the same way. A revert point with no
// part is before every part of its message; an edit anchored after a message is after every part of it.
//
// Cost: recording touches the newest span only (bounded by MAX_SPAN entries); a list before a point costs
// a binary search over the spans and a replay of one span, whatever the length of the session.

import { type DroppedEdit, isPendingEdit, type PendingEdit, pendingEdit, remake } from "./history-edits.ts"
import {
  applyDelta,
  type Delta,
  diffRows,
  expandId,
  fromRows,
  isDelta,
  isRow,
  type Row,
  sameRows,
  shortenId,
  shortHash,
  toRows,
} from "./history-rows.ts"
import { isRecord } from "./result.ts"
import type { Limits, Op, TodoList } from "./types.ts"
import { DEFAULT_LIMITS } from "./types.ts"

export type { DroppedEdit } from "./history-edits.ts"

/** A place in the conversation: just before message `message`, or just before part `part` of it. */
export interface Point {
  readonly message: string
  readonly part?: string
}

/**
 * Where a todo tool call happened: its assistant message, its tool part, and the call id the host keeps on
 * fork. Without the part the call is placed after the message's parts, so a revert that cuts inside that
 * message (at a part) takes it as undone.
 */
export interface CallAnchor {
  readonly message: string
  readonly part?: string
  readonly callID: string
}

/** A user edit: after the newest surviving message (absent: at the newest recorded change); its ops, if typed. */
export interface EditAnchor {
  readonly after?: string
  readonly ops?: readonly Op[]
}

/** One stored change: shortened message id, part (shortened id; 0 after the message; 1 before it), call hash, step. */
type Entry = readonly [string, string | 0 | 1, string, Delta]

/** A checkpoint (the list before its first entry, as rows) and the entries after it. */
interface Span {
  readonly l: readonly Row[]
  readonly e: readonly Entry[]
}

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

/** The newest span's end: its last position and ids, its weight, and the lists its last entries left. */
interface Tail {
  readonly pos?: Pos
  readonly m: string
  readonly p: string
  /** `JSON.stringify(span.e).length` and `JSON.stringify(span.l).length`. */
  readonly weight: number
  readonly checkpoint: number
  /** The last RECENT entries' positions and the lists they left, oldest first. */
  readonly recent: readonly { readonly pos: Pos; readonly list: TodoList }[]
}

/** The answer of every step: the history after it, the list in effect, and what went wrong, if anything. */
export interface Stepped {
  readonly history: ListHistory
  readonly list: TodoList
  /** Edits made while reverted that could not be made again (redo, commit, a second revert). */
  readonly dropped: readonly DroppedEdit[]
  /** A sentence for the log: input that made no sense and how it was taken. */
  readonly warning?: string
}

export interface CallState {
  readonly callID: string
  readonly point: Point
  /** The list strictly before the call. */
  readonly before: TodoList
  /** The list the call left. */
  readonly after: TodoList
}

/** A span takes a new checkpoint after this many entries, so a replay never walks more. */
export const MAX_SPAN = 256
/** ...or once its entries weigh this many times its checkpoint (at least MIN_SPAN_CHARS): deltas never cost much more than checkpoints. */
const SPAN_WEIGHT = 8
const MIN_SPAN_CHARS = 2048
/** A revert to within this many changes of the newest is answered without a replay. */
const RECENT = 16

// ---------------------------------------------------------------------------------------------------------
// Positions

/** k: 0 before the message's parts, 1 at part p, 2 after its parts. */
interface Pos {
  readonly m: string
  readonly k: 0 | 1 | 2
  readonly p: string
}

function compare(a: Pos, b: Pos): number {
  if (a.m !== b.m) return a.m < b.m ? -1 : 1
  if (a.k !== b.k) return a.k - b.k
  if (a.k !== 1 || a.p === b.p) return 0
  return a.p < b.p ? -1 : 1
}

function posOf(point: Point): Pos {
  return point.part === undefined
    ? { m: point.message, k: 0, p: "" }
    : { m: point.message, k: 1, p: point.part }
}

function pointOf(pos: Pos): Point {
  return pos.k === 1 ? { message: pos.m, part: pos.p } : { message: pos.m }
}

const isId = (value: unknown): value is string => typeof value === "string" && value.length > 0

export function isPoint(value: unknown): value is Point {
  return isRecord(value) && isId(value.message) && (value.part === undefined || isId(value.part))
}

/** Ids in warnings: quoted, escaped, cut short (they come from outside). */
function label(id: string): string {
  return JSON.stringify(id.length > 40 ? `${id.slice(0, 39)}…` : id)
}

function pointLabel(point: Point): string {
  return point.part === undefined
    ? `message ${label(point.message)}`
    : `part ${label(point.part)} of message ${label(point.message)}`
}

// ---------------------------------------------------------------------------------------------------------
// Spans

interface Walked {
  readonly pos: Pos
  readonly entry: Entry
}

/** The entries of a span with their positions; stops early at an id it cannot expand. */
function* walk(span: Span): Generator<Walked> {
  let m = ""
  let p = ""
  for (const entry of span.e) {
    const message = expandId(m, entry[0])
    if (message === undefined) return
    m = message
    const part = entry[1]
    if (typeof part === "string") {
      const expanded = expandId(p, part)
      if (expanded === undefined) return
      p = expanded
      yield { pos: { m, k: 1, p }, entry }
    } else yield { pos: { m, k: part === 0 ? 2 : 0, p: "" }, entry }
  }
}

function firstPos(span: Span): Pos | undefined {
  for (const { pos } of walk(span)) return pos
  return undefined
}

interface Replayed {
  readonly rows: Row[]
  /** Entries applied. */
  readonly count: number
  readonly broken: boolean
}

/** The span's rows after every entry strictly before `before` (all entries when absent). */
function replay(span: Span, before?: Pos): Replayed {
  const rows = [...span.l]
  let count = 0
  for (const { pos, entry } of walk(span)) {
    if (before !== undefined && compare(pos, before) >= 0) return { rows, count, broken: false }
    if (!applyDelta(rows, entry[3])) return { rows, count, broken: true }
    count++
  }
  return { rows, count, broken: count !== span.e.length && before === undefined }
}

/** The last span whose first entry is strictly before `at` (the first span when none is). */
function spanFor(spans: readonly Span[], at: Pos): number {
  let lo = 1
  let hi = spans.length - 1
  let found = 0
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const first = firstPos(spans[mid]!)
    if (first !== undefined && compare(first, at) < 0) {
      found = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  return found
}

/** The tail of a span, by replaying it; undefined when it does not replay. */
function tailOf(span: Span): { tail: Tail; rows: Row[] } | undefined {
  const walked = [...walk(span)]
  if (walked.length !== span.e.length) return undefined
  const rows = [...span.l]
  const recent: { pos: Pos; list: TodoList }[] = []
  let p = ""
  for (const [i, { pos, entry }] of walked.entries()) {
    if (!applyDelta(rows, entry[3])) return undefined
    if (pos.k === 1) p = pos.p
    if (i >= walked.length - RECENT) {
      const list = fromRows(rows)
      if (list === undefined) return undefined
      recent.push({ pos, list })
    }
  }
  const pos = walked[walked.length - 1]?.pos
  const tail: Tail = {
    ...(pos === undefined ? {} : { pos }),
    m: pos?.m ?? "",
    p,
    weight: weight(span.e),
    checkpoint: weight(span.l),
    recent,
  }
  return { tail, rows }
}

function tailFor(history: ListHistory): Tail {
  return history.tail ?? tailOf(history.spans[history.spans.length - 1]!)?.tail ?? EMPTY_TAIL
}

const EMPTY_TAIL: Tail = { m: "", p: "", weight: 2, checkpoint: 2, recent: [] }

function encodeEntry(pos: Pos, m: string, p: string, call: string, delta: Delta): Entry {
  const part = pos.k === 1 ? shortenId(p, pos.p) : pos.k === 2 ? 0 : 1
  return [shortenId(m, pos.m), part, call, delta]
}

const weight = (value: unknown) => JSON.stringify(value).length

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

/** Adds a change at `at` (the newest recorded position when absent, or when `at` is before it). */
function append(history: ListHistory, at: Pos | undefined, call: string, list: TodoList): ListHistory {
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
    last.e.length >= MAX_SPAN ||
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

function withoutRevert(history: ListHistory): ListHistory {
  const { rev: _rev, view: _view, ...rest } = history
  return rest
}

function stepped(history: ListHistory, dropped: readonly DroppedEdit[] = [], warning?: string): Stepped {
  const base = { history, list: currentList(history), dropped }
  return warning === undefined ? base : { ...base, warning }
}

/** Never throws: an unforeseen failure keeps the history as it was and says so. */
function guarded(history: ListHistory, step: () => Stepped): Stepped {
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

/**
 * Records the list a todo call left. While reverted no call can run on the host (every prompt commits
 * first), so a call then means the commit was missed: the revert is committed, then the call recorded.
 */
export function recordCall(
  history: ListHistory,
  call: CallAnchor,
  list: TodoList,
  limits: Limits = DEFAULT_LIMITS,
): Stepped {
  return guarded(history, () => {
    let h = history
    let dropped: readonly DroppedEdit[] = []
    let warning: string | undefined
    if (h.rev !== undefined) {
      const committed = commit(h, undefined, limits)
      h = committed.history
      dropped = committed.dropped
      warning = `A todo call arrived while the session was reverted to ${pointLabel(history.rev!.at)}; the revert was taken as committed.`
    }
    if (!isId(call.message) || typeof call.callID !== "string") {
      warning = "A todo call came without its message; it was recorded at the newest change."
      return stepped(append(h, undefined, "", list), dropped, warning)
    }
    const at: Pos = isId(call.part)
      ? { m: call.message, k: 1, p: call.part }
      : { m: call.message, k: 2, p: "" }
    return stepped(append(h, at, shortHash(call.callID), list), dropped, warning)
  })
}

/**
 * Records the list a user edit left (/todo, the dialog, $EDITOR, import). While reverted it is kept at
 * the revert point, with its `ops` when the edit was typed ops, to be made again on redo.
 */
export function recordEdit(history: ListHistory, edit: EditAnchor, list: TodoList): Stepped {
  return guarded(history, () => {
    const rev = history.rev
    if (rev !== undefined) {
      const view = currentList(history)
      if (sameRows(toRows(view), toRows(list))) return stepped(history)
      const made = pendingEdit(view, list, edit.ops)
      return stepped({ ...history, rev: { at: rev.at, edits: [...rev.edits, made] }, view: list })
    }
    const at: Pos | undefined = isId(edit.after) ? { m: edit.after, k: 2, p: "" } : undefined
    return stepped(append(history, at, "", list))
  })
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
 * The newest recorded call among `callIDs` (a fork keeps its parent's call ids, with new message ids), with
 * the list before and after it. Walks the whole history: for a fork or an import, not for every request.
 */
export function stateAtCall(history: ListHistory, callIDs: readonly string[]): CallState | undefined {
  try {
    const wanted = new Map(callIDs.map((id) => [shortHash(id), id] as const))
    let found: CallState | undefined
    for (const span of history.spans) {
      const rows = [...span.l]
      for (const { pos, entry } of walk(span)) {
        const callID = entry[2] === "" ? undefined : wanted.get(entry[2])
        const before = callID === undefined ? undefined : fromRows(rows)
        if (!applyDelta(rows, entry[3])) return found
        if (callID !== undefined && before !== undefined) {
          const after = fromRows(rows)
          if (after !== undefined) found = { callID, point: pointOf(pos), before, after }
        }
      }
    }
    return found
  } catch {
    return undefined
  }
}

// ---------------------------------------------------------------------------------------------------------
// Revert, redo, commit

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
    return stepped(h, dropped)
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
    if (rev === undefined && cut.spans !== history.spans && !sameSpans(cut, history))
      warning ??= `Messages were removed without a revert first (from ${pointLabel(at)}); the list went back to before them.`
    let h = cut
    const dropped: DroppedEdit[] = []
    for (const edit of rev?.edits ?? []) {
      const made = remake(h.top, edit, limits)
      dropped.push(...made.dropped)
      h = append(h, posOf(at), "", made.list)
    }
    return stepped(h, dropped, warning)
  })
}

function sameSpans(a: ListHistory, b: ListHistory): boolean {
  return a.spans.length === b.spans.length && a.spans.every((s, i) => s.e.length === b.spans[i]!.e.length)
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

// ---------------------------------------------------------------------------------------------------------
// The record's form

/** The history as the record stores it: the derived lists left out (the record holds the list in effect). */
export function encodeHistory(history: ListHistory): unknown {
  const spans = history.spans.map((s) => ({ l: s.l, e: s.e }))
  return history.rev === undefined
    ? { v: 1, spans }
    : { v: 1, spans, rev: { at: history.rev.at, edits: history.rev.edits } }
}

/**
 * Reads a stored history against the stored list in effect. A history that is malformed or does not replay
 * (every span must end where the next checkpoint starts) is replaced by a history of `list` alone, with a
 * warning: the list is never lost, only the way back. One that does not end in `list` gets `list` recorded
 * as a user edit made last.
 */
export function decodeHistory(
  raw: unknown,
  list: TodoList,
  limits: Limits = DEFAULT_LIMITS,
): { readonly history: ListHistory; readonly warning?: string } {
  try {
    const problem = (why: string) => ({
      history: historyFrom(list),
      warning: `The stored list history is unreadable (${why}); the list was kept, but undo cannot go back before it.`,
    })
    if (!isRecord(raw) || raw.v !== 1) return problem("unknown form")
    const spans = raw.spans
    if (!Array.isArray(spans) || spans.length === 0) return problem("no checkpoints")
    let previous: Pos | undefined
    let top: TodoList | undefined
    for (let i = 0; i < spans.length; i++) {
      const span: unknown = spans[i]
      if (!isSpan(span) || (i > 0 && span.e.length === 0)) return problem(`span ${i + 1} is malformed`)
      let count = 0
      for (const { pos } of walk(span)) {
        if (previous !== undefined && compare(pos, previous) < 0)
          return problem(`span ${i + 1} is out of order`)
        previous = pos
        count++
      }
      if (count !== span.e.length) return problem(`span ${i + 1} has a bad id`)
      const replayed = replay(span)
      if (replayed.broken) return problem(`span ${i + 1} does not replay`)
      const next = spans[i + 1] as Span | undefined
      if (next !== undefined && isSpan(next) && !sameRows(replayed.rows, next.l))
        return problem(`span ${i + 1} does not end where the next begins`)
      if (next === undefined) top = fromRows(replayed.rows)
    }
    if (top === undefined) return problem("the newest list does not read")
    const tail = tailOf(spans[spans.length - 1] as Span)
    if (tail === undefined) return problem("the newest span does not replay")
    let history: ListHistory = { v: 1, spans: spans as Span[], top, tail: tail.tail }
    if (raw.rev !== undefined) {
      const rev = raw.rev
      if (!isRecord(rev) || !isPoint(rev.at) || !Array.isArray(rev.edits) || !rev.edits.every(isPendingEdit))
        return problem("the revert is malformed")
      const at: Point =
        rev.at.part === undefined
          ? { message: rev.at.message }
          : { message: rev.at.message, part: rev.at.part }
      history = revert({ ...history, rev: { at, edits: rev.edits } }, at, limits).history
    }
    // A list changed beside its history (an older writer, a hand edit) is taken as a user edit made last.
    if (!sameRows(toRows(currentList(history)), toRows(list))) history = recordEdit(history, {}, list).history
    return { history }
  } catch {
    return {
      history: historyFrom(list),
      warning: "The stored list history is unreadable; the list was kept, but undo cannot go back before it.",
    }
  }
}

function isSpan(value: unknown): value is Span {
  if (!isRecord(value) || !Array.isArray(value.l) || !Array.isArray(value.e)) return false
  if (!value.l.every(isRow) || fromRows(value.l) === undefined) return false
  return value.e.every(
    (e) =>
      Array.isArray(e) &&
      e.length === 4 &&
      typeof e[0] === "string" &&
      (typeof e[1] === "string" || e[1] === 0 || e[1] === 1) &&
      typeof e[2] === "string" &&
      isDelta(e[3]),
  )
}
