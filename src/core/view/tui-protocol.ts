// What the server and the TUI tell each other besides the shared store: the list that rides on a
// completed `todo` tool part or a /todo command's text part (for a TUI that cannot read the store), the
// command names that ask a TUI to reread lists, and the host's revert point as the TUI reads it with the
// list in effect under it (src/core/history/history.ts holds the history the server stores).

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
import { PLUGIN_ID, TODO_TOOL } from "../list/words.ts"

/** Command names the server may publish as `tui.command.execute` after it changed a list. */
export const REFRESH_COMMAND = `${PLUGIN_ID}.refresh`
export const CHANGED_PREFIX = `${PLUGIN_ID}.changed:`

/** What a `tui.command.execute` command asks of us: refresh every shown list, one session's, or nothing. */
export function refreshTarget(command: unknown): { all: true } | { session: string } | undefined {
  if (typeof command !== "string") return undefined
  if (command === REFRESH_COMMAND) return { all: true }
  if (command.startsWith(CHANGED_PREFIX)) {
    const session = command.slice(CHANGED_PREFIX.length)
    return session ? { session } : { all: true }
  }
  return undefined
}

/**
 * Key under which the server may attach the list to the text part of a `/todo <verb>` command
 * (`metadata[COMMAND_PART_KEY] = { list }`), so a TUI that cannot read the store (attached to a
 * server elsewhere) still follows changes made by the command.
 */
export const COMMAND_PART_KEY = "opencodeTodo"

/**
 * The list carried by the newest part among `parts` (oldest first) that carries one, unvalidated:
 * a completed `todo` tool part (the tool returns `metadata.list`) or a command text part (see
 * COMMAND_PART_KEY). Undefined when no such part exists.
 */
export function latestToolList(parts: readonly unknown[]): unknown {
  for (let i = parts.length - 1; i >= 0; i--) {
    const list = toolPartList(parts[i])
    if (list !== undefined) return list
  }
  return undefined
}

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

/**
 * The format of the list a part carries, written beside it (`version`). Parts written before the field
 * existed are format 1. A reader leaves alone a list of a format newer than its own.
 */
export const CARRIED_LIST_VERSION = 1

/** A list as a part carries it, unvalidated, with the format it says it has. */
export interface CarriedList {
  readonly list: unknown
  /** `version` as written: undefined for parts older than the field, anything at all in a hostile part. */
  readonly version: unknown
}

/** What a part carries: `state.metadata` of a completed `todo` tool part, or a command part's; else undefined. */
export function partCarriedList(part: unknown): CarriedList | undefined {
  if (!isRecord(part)) return undefined
  let carrier: unknown
  if (part.type === "text") carrier = isRecord(part.metadata) ? part.metadata[COMMAND_PART_KEY] : undefined
  else if (part.type === "tool" && part.tool === TODO_TOOL) {
    const state = part.state
    if (!isRecord(state) || state.status !== "completed") return undefined
    carrier = state.metadata
  }
  return isRecord(carrier) && "list" in carrier ? { list: carrier.list, version: carrier.version } : undefined
}

/** The list a part carries in a format this version reads (see partCarriedList); else undefined. */
export function toolPartList(part: unknown): unknown {
  const carried = partCarriedList(part)
  return carried === undefined || newerCarried(carried) ? undefined : carried.list
}

/** True when the list was written in a format newer than this version's. */
export function newerCarried(carried: CarriedList): boolean {
  return typeof carried.version === "number" && carried.version > CARRIED_LIST_VERSION
}
