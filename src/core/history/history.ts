// The history of a session's list, anchored in the conversation, so the list can follow the host's undo
// (revert), redo (unrevert) and commit (the next prompt removes the reverted messages). Pure, JSON in and
// out, never throws: every function answers a consistent list, and a warning value for input it could
// not make sense of. The adapters feed it host facts; the store carries it in the session's record.
//
// What is stored, and why: each change is kept as the exact step between the list before and after it
// (a row delta, rows.ts), at its position, with a checkpoint (the whole list) starting each span
// of entries. Not the call's arguments: replaying arguments ties every stored state to the reducers,
// limits and normal form of the plugin version that replays them, and a later version could rebuild a
// state the user never saw. A step is exact whatever the version, and shorter (a task done and the next
// started is "17c18i"). Only an edit made while reverted must be made again on another list (redo): it
// keeps its typed ops, or its changes by task (edits.ts), beside the list it made. Positions and
// spans live in spans.ts.
//
// Positions: a todo call sits at its assistant message and tool part; a user edit after the newest
// surviving message (or, when the adapter gives none, at the newest recorded change); an edit made while
// reverted at the revert point; a /todo command's edit, once its message is known, just before that message.
// Entries are kept in position order. Two kinds of change are placed before changes made earlier: a todo call
// whose part comes before calls at later parts (parallel calls finishing out of order), and a /todo command's
// edit settling on a message that comes after changes made since (two commands whose messages come in another
// order). Among the newest RECENT changes of the newest span, the list at each position is then the changes
// anchored at or before it, made again in the order they were made (edits.ts `remake`, by task), and the
// newest list stays exactly the one made (`placeAll`). Any other change anchored before the newest recorded
// one (a call after a user edit anchored after its message, a stale anchor, one further back) is placed at
// the newest position.
// "Strictly before a point" compares message ids, then part ids, as strings: the host mints ascending ids
// (a clock prefix, then a counter), and its own /redo compares them the same way. A revert point with no
// part is before every part of its message; an edit anchored after a message is after every part of it.
// An id the history never saw is placed by its order; whether the host has that message is the adapter's
// to check. What this cannot survive: the host's clock prefix wraps every 2^36 ms (next on 2028-10-17
// UTC), and ids minted after a wrap sort before older ones in a session open across it.
//
// Cost: recording a change costs the size of the list, whatever the length of the session (the newest
// span's end is kept beside the history), and so does the list before a point among the last RECENT
// changes (the common undo). Any other point costs a binary search over the spans and the replay of one
// span (at most MAX_SPAN_ENTRIES entries of at most HISTORY_CAPS.rows rows). Reading a stored history checks
// every span's form (linear in the record) and replays the newest span only; a span over the caps makes the
// record's history unreadable (the list is kept), and an older span that does not replay says so when an
// undo or a fork reaches it.

import { isRecord } from "../list/result.ts"
import type { Limits, Op, TodoList } from "../list/types.ts"
import { DEFAULT_LIMITS } from "../list/types.ts"
import {
  type DroppedEdit,
  fingerprint,
  isPendingEdit,
  type PendingEdit,
  pendingEdit,
  remake,
} from "./edits.ts"
import { applyDelta, diffRows, fromRows, isDelta, sameRows, shortHash, toRows } from "./rows.ts"
import {
  compare,
  EMPTY_TAIL,
  encodeEntry,
  HISTORY_CAPS,
  isId,
  isPoint,
  isSpan,
  isSpanShape,
  MAX_SPAN_ENTRIES,
  type Meter,
  MIN_SPAN_CHARS,
  type Point,
  type Pos,
  pointLabel,
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
export interface UserEdit {
  readonly after?: string
  readonly ops?: readonly Op[]
  /**
   * A /todo command's mark (COMMAND_MARK_CHARS word characters at most): the command's message carries it, and
   * `settleEdit` finds the edit by it. Kept on the entry until the edit settles.
   */
  readonly command?: string
}

/** The longest command mark an entry keeps (its call-hash slot holds "/" and the mark). */
export const COMMAND_MARK_CHARS = HISTORY_CAPS.callChars - 1

/** A command mark as an entry keeps it: word characters, at most COMMAND_MARK_CHARS. */
export function isCommandMark(mark: unknown): mark is string {
  return typeof mark === "string" && mark.length <= COMMAND_MARK_CHARS && /^\w+$/.test(mark)
}

/** The entry's call-hash slot for an unsettled command's edit: "/" never starts a call's hash. */
function commandSlot(mark: string | undefined): string {
  return isCommandMark(mark) ? `/${mark}` : ""
}
const isCommandSlot = (slot: string) => slot.startsWith("/")

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

function tailFor(history: ListHistory): Tail {
  return history.tail ?? tailOf(history.spans[history.spans.length - 1]!)?.tail ?? EMPTY_TAIL
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

function withoutRevert(history: ListHistory): ListHistory {
  const { rev: _rev, view: _view, ...rest } = history
  return rest
}

function stepped(
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
    const hash = shortHash(call.callID)
    // A parallel call that finished after calls at later parts stays at its own part.
    const placed = placedAmong(h, at, hash, list, limits)
    return stepped(placed ?? append(h, at, hash, list), dropped, warning)
  })
}

// ---------------------------------------------------------------------------------------------------------
// Changes anchored out of the order they were made

/** A change as made: where it belongs, its call hash ("" for a user edit), and the list it left. */
interface Made {
  readonly pos: Pos
  readonly call: string
  readonly list: TodoList
}

/**
 * The newest `count` entries as changes made (oldest first), and the history without them; undefined when they
 * are not all among the newest span's last RECENT (whose lists the tail keeps).
 */
function newest(
  history: ListHistory,
  count: number,
): { readonly base: ListHistory; readonly changes: Made[] } | undefined {
  const spans = history.spans
  const last = spans[spans.length - 1]!
  const recent = tailFor(history).recent
  if (count <= 0 || count > last.e.length || count > recent.length) return undefined
  const walked = [...walk(last)].slice(-count)
  if (walked.length !== count) return undefined
  const changes = walked.map(({ pos, entry }, i) => ({
    pos,
    call: entry[2],
    list: recent[recent.length - count + i]!.list,
  }))
  const rest = last.e.slice(0, -count)
  const kept =
    rest.length > 0 || spans.length === 1
      ? [...spans.slice(0, -1), { l: last.l, e: rest }]
      : spans.slice(0, -1)
  const ended = tailOf(kept[kept.length - 1]!)
  const top = ended === undefined ? undefined : fromRows(ended.rows)
  if (ended === undefined || top === undefined) return undefined
  return { base: { v: 1, spans: kept, top, tail: ended.tail }, changes }
}

/**
 * Records `changes`, in the order they were made, on `base` in position order: the list at each position is
 * the changes anchored at or before it, made again in the order they were made, starting from the list before
 * them; where those are the first ones made, their own list. The last list is the last one made, exactly
 * (remake gives back exactly what an edit made on the list it was made on). Every position must be at or
 * after base's newest. At most RECENT changes: at most RECENT^2/2 remakes, on this rare path only.
 */
function placeAll(base: ListHistory, changes: readonly Made[], limits: Limits): ListHistory {
  const edits = changes.map((c, i) => pendingEdit(i === 0 ? base.top : changes[i - 1]!.list, c.list))
  const order = changes.map((_, i) => i).sort((a, b) => compare(changes[a]!.pos, changes[b]!.pos) || a - b)
  const included = new Set<number>()
  let h = base
  for (const i of order) {
    included.add(i)
    let first = 0
    while (included.has(first)) first++
    let list: TodoList
    if (first === included.size) list = changes[first - 1]!.list
    else {
      list = base.top
      for (let j = 0; j < changes.length; j++)
        if (included.has(j)) list = remake(list, edits[j]!, limits).list
    }
    h = append(h, changes[i]!.pos, changes[i]!.call, list)
  }
  return h
}

/**
 * A todo call made now (`list`) at part `at`, before calls recorded at later parts (parallel calls of one
 * reply that finished out of order): placed at `at` among them (placeAll). Undefined when no such call is
 * newest, when a change of another kind is recorded after `at` (a user edit anchored after the message was
 * made before this call's part existed: the call stays after it), or when the changes after `at` are not all
 * at hand; the caller then records the call at the newest position.
 */
function placedAmong(
  history: ListHistory,
  at: Pos,
  call: string,
  list: TodoList,
  limits: Limits,
): ListHistory | undefined {
  const recent = tailFor(history).recent
  let later = 0
  for (; later < recent.length; later++) {
    const pos = recent[recent.length - 1 - later]!.pos
    if (compare(pos, at) <= 0) break
    if (pos.k !== 1) return undefined
  }
  if (later === 0 || at.k !== 1 || sameList(history.top, list)) return undefined
  const found = newest(history, later)
  if (found === undefined || compare(tailFor(found.base).pos ?? at, at) > 0) return undefined
  return placeAll(found.base, [...found.changes, { pos: at, call, list }], limits)
}

/**
 * Records the list a user edit left (/todo, the dialog, $EDITOR, import). While reverted it is kept at
 * the revert point, with its `ops` when the edit was typed ops, to be made again on redo.
 */
export function recordEdit(history: ListHistory, edit: UserEdit, list: TodoList): Stepped {
  return guarded(history, () => {
    const rev = history.rev
    if (rev !== undefined) {
      const view = currentList(history)
      if (sameRows(toRows(view), toRows(list))) return stepped(history)
      // At the cap, the edits made while reverted are kept as their net change, by task (a read refuses more).
      const edits =
        rev.edits.length < HISTORY_CAPS.pendingEdits
          ? [...rev.edits, pendingEdit(view, list, edit.ops)]
          : [pendingEdit(listAt(history, rev.at).list, list)]
      return stepped({ ...history, rev: { at: rev.at, edits }, view: list })
    }
    const at: Pos | undefined = isId(edit.after) ? { m: edit.after, k: 2, p: "" } : undefined
    return stepped(append(history, at, commandSlot(edit.command), list))
  })
}

/**
 * A /todo command runs before the host mints the command's own message, so its edit is recorded after the
 * message before it. Once that message is known, the edit moves to just before it: an undo or a fork at the
 * command's message then takes the edit back with it. The edit is the newest entry with the command's `mark`
 * (the command's message carries the mark, so two commands run at once each settle on their own message);
 * without a mark, or when it is gone (an edit made again by a commit keeps none), the newest entry when it is
 * a user edit that left the list `made` (listFingerprint). Unsettled command edits made after it, still before
 * the message, move with it (their own messages come later); a change anchored between keeps its place
 * (placeAll). Anything else (a command that changed nothing, an edit already at or after the message, one
 * further back than the newest RECENT) leaves the history as it is.
 */
export function settleEdit(
  history: ListHistory,
  message: string,
  made: string,
  mark?: string,
  limits: Limits = DEFAULT_LIMITS,
): Stepped {
  return guarded(history, () => {
    if (history.rev !== undefined || !isId(message)) return stepped(history)
    const at: Pos = { m: message, k: 0, p: "" }
    const last = history.spans[history.spans.length - 1]!
    const walked = [...walk(last)]
    const reach = Math.min(walked.length, tailFor(history).recent.length)
    const slot = commandSlot(mark)
    let index = -1
    for (let i = walked.length - 1; slot !== "" && i >= walked.length - reach; i--)
      if (walked[i]!.entry[2] === slot) {
        index = i
        break
      }
    const newestAt = walked.length - 1
    if (index < 0 && reach > 0 && walked[newestAt]!.entry[2] === "" && listFingerprint(history.top) === made)
      index = newestAt
    if (index < 0 || compare(walked[index]!.pos, at) >= 0) return stepped(history)
    const found = newest(history, walked.length - index)
    if (found === undefined) return stepped(history)
    const changes = found.changes.map((c, i) =>
      i === 0
        ? { ...c, pos: at, call: "" }
        : isCommandSlot(c.call) && compare(c.pos, at) < 0
          ? { ...c, pos: at }
          : c,
    )
    return stepped(placeAll(found.base, changes, limits))
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

// ---------------------------------------------------------------------------------------------------------
// The record's form

/** The history as the record stores it: the derived lists left out (the record holds the list in effect). */
export function encodeHistory(history: ListHistory): unknown {
  const spans = history.spans.map((s) => ({ l: s.l, e: s.e }))
  return history.rev === undefined
    ? { v: 1, spans }
    : { v: 1, spans, rev: { at: history.rev.at, edits: history.rev.edits } }
}

/** Reads a stored history span by span, so a caller holding a big record can pause between spans. */
export interface HistoryReader {
  /** Checks the next stored span's form and the order of its positions; false once the history is unreadable. */
  add(span: unknown): boolean
  /** The history read, with `rev` the stored revert (undefined: none), as decodeHistory answers it. */
  end(rev: unknown): { readonly history: ListHistory; readonly warning?: string }
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
  meter?: Meter,
): { readonly history: ListHistory; readonly warning?: string } {
  if (!isRecord(raw) || raw.v !== 1) return unreadable(list, "unknown form")
  const reader = historyReader(list, limits, meter)
  const spans = raw.spans
  if (Array.isArray(spans)) for (const span of spans) if (!reader.add(span)) break
  return reader.end(raw.rev)
}

function unreadable(
  list: TodoList,
  why: string,
): { readonly history: ListHistory; readonly warning: string } {
  return {
    history: historyFrom(list),
    warning: `The stored list history is unreadable (${why}); the list was kept, but undo cannot go back before it.`,
  }
}

/** decodeHistory's reader, for a history of form v1 whose spans are fed to it one at a time, in order. */
export function historyReader(list: TodoList, limits: Limits = DEFAULT_LIMITS, meter?: Meter): HistoryReader {
  const spans: Span[] = []
  let problem: string | undefined
  let previous: Pos | undefined

  // Every span's form and the order of every position: linear in the record. Only the newest span is
  // replayed here; the others when an undo or a fork reaches them (replay checks their steps then).
  function add(span: unknown): boolean {
    if (problem !== undefined) return false
    const i = spans.length
    try {
      if (!isSpanShape(span) || (i > 0 && span.e.length === 0)) problem = `span ${i + 1} is malformed`
      else {
        let count = 0
        for (const { pos } of walk(span)) {
          if (previous !== undefined && compare(pos, previous) < 0) {
            problem = `span ${i + 1} is out of order`
            break
          }
          previous = pos
          count++
        }
        if (problem === undefined && count !== span.e.length) problem = `span ${i + 1} has a bad id`
      }
    } catch {
      problem = `span ${i + 1} is malformed`
    }
    if (problem !== undefined) return false
    spans.push(span as Span)
    return true
  }

  function end(rev: unknown): { readonly history: ListHistory; readonly warning?: string } {
    try {
      if (problem !== undefined) return unreadable(list, problem)
      if (spans.length === 0) return unreadable(list, "no checkpoints")
      const newest = spans[spans.length - 1]!
      if (!isSpan(newest)) return unreadable(list, `span ${spans.length} is malformed`)
      const replayed = replay(newest, undefined, meter)
      if (replayed.broken) return unreadable(list, `span ${spans.length} does not replay`)
      const top = fromRows(replayed.rows)
      if (top === undefined) return unreadable(list, "the newest list does not read")
      const tail = tailOf(newest)
      if (tail === undefined) return unreadable(list, "the newest span does not replay")
      let history: ListHistory = { v: 1, spans, top, tail: tail.tail }
      if (rev !== undefined) {
        if (
          !isRecord(rev) ||
          !isPoint(rev.at) ||
          !Array.isArray(rev.edits) ||
          rev.edits.length > HISTORY_CAPS.pendingEdits ||
          !rev.edits.every(isPendingEdit)
        )
          return unreadable(list, "the revert is malformed")
        const at: Point =
          rev.at.part === undefined
            ? { message: rev.at.message }
            : { message: rev.at.message, part: rev.at.part }
        history = revert({ ...history, rev: { at, edits: rev.edits } }, at, limits).history
      }
      // A list changed beside its history (an older writer, a hand edit) is taken as a user edit made last.
      if (!sameRows(toRows(currentList(history)), toRows(list)))
        history = recordEdit(history, {}, list).history
      return { history }
    } catch {
      return {
        history: historyFrom(list),
        warning:
          "The stored list history is unreadable; the list was kept, but undo cannot go back before it.",
      }
    }
  }

  return { add, end }
}
