// What the server and the TUI tell each other besides the shared store: the list that rides on a
// completed `todo` tool part or a /todo command's text part (for a TUI that cannot read the store), and
// the command names that ask a TUI to reread lists.

import { isRecord } from "./result.ts"
import { PLUGIN_ID, TODO_TOOL } from "./words.ts"

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

/** The list a part carries: `state.metadata.list` of a completed `todo` tool part, or a command part's; else undefined. */
export function toolPartList(part: unknown): unknown {
  if (!isRecord(part)) return undefined
  if (part.type === "text") {
    const carried = isRecord(part.metadata) ? part.metadata[COMMAND_PART_KEY] : undefined
    return isRecord(carried) && "list" in carried ? carried.list : undefined
  }
  if (part.type !== "tool" || part.tool !== TODO_TOOL) return undefined
  const state = part.state
  if (!isRecord(state) || state.status !== "completed") return undefined
  return isRecord(state.metadata) && "list" in state.metadata ? state.metadata.list : undefined
}
