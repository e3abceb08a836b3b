// What the host's undo and redo mean for one session as this process hears of them. It tracks the revert in
// progress (no reminder then), where a change is anchored in the conversation, and when to look again. Pure:
// (facts, event) -> { facts, action }, called by the session step (core/session/session.ts). A revert,
// unrevert or commit action only says when: the list itself is effect.ts's (why: docs/design.md).

/*
 * The host (1.18) reverts in three moves, and the plugin follows each at once:
 * - Revert: `session.updated` carries `info.revert = {messageID, partID?}`. The list becomes the list as it
 *   was strictly before that point. A second revert replaces the first (the host keeps one point).
 * - Unrevert (redo): `session.updated` without `revert`, no message removed before it: the newest list.
 * - Commit: the next prompt of any kind first removes the reverted messages (`message.removed`, and
 *   `message.part.removed` for the cut message of a partial revert), then clears `revert`. The first
 *   removal commits: the states after the point are dropped for good. The hooks may run before those
 *   events arrive, so a user message seen while a revert is pending commits it too (the host commits
 *   before every prompt), and so does one that comes while the record holds a revert this process never
 *   heard of (another window's undo, one made before a restart).
 * - Bad input is answered with a consistent step, never a throw: a removal with no revert known commits at
 *   the removed point (the host only ever removes the end of the conversation); a removal
 *   at or after the last commit point is the tail of that commit and changes nothing; two reverts in a row
 *   move the point.
 * Anchors: a change made while reverted is anchored at the revert point; otherwise after the newest message
 * this session has seen (undefined when none was seen in this process: the server asks the host).
 * A /todo command is the exception: the host runs its hook before it mints the command's own message, and
 * that message belongs to the command. Its edit is recorded at once, with a mark the hook also writes into the
 * command's part; the user message that carries the mark is the command's, and the edit settles there
 * (placement.ts `settleEdit`), after any commit that message makes. Several commands may wait at once (two
 * `POST /command` together): each settles on the message with its own mark, whatever order they come in
 * and whatever order their edits were recorded in (a verb's ops wait with it, so its edit can be made again
 * as typed before an edit recorded ahead of it), and a message with no mark (a prompt, a reminder) takes no
 * marked command's edit. A command the adapter
 * gave no mark is settled by the next user message with no mark, oldest first (the order the hooks ran in):
 * nothing else would tell two such commands apart, or a command's message from a prompt.
 * Ids are compared as strings: the host mints message and part ids in ascending order.
 * The facts are plain data, bounded: three points, two ids, at most TODO_PARTS_MAX tool parts and
 * COMMANDS_MAX waiting commands.
 */

import type { Op } from "../list/types.ts"
import type { Point } from "./history.ts"
import { hostOrder } from "./spans.ts"

export type { Point }

/** A todo tool part as the host announced it: which part holds which call. */
export interface TodoPart {
  readonly callID: string
  readonly messageID: string
  readonly partID: string
}

export interface RewindFacts {
  /** The revert in progress (undone, not yet committed). */
  readonly revert: Point | null
  /** The point of the last commit: later removals at or after it belong to that commit. */
  readonly committed: Point | null
  /** The newest message id seen in this process, while it survives. */
  readonly newest: string | null
  /** The latest todo tool parts announced, newest last. */
  readonly todoParts: readonly TodoPart[]
  /** /todo commands that changed the list and whose messages are not yet known, oldest first. */
  readonly commands: readonly WaitingCommand[]
}

/**
 * A /todo command waiting for its message: its mark (if the hook gave one), the list it left (a fingerprint;
 * null when it changed nothing: its message then settles nothing, and takes no other command's edit) and the
 * ops of a verb (at most COMMAND_OPS_MAX; more are not kept), to be made again as typed if its edit settles
 * before edits made ahead of it.
 */
export interface WaitingCommand {
  readonly mark?: string
  readonly made: string | null
  readonly ops?: readonly Op[]
}

export const TODO_PARTS_MAX = 16
export const COMMANDS_MAX = 8
/** A /todo verb runs one op; a command is never more than a call's worth. */
export const COMMAND_OPS_MAX = 50

export type RewindEvent =
  | { readonly type: "revert"; readonly point: Point | null }
  | { readonly type: "removed"; readonly point: Point }
  /**
   * `command`: the mark a /todo command's part in the message carries. `recorded`: the revert point the record
   * holds, which this process may not have heard of (another window's undo, one made before a restart).
   */
  | {
      readonly type: "message"
      readonly messageID?: string
      readonly user: boolean
      readonly command?: string
      readonly recorded?: Point
    }
  | ({ readonly type: "todo.part" } & TodoPart)
  /**
   * A /todo command ran; `made` fingerprints the list it left, null when it changed nothing; `mark` its mark;
   * `ops` what a verb ran.
   */
  | {
      readonly type: "command"
      readonly made: string | null
      readonly mark?: string
      readonly ops?: readonly Op[]
    }

export type RewindAction =
  | { readonly type: "revert"; readonly point: Point }
  | { readonly type: "unrevert" }
  | { readonly type: "commit"; readonly point: Point }
  /**
   * The command's edit (marked `mark`, else the one that left `made`) belongs to `message`, the command's own;
   * `ops`: what it ran, when a verb.
   */
  | {
      readonly type: "settle"
      readonly message: string
      readonly made: string
      readonly mark?: string
      readonly ops?: readonly Op[]
    }

export interface RewindStep {
  readonly facts: RewindFacts
  /** In the order the stored history must follow them. */
  readonly actions: readonly RewindAction[]
}

export const INITIAL_REWIND: RewindFacts = Object.freeze({
  revert: null,
  committed: null,
  newest: null,
  todoParts: Object.freeze([]) as readonly TodoPart[],
  commands: Object.freeze([]) as readonly WaitingCommand[],
})

const NONE: readonly RewindAction[] = Object.freeze([])

/** Negative when `a` comes before `b`. A message's own point comes before every part of it. */
export function comparePoints(a: Point, b: Point): number {
  if (a.message !== b.message) return hostOrder(a.message, b.message)
  const pa = a.part ?? ""
  const pb = b.part ?? ""
  return pa === pb ? 0 : pa < pb ? -1 : 1
}

export function samePoint(a: Point | null, b: Point | null): boolean {
  return a === b || (a !== null && b !== null && comparePoints(a, b) === 0)
}

/** Where a user edit made now is anchored: the revert point, or after the newest message seen. */
export type EditAnchor =
  | { readonly kind: "reverted"; readonly point: Point }
  | { readonly kind: "after"; readonly message: string }

export function editAnchor(facts: RewindFacts): EditAnchor | undefined {
  if (facts.revert !== null) return { kind: "reverted", point: facts.revert }
  return facts.newest === null ? undefined : { kind: "after", message: facts.newest }
}

/**
 * Whether a prompt must ask the host if the undo it would commit still stands (the one heard of here, else
 * `recorded`, the one the record holds). The host commits an undo only if it is still reverted when the prompt
 * comes; a redo just before the prompt may not have been heard yet (OpenCode 2 runs a prompt's hook in the
 * request that sends it, while its events come on a stream of their own), and committing it would drop the
 * redone list and the notes the redo brought back. No undo pending: nothing to ask.
 */
export function undoToConfirm(facts: RewindFacts, recorded: Point | undefined): boolean {
  return facts.revert !== null || recorded !== undefined
}

/** The part that holds the todo call `callID`, when the host announced it. */
export function todoPartOf(facts: RewindFacts, callID: string): TodoPart | undefined {
  for (let i = facts.todoParts.length - 1; i >= 0; i--)
    if (facts.todoParts[i]!.callID === callID) return facts.todoParts[i]
  return undefined
}

function commit(facts: RewindFacts, point: Point): RewindStep {
  const newest = facts.newest !== null && facts.newest >= point.message ? null : facts.newest
  return {
    facts: { ...facts, revert: null, committed: point, newest },
    actions: [{ type: "commit", point }],
  }
}

export function stepRewind(facts: RewindFacts, event: RewindEvent): RewindStep {
  switch (event.type) {
    case "revert": {
      if (samePoint(facts.revert, event.point)) return { facts, actions: NONE }
      if (event.point === null) return { facts: { ...facts, revert: null }, actions: [{ type: "unrevert" }] }
      return {
        facts: { ...facts, revert: event.point },
        actions: [{ type: "revert", point: event.point }],
      }
    }
    case "removed": {
      if (facts.revert !== null) {
        // The host removes from the revert point on; a removal before it moves the commit there.
        const point = comparePoints(event.point, facts.revert) < 0 ? event.point : facts.revert
        return commit(facts, point)
      }
      if (facts.committed !== null && comparePoints(event.point, facts.committed) >= 0)
        return { facts, actions: NONE }
      // The history says once whether that cut anything (after a restart during an undo it cuts nothing new).
      return commit(facts, event.point)
    }
    case "message": {
      // Every prompt commits a pending revert before the host stores it: the one heard of here, else the one
      // the record holds (a command's edit then settles on its message after the commit, not before it).
      const pending = event.user ? (facts.revert ?? event.recorded ?? null) : null
      let step: RewindStep = pending !== null ? commit(facts, pending) : { facts, actions: NONE }
      const id = event.messageID
      // The user message that carries a waiting command's mark is that command's own: its edit settles there.
      const waiting = step.facts.commands
      const index = event.user ? waiting.findIndex((c) => c.mark === event.command) : -1
      if (index >= 0) {
        const { made, mark, ops } = waiting[index]!
        const settle: readonly RewindAction[] =
          id === undefined || made === null
            ? []
            : [
                {
                  type: "settle",
                  message: id,
                  made,
                  ...(mark === undefined ? {} : { mark }),
                  ...(ops === undefined ? {} : { ops }),
                },
              ]
        const commands = waiting.filter((_, i) => i !== index)
        step = { facts: { ...step.facts, commands }, actions: [...step.actions, ...settle] }
      }
      if (id === undefined || (step.facts.newest !== null && step.facts.newest >= id)) return step
      return { ...step, facts: { ...step.facts, newest: id } }
    }
    case "todo.part": {
      if (todoPartOf(facts, event.callID)?.partID === event.partID) return { facts, actions: NONE }
      const part: TodoPart = { callID: event.callID, messageID: event.messageID, partID: event.partID }
      return {
        facts: { ...facts, todoParts: [...facts.todoParts, part].slice(-TODO_PARTS_MAX) },
        actions: NONE,
      }
    }
    case "command": {
      const ops = event.ops !== undefined && event.ops.length <= COMMAND_OPS_MAX ? event.ops : undefined
      const waiting: WaitingCommand = {
        made: event.made,
        ...(event.mark === undefined ? {} : { mark: event.mark }),
        ...(ops === undefined ? {} : { ops }),
      }
      return {
        facts: { ...facts, commands: [...facts.commands, waiting].slice(-COMMANDS_MAX) },
        actions: NONE,
      }
    }
  }
}
