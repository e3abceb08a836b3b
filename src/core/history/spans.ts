// Where the list history keeps its entries: positions in the conversation, their order, and spans. A span is
// a checkpoint and the entries after it, ids shortened against the entry before; this walks and replays a
// span, and keeps the end of the newest span that recording and a near undo read. Pure; history.ts and its
// siblings (placement.ts, revert.ts, stored.ts) are the API.

import { isRecord } from "../list/result.ts"
import type { TodoList } from "../list/types.ts"
import { applyDelta, type Delta, expandId, fromRows, isDelta, type Row, shortenId } from "./rows.ts"

/** A place in the conversation: just before message `message`, or just before part `part` of it. */
export interface Point {
  readonly message: string
  readonly part?: string
}

/** One stored change: shortened message id, part (shortened id; 0 after the message; 1 before it), call hash, step. */
export type Entry = readonly [string, string | 0 | 1, string, Delta]

/** A checkpoint (the list before its first entry, as rows) and the entries after it. */
export interface Span {
  readonly l: readonly Row[]
  readonly e: readonly Entry[]
}

/** The newest span's end: its last position and ids, its weight, and the lists its last entries left. */
export interface Tail {
  readonly pos?: Pos
  readonly m: string
  readonly p: string
  /** `JSON.stringify(span.e).length` and `JSON.stringify(span.l).length`. */
  readonly weight: number
  readonly checkpoint: number
  /** The last RECENT entries' positions and the lists they left, oldest first. */
  readonly recent: readonly { readonly pos: Pos; readonly list: TodoList }[]
}

/** A span takes a new checkpoint after this many entries, so a replay never walks more. */
export const MAX_SPAN_ENTRIES = 256
/** ...or once its entries weigh this many times its checkpoint (at least MIN_SPAN_CHARS): deltas never cost much more than checkpoints. */
export const SPAN_WEIGHT = 8
export const MIN_SPAN_CHARS = 2048
/** A revert to within this many changes of the newest is answered without a replay. */
export const RECENT = 16

/**
 * What a stored history may hold, checked when it is read: a record is text from outside (a hand edit, an
 * older or hostile writer), and a read must not stall the host. With these, a replay walks at most
 * MAX_SPAN_ENTRIES entries of at most `rows` rows each, and a read replays one span; the record's other spans
 * are checked for their form (linear in their size) and replayed only when an undo or a fork reaches them.
 */
export const HISTORY_CAPS = {
  /** Rows of one list: the most phases and tasks any configuration stores (200 + 2,000). */
  rows: 2_200,
  /** Characters of a message or part id as stored (the host's are about 30). */
  idChars: 256,
  /** Characters of a call's hash (shortHash gives at most 7). */
  callChars: 16,
  /** Edits made while reverted, waiting for a redo or commit. */
  pendingEdits: 256,
  /** The history's JSON in the record, in characters (the list beside it has its own caps). */
  historyChars: 4 * 1024 * 1024,
} as const

// ---------------------------------------------------------------------------------------------------------
// Positions

/** k: 0 before the message's parts, 1 at part p, 2 after its parts. */
export interface Pos {
  readonly m: string
  readonly k: 0 | 1 | 2
  readonly p: string
}

/**
 * The order the host mints message ids in: ascending as strings, except a fork's copies, `<fork's id>_<seq>`,
 * which share one prefix and are ordered by the sequence number after it (OpenCode 2.0.15 names a copy after
 * the fork's event and its source message's sequence number, so `_5` comes before `_40`).
 */
export function hostOrder(a: string, b: string): number {
  const [aBase, aSeq] = idParts(a)
  const [bBase, bSeq] = idParts(b)
  if (aBase !== bBase) return aBase < bBase ? -1 : 1
  return aSeq - bSeq
}

function idParts(id: string): [string, number] {
  // A copy's name is a whole id (prefix, underscore, body), an underscore and digits: `msg_12` is no copy.
  const copy = /^([^_]+_[^_]+)_(\d{1,9})$/.exec(id)
  return copy ? [copy[1]!, Number(copy[2])] : [id, -1]
}

export function compare(a: Pos, b: Pos): number {
  if (a.m !== b.m) return hostOrder(a.m, b.m)
  if (a.k !== b.k) return a.k - b.k
  if (a.k !== 1 || a.p === b.p) return 0
  return a.p < b.p ? -1 : 1
}

export function posOf(point: Point): Pos {
  return point.part === undefined
    ? { m: point.message, k: 0, p: "" }
    : { m: point.message, k: 1, p: point.part }
}

export function pointOf(pos: Pos): Point {
  return pos.k === 1 ? { message: pos.m, part: pos.p } : { message: pos.m }
}

export const isId = (value: unknown): value is string => typeof value === "string" && value.length > 0

export function isPoint(value: unknown): value is Point {
  return isRecord(value) && isId(value.message) && (value.part === undefined || isId(value.part))
}

/** Ids in warnings: quoted, escaped, cut short (they come from outside). */
export function label(id: string): string {
  return JSON.stringify(id.length > 40 ? `${id.slice(0, 39)}…` : id)
}

export function pointLabel(point: Point): string {
  return point.part === undefined
    ? `message ${label(point.message)}`
    : `part ${label(point.part)} of message ${label(point.message)}`
}

// ---------------------------------------------------------------------------------------------------------
// Spans

export interface Walked {
  readonly pos: Pos
  readonly entry: Entry
}

/** The entries of a span with their positions; stops early at an id it cannot expand. */
export function* walk(span: Span): Generator<Walked> {
  let m = ""
  let p = ""
  for (const entry of span.e) {
    if (!isEntryShape(entry)) return
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

export function firstPos(span: Span): Pos | undefined {
  for (const { pos } of walk(span)) return pos
  return undefined
}

export interface Replayed {
  readonly rows: Row[]
  /** Entries applied. */
  readonly count: number
  readonly broken: boolean
}

/** Counts the rows a replay copies or moves, for the tests that hold replays to linear cost. */
export interface Meter {
  steps: number
}

/**
 * The span's rows after every entry strictly before `before` (all entries when absent). A span whose form was
 * not checked when it was read is checked here, entry by entry: a step that is not a delta, or a list over the
 * caps, breaks the replay. Costs at most (entries + 1) x HISTORY_CAPS.rows row moves.
 */
export function replay(span: Span, before?: Pos, meter?: Meter): Replayed {
  const rows = [...span.l]
  if (meter) meter.steps += rows.length
  let count = 0
  if (rows.length > HISTORY_CAPS.rows || span.e.length > MAX_SPAN_ENTRIES)
    return { rows, count, broken: true }
  for (const { pos, entry } of walk(span)) {
    if (before !== undefined && compare(pos, before) >= 0) return { rows, count, broken: false }
    if (!isDelta(entry[3]) || !applyDelta(rows, entry[3]) || rows.length > HISTORY_CAPS.rows)
      return { rows, count, broken: true }
    if (meter) meter.steps += typeof entry[3] === "string" ? 1 : rows.length
    count++
  }
  return { rows, count, broken: count !== span.e.length && before === undefined }
}

/** The last span whose first entry is strictly before `at` (the first span when none is). */
export function spanFor(spans: readonly Span[], at: Pos): number {
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
export function tailOf(span: Span): { tail: Tail; rows: Row[] } | undefined {
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

export const EMPTY_TAIL: Tail = { m: "", p: "", weight: 2, checkpoint: 2, recent: [] }

export function encodeEntry(pos: Pos, m: string, p: string, call: string, delta: Delta): Entry {
  const part = pos.k === 1 ? shortenId(p, pos.p) : pos.k === 2 ? 0 : 1
  return [shortenId(m, pos.m), part, call, delta]
}

export const weight = (value: unknown) => JSON.stringify(value).length

/** An entry's ids and hash are strings within their caps (its step is checked when it is replayed). */
function isEntryShape(e: unknown): e is Entry {
  return (
    Array.isArray(e) &&
    e.length === 4 &&
    typeof e[0] === "string" &&
    e[0].length <= HISTORY_CAPS.idChars &&
    ((typeof e[1] === "string" && e[1].length <= HISTORY_CAPS.idChars) || e[1] === 0 || e[1] === 1) &&
    typeof e[2] === "string" &&
    e[2].length <= HISTORY_CAPS.callChars
  )
}

/**
 * A span's form, cheaply: a checkpoint and entries within the caps, each entry's ids and hash in form. Its
 * checkpoint's rows and its steps are checked when it is replayed (isSpan checks them all).
 */
export function isSpanShape(value: unknown): value is Span {
  return (
    isRecord(value) &&
    Array.isArray(value.l) &&
    value.l.length <= HISTORY_CAPS.rows &&
    Array.isArray(value.e) &&
    value.e.length <= MAX_SPAN_ENTRIES &&
    value.e.every(isEntryShape)
  )
}

export function isSpan(value: unknown): value is Span {
  if (!isSpanShape(value) || fromRows(value.l) === undefined) return false
  return value.e.every((e) => isDelta(e[3]))
}
