// The list in effect, as a pure function of the stored history and what the host says now. The host says the
// session's revert point, and whether it still holds a place in the conversation. The server, the TUI and any
// host binding call this one function; events only tell them when to call it again (why: docs/design.md).

/*
 * The rules, in order (each a step of revert.ts, so the stored form stays the one the store knows):
 * 1. The history records a revert (point Q) and the host no longer holds Q: the reverted messages were
 *    removed (the next prompt commits an undo, in this process or another, before or after a restart). The
 *    revert is committed at Q: the states from Q on are dropped, and edits made while reverted stay.
 * 2. The history records a revert Q, the host still holds Q and is not reverted: a redo (unrevert). The
 *    newest list comes back, with the edits made while reverted made again on it.
 * 3. The history records no revert, the host is not reverted, and it no longer holds the message of the
 *    newest recorded change: a revert no process recorded (a process that died before it wrote) was
 *    committed. The history is cut at its first change whose message the host no longer holds. This is the
 *    one rule that looks at messages only: a cut inside a message that no process recorded is not found.
 * 4. The host is reverted to P and the history is not at P: the history reverts to P (a second revert moves
 *    the point and keeps the edits made while reverted).
 * An answer the host could not give (`holds` undefined) changes nothing it would decide: the history stays,
 * and `unsure` says the caller should ask again. Ids compare in the host's order (hostOrder).
 *
 * A host that shows only the conversation after its last compaction (OpenCode 2's `session.context`, which
 * starts at the compaction) still holds every message before it: a compaction is no removal. The host removes
 * only the end of a conversation (from an undo's point on), and an undo to before the compaction removes the
 * compaction too, so while it heads what the host shows, everything older stands (shownHolds).
 */

import type { Limits, TodoList } from "../list/types.ts"
import { DEFAULT_LIMITS } from "../list/types.ts"
import type { DroppedEdit } from "./edits.ts"
import { currentList, type ListHistory, type Point, revertPoint } from "./history.ts"
import { commit, revert, unrevert } from "./revert.ts"
import { hostOrder, isPoint, type Pos, walk } from "./spans.ts"

/** What the host says now about one session. A binding (V1 events and lookups, V2 events) fills it in. */
export interface HostFacts {
  /** The session's revert point as the host reports it now; null when it is not reverted. */
  readonly revert: Point | null
  /**
   * Whether the host still holds this place of the conversation: its message and, for a point with a part,
   * that part. Undefined when the caller does not know (a lookup that did not answer).
   */
  readonly holds: (point: Point) => boolean | undefined
}

/** The history agreeing with the host, the list in effect, and what it took to get there. */
export interface InEffect {
  readonly history: ListHistory
  readonly list: TodoList
  /** The steps taken, in order (empty: the history already agreed). */
  readonly changes: readonly ("commit" | "unrevert" | "revert")[]
  /** Edits made while reverted that a redo, commit or second revert could not make again. */
  readonly dropped: readonly DroppedEdit[]
  /**
   * Set when a redo or commit made edits made while reverted again: the list they were made again on, so
   * the change can be told as one net change (history.ts `Stepped.remadeOn`).
   */
  readonly remadeOn?: TodoList
  readonly warning?: string
  /** A `holds` answer was missing where it would have decided: ask the host and call again. */
  readonly unsure?: true
}

/**
 * The places `inEffect` may ask `holds` about, for an adapter that must ask the host for each: the stored
 * revert point and the newest recorded change. (Only when the newest is gone does it ask about more, at most
 * one per halving of the history's changes.)
 */
export function placesToCheck(history: ListHistory): Point[] {
  const places: Point[] = []
  const stored = revertPoint(history)
  if (stored !== undefined) places.push(stored)
  const newest = newestPlace(history)
  if (newest !== undefined) places.push(newest)
  return places
}

/**
 * The place whose existence decides what the host's revert point means for the history: the stored revert
 * point, when the host's differs from it (gone: the undo was committed; held: a redo, or a second undo that
 * moves the point). An adapter asks the host about it rather than assume it is held: a process may not have
 * seen the removals (it started after the calls, another window committed, or the removals reach it after
 * the prompt that made them).
 */
export function decidingPlace(history: ListHistory, hostRevert: Point | null): Point | undefined {
  const stored = revertPoint(history)
  if (stored === undefined || samePoint(stored, hostRevert)) return undefined
  return stored
}

/**
 * The messages a host shows for a session: their ids, and the compaction that heads them when the host shows
 * only the conversation after its last compaction.
 */
export interface ShownMessages {
  readonly ids: ReadonlySet<string>
  /** The compaction message the shown conversation starts at: every message before it is held, not shown. */
  readonly compactedBefore?: string
}

/** Whether the host still holds `message`, by what it shows (see the rules at the top). */
export function shownHolds(shown: ShownMessages, message: string): boolean {
  if (shown.ids.has(message)) return true
  return shown.compactedBefore !== undefined && hostOrder(message, shown.compactedBefore) < 0
}

function newestPlace(history: ListHistory): Point | undefined {
  const pos = history.tail?.pos
  if (pos === undefined || pos.m === "") return undefined
  if (pos.k !== 0) return placeOf(pos)
  const placed = placedPositions(history)
  const last = placed[placed.length - 1]
  return last === undefined ? undefined : placeOf(last)
}

/**
 * The positions whose place must still exist for the change to stand, oldest first. A change before a
 * message (k 0: a /todo command's edit, or edits a commit made again at the revert point) needs nothing
 * after it, so it is never taken as gone.
 */
function placedPositions(history: ListHistory): Pos[] {
  const positions: Pos[] = []
  for (const span of history.spans)
    for (const { pos } of walk(span)) if (pos.m !== "" && pos.k !== 0) positions.push(pos)
  return positions
}

/**
 * The place a change's position needs to still exist: its message. Not its part: a commit makes the edits
 * made while reverted again at the revert point, which can be a part the commit removed.
 */
function placeOf(pos: Pos): Point {
  return { message: pos.m }
}

function samePoint(a: Point | undefined | null, b: Point | undefined | null): boolean {
  if (a === undefined || a === null || b === undefined || b === null) return (a ?? null) === (b ?? null)
  return a.message === b.message && (a.part ?? "") === (b.part ?? "")
}

/**
 * The first recorded change the host no longer holds, found by halving (the host only ever removes the end
 * of a conversation, so the held changes come first); undefined when it cannot tell.
 */
function firstGone(history: ListHistory, holds: HostFacts["holds"]): Pos | undefined {
  const positions = placedPositions(history)
  let lo = 0
  let hi = positions.length - 1
  let found: Pos | undefined
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const held = holds(placeOf(positions[mid]!))
    if (held === undefined) return found
    if (held) lo = mid + 1
    else {
      found = positions[mid]
      hi = mid - 1
    }
  }
  return found
}

/**
 * The list in effect for `history` under what the host says now, and the history that agrees with it (the
 * adapter stores it when `changes` is not empty). Pure, never throws; see the rules at the top.
 */
export function inEffect(history: ListHistory, host: HostFacts, limits: Limits = DEFAULT_LIMITS): InEffect {
  let h = history
  const changes: InEffect["changes"][number][] = []
  const dropped: DroppedEdit[] = []
  let remadeOn: TodoList | undefined
  let warning: string | undefined
  let unsure = false
  const took = (stepped: {
    history: ListHistory
    dropped: readonly DroppedEdit[]
    warning?: string
    remadeOn?: TodoList
  }) => {
    h = stepped.history
    dropped.push(...stepped.dropped)
    warning ??= stepped.warning
    remadeOn ??= stepped.remadeOn
  }
  const hostRevert = host.revert !== null && isPoint(host.revert) ? host.revert : null
  try {
    const stored = revertPoint(h)
    if (stored !== undefined && !samePoint(stored, hostRevert)) {
      const held = host.holds(stored)
      if (held === false) {
        took(commit(h, undefined, limits))
        changes.push("commit")
      } else if (held === true && hostRevert === null) {
        took(unrevert(h, limits))
        changes.push("unrevert")
      } else if (held === undefined) unsure = true
    }
    if (revertPoint(h) === undefined && hostRevert === null) {
      const newest = newestPlace(h)
      const held = newest === undefined ? true : host.holds(newest)
      if (held === undefined) unsure = true
      else if (!held) {
        const gone = firstGone(h, host.holds)
        if (gone === undefined) unsure = true
        else {
          took(commit(h, { message: gone.m }, limits))
          changes.push("commit")
        }
      }
    }
    if (hostRevert !== null && !samePoint(revertPoint(h), hostRevert)) {
      took(revert(h, hostRevert, limits))
      changes.push("revert")
    }
  } catch {
    return { history, list: currentList(history), changes: [], dropped: [], unsure: true }
  }
  return {
    history: h,
    list: currentList(h),
    changes,
    dropped,
    ...(remadeOn === undefined ? {} : { remadeOn }),
    ...(warning === undefined ? {} : { warning }),
    ...(unsure ? { unsure: true as const } : {}),
  }
}
