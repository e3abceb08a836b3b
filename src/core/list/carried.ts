// The list a conversation part carries: the `todo` tool's result metadata, or a /todo command's text part,
// with the format it was written in. Pure; the server writes these, a TUI that cannot read the store
// (attached to a server elsewhere) reads them, and so does the history for a fork or a rebuild.

import { isRecord } from "./result.ts"
import { TODO_TOOL } from "./words.ts"

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
