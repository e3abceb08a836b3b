// Where a change enters the list history (history.ts): its position in the conversation, and its place among
// the changes made before it. A todo call sits at its message and part, a user edit after the newest
// surviving message or at the revert point, a /todo command's edit just before its own message once known.
// Pure and never throws, like every step of the history; the ordering rules: docs/design.md.

import type { Limits, Op, TodoList } from "../list/types.ts"
import { DEFAULT_LIMITS } from "../list/types.ts"
import { type DroppedEdit, pendingEdit, remake } from "./edits.ts"
import {
  append,
  currentList,
  guarded,
  type ListHistory,
  listAt,
  listFingerprint,
  type Stepped,
  sameList,
  stepped,
  tailFor,
} from "./history.ts"
import { commit } from "./revert.ts"
import { fromRows, sameRows, shortHash, toRows } from "./rows.ts"
import { compare, HISTORY_CAPS, isId, type Pos, pointLabel, tailOf, walk } from "./spans.ts"

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

/**
 * A change as made: where it belongs, its call hash ("" for a user edit), the list it left, and the typed ops
 * that made it when they are at hand (a /todo verb settling now): made again on another list, they are run as
 * typed rather than replayed by task.
 */
interface Made {
  readonly pos: Pos
  readonly call: string
  readonly list: TodoList
  readonly ops?: readonly Op[]
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
  const edits = changes.map((c, i) => pendingEdit(i === 0 ? base.top : changes[i - 1]!.list, c.list, c.ops))
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
 * a user edit that left the list `made` (listFingerprint). Every other unsettled command edit still before
 * the message goes after it, since its own message most likely comes later: one made after it moves with it,
 * one made before it (its store write settled first) to the end of this message; should its message come
 * first after all, it moves back when that message is known. A change anchored between keeps its place
 * (placeAll), and the list before each message is the changes anchored before it, this command's made again
 * from its typed `ops` when given (a verb's), else by task. Anything else (a command that changed nothing,
 * an unmarked edit already at or after the message, one further back than the newest RECENT) leaves the
 * history as it is.
 */
export function settleEdit(
  history: ListHistory,
  message: string,
  made: string,
  mark?: string,
  limits: Limits = DEFAULT_LIMITS,
  ops?: readonly Op[],
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
    if (index < 0) return stepped(history)
    // An unmarked edit already at or after the message stays. A marked one put after another command's message
    // (its store write settled first, and its message was guessed to come second) comes back to its own.
    const back = compare(walked[index]!.pos, at) >= 0
    if (back && !isCommandSlot(walked[index]!.entry[2])) return stepped(history)
    // Re-placed from the oldest of: this edit, an unsettled command edit still before the message, the first
    // change at or after the message (positions ascend along the walk). All within reach, or nothing moves.
    let from = index
    for (let i = index - 1; i >= walked.length - reach; i--)
      if (compare(walked[i]!.pos, at) >= 0 || isCommandSlot(walked[i]!.entry[2])) from = i
    const found = newest(history, walked.length - from)
    if (found === undefined) return stepped(history)
    const own = index - from
    const after: Pos = { m: message, k: 2, p: "" }
    const changes = found.changes.map((c, i) =>
      i === own
        ? { ...c, pos: at, call: "", ...(ops === undefined ? {} : { ops }) }
        : isCommandSlot(c.call) && compare(c.pos, at) < 0
          ? { ...c, pos: i < own ? after : at }
          : c,
    )
    return stepped(placeAll(found.base, changes, limits))
  })
}
