// The host's undo as both sides read it: the revert point a session's info carries (the server and the TUI)
// and the parts still in the conversation before it (the 1.18 TUI, which reads parts, not the store).
// core/history/effect.ts works out the list in effect under it.

import type { Point } from "../core/history/history.ts"
import { isRecord } from "../core/list/result.ts"

/** The point the host has a session reverted to (its info's `revert`), or undefined when it is not reverted. */
export function hostRevert(info: unknown): Point | undefined {
  if (!isRecord(info) || !isRecord(info.revert)) return undefined
  const { messageID, partID } = info.revert
  if (typeof messageID !== "string" || messageID === "") return undefined
  return typeof partID === "string" && partID !== ""
    ? { message: messageID, part: partID }
    : { message: messageID }
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
