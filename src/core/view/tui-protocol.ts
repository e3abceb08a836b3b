// How the TUI follows the host's undo: the host's revert point as the TUI reads it, the list in effect
// under it, and the parts still in the conversation before it (core/history/history.ts holds the history
// the server stores; core/list/carried.ts the list a part carries for a TUI that cannot read the store).

import {
  commit,
  currentList,
  type ListHistory,
  type Point,
  revert,
  revertPoint as storedRevert,
  unrevert,
} from "../history/history.ts"
import { samePoint } from "../history/rewind.ts"
import { isRecord } from "../list/result.ts"
import type { Limits, TodoList } from "../list/types.ts"

/** The point the host has a session reverted to (its info's `revert`), or undefined when it is not reverted. */
export function hostRevert(info: unknown): Point | undefined {
  if (!isRecord(info) || !isRecord(info.revert)) return undefined
  const { messageID, partID } = info.revert
  if (typeof messageID !== "string" || messageID === "") return undefined
  return typeof partID === "string" && partID !== ""
    ? { message: messageID, part: partID }
    : { message: messageID }
}

/**
 * The list a TUI that reads the stored history shows: strictly before the host's revert point while the
 * host has the session reverted (with the edits made since), the newest list once it is not. The server
 * records revert, redo and commit in the history too, but the TUI does not wait for that write: it takes
 * the same pure steps on its copy, so the list follows the host at once whatever the order of the events.
 * `committed`: the host removed the reverted messages (the next prompt), so a pending revert is a commit
 * rather than a redo.
 */
export function listInEffect(
  history: ListHistory,
  host: Point | undefined,
  committed: boolean,
  limits: Limits,
): TodoList {
  const stored = storedRevert(history)
  if (host !== undefined)
    return samePoint(stored ?? null, host) ? currentList(history) : revert(history, host, limits).list
  if (stored === undefined) return currentList(history)
  return (committed ? commit(history, undefined, limits) : unrevert(history, limits)).list
}

/** A message with its parts, as the TUI's host state holds them (oldest first). */
export interface MessageParts {
  readonly id: string
  readonly parts: readonly unknown[]
}

/**
 * The parts still in the conversation when it is reverted to `point` (all of them without one): the
 * messages before the point's message (ids ascend, so string order; the host's own view filters so), and
 * with a part id, that message's parts before that part.
 */
export function partsBefore(messages: readonly MessageParts[], point?: Point): unknown[] {
  const out: unknown[] = []
  for (const message of messages) {
    if (point === undefined || message.id < point.message) out.push(...message.parts)
    else if (message.id === point.message && point.part !== undefined) {
      const { part: cut } = point
      for (const part of message.parts) {
        if (isRecord(part) && typeof part.id === "string" && part.id >= cut) break
        out.push(part)
      }
    }
  }
  return out
}
