// Decodes what OpenCode 2 sends into the core's values: its bus events (`{ type, data }`) into HostEvent and the
// runtime's turn notes, its agents' rules and its session info into the shapes the 1.18 decoders already read.
// Shapes are read defensively and nothing here throws; the host facts behind them are in docs/opencode-2.md.

import type { ShownMessages } from "../core/history/effect.ts"
import type { Point } from "../core/history/history.ts"
import { isRecord } from "../core/list/result.ts"
import { isPluginText } from "../core/model/prompts.ts"
import type { HostEvent } from "../core/session/session.ts"
import { hostRevert } from "../shared/host-revert.ts"
import type { TurnNote } from "./turns.ts"
import { syntheticMessageId, nonEmpty as text } from "./v2-request.ts"

export type V2Decoded =
  | { readonly kind: "events"; readonly sessionID: string; readonly events: readonly HostEvent[] }
  | {
      readonly kind: "forked"
      readonly sessionID: string
      readonly parentID: string
      /** The first message of the source not copied (the fork holds the ones before it). */
      readonly from?: string
      /** The last message of the source copied (a `through` boundary): the fork holds it and the ones before. */
      readonly through?: string
    }
  | undefined

function about(sessionID: unknown, ...events: HostEvent[]): V2Decoded {
  const id = text(sessionID)
  return id === undefined ? undefined : { kind: "events", sessionID: id, events }
}

/** A revert state as the host sends it (`{ messageID, partID? }`, as 1.18's), as the core's point. */
export function v2Point(revert: unknown): Point | undefined {
  return hostRevert({ revert })
}

/**
 * One event of the host's bus. `rulesOf` gives the session's own rules as the core last knew them: a revert
 * event says nothing about rules, and the core's session.updated carries both.
 */
export function decodeV2Event(raw: unknown, rulesOf: (sessionID: string) => HostEvent[]): V2Decoded {
  if (!isRecord(raw) || typeof raw.type !== "string") return undefined
  const data = isRecord(raw.data) ? raw.data : isRecord(raw.properties) ? raw.properties : {}
  const sessionID = data.sessionID
  switch (raw.type) {
    case "session.created": {
      const info = isRecord(data.info) ? data.info : data
      const id = text(info.id) ?? text(sessionID)
      const parentID = text(info.parentID)
      return about(id, { type: "session.created", ...(parentID ? { parentID } : {}) })
    }
    case "session.deleted":
      return about(sessionID, { type: "session.deleted" })
    case "session.forked": {
      const id = text(sessionID)
      const parentID = text(data.parentID)
      if (id === undefined || parentID === undefined) return undefined
      return { kind: "forked", sessionID: id, parentID, ...forkPoint(data) }
    }
    // A message the host admitted: `session.input.admitted` (session-event.ts@03130971), `session.prompt.admitted`
    // (a newer schema, the same `inputID`); 2.0.15 sends neither, and writes a message when its inbox item is
    // delivered, under the item's id (seen on the real 2.0.15: a prompt's and a compaction's message ids are the
    // `inboxID` of their `session.inbox.enqueued` and `session.inbox.delivered`).
    case "session.input.admitted":
    case "session.prompt.admitted":
    case "session.inbox.delivered": {
      const id = text(data.inputID) ?? text(data.inboxID)
      return id ? about(sessionID, { type: "message.seen", messageID: id }) : undefined
    }
    case "session.step.started": {
      const messageID = text(data.assistantMessageID)
      return messageID
        ? about(sessionID, { type: "assistant.updated", messageID, endedOnToolCalls: false })
        : undefined
    }
    case "session.step.ended": {
      const messageID = text(data.assistantMessageID)
      return messageID
        ? about(sessionID, {
            type: "assistant.updated",
            messageID,
            endedOnToolCalls: data.finish === "tool-calls" || data.finish === "tool_calls",
          })
        : undefined
    }
    case "session.step.failed": {
      const messageID = text(data.assistantMessageID)
      return messageID
        ? about(sessionID, { type: "assistant.updated", messageID, endedOnToolCalls: false, error: "failed" })
        : undefined
    }
    case "session.text.ended": {
      const messageID = text(data.assistantMessageID)
      return messageID && typeof data.text === "string"
        ? about(sessionID, { type: "part.text", messageID, text: data.text })
        : undefined
    }
    // The turn is over: the host's idle.
    case "session.execution.succeeded":
      return about(sessionID, { type: "session.idle" })
    case "session.execution.failed":
      return about(sessionID, { type: "session.error", aborted: false }, { type: "session.idle" })
    case "session.execution.interrupted":
      return about(
        sessionID,
        // Only the user's stop is the user taking over; a shutdown or a newer input is not.
        { type: "session.error", aborted: data.reason === "user" },
        { type: "session.idle" },
      )
    case "session.compaction.ended":
      return about(sessionID, { type: "session.compacted" })
    case "session.revert.staged": {
      const id = text(sessionID)
      const point = v2Point(data.revert)
      if (id === undefined || point === undefined) return undefined
      return about(id, ...withRevert(rulesOf(id), point))
    }
    case "session.revert.cleared": {
      const id = text(sessionID)
      return id === undefined ? undefined : about(id, ...withRevert(rulesOf(id), null))
    }
    case "session.revert.committed": {
      const id = text(sessionID)
      const to = text(data.to)
      if (id === undefined || to === undefined) return undefined
      // The messages from `to` on are gone: the core commits at the first removal, then the revert is cleared.
      return about(id, { type: "message.removed", messageID: to }, ...withRevert(rulesOf(id), null))
    }
    case "permission.asked":
    case "permission.v2.asked":
    case "question.asked":
    case "question.v2.asked":
      return text(data.id) ? about(sessionID, { type: "ask.opened", id: data.id as string }) : undefined
    case "permission.replied":
    case "permission.v2.replied":
    case "question.replied":
    case "question.v2.replied":
    case "question.rejected":
    case "question.v2.rejected": {
      const id = text(data.requestID) ?? text(data.id)
      return id ? about(sessionID, { type: "ask.closed", id }) : undefined
    }
    default:
      return undefined
  }
}

/**
 * Where a fork's copy stops: `from` (session-event.ts@03130971), or `boundary: { type: "before" | "through",
 * messageID }` (projector.ts@008d5715, session-fork.ts; 2.0.15 sends this one): "before" copies the messages
 * before it, "through" that one too.
 */
function forkPoint(data: Record<string, unknown>): { from?: string; through?: string } {
  const boundary = isRecord(data.boundary) ? data.boundary : {}
  const at = text(boundary.messageID)
  if (at !== undefined && boundary.type === "through") return { through: at }
  const from = text(data.from) ?? (boundary.type === "before" ? at : undefined)
  return from ? { from } : {}
}

/**
 * The fork a session's info names (2.0.15: `fork: { sessionID, boundary }`), for a server that has not heard the
 * fork's event (it started later, or the event is still on its way); undefined for a session that is no fork.
 */
export function v2ForkOf(raw: unknown): { parentID: string; from?: string; through?: string } | undefined {
  const info = isRecord(raw) && isRecord(raw.data) ? raw.data : raw
  const fork = isRecord(info) && isRecord(info.fork) ? info.fork : undefined
  const parentID = fork ? text(fork.sessionID) : undefined
  return fork && parentID ? { parentID, ...forkPoint(fork) } : undefined
}

/** A session.updated for the core: the rules it already had, and the revert now in effect. */
function withRevert(rules: HostEvent[], revert: Point | null): HostEvent[] {
  const known = rules.find((e) => e.type === "session.updated")
  const kept = known?.type === "session.updated" ? known.rules : []
  return [{ type: "session.updated", rules: kept, revert }]
}

/**
 * The messages a `session.context` answer shows: their ids (a message's own `id`, or its `info.id`), and the
 * compaction message that heads them when the host shows only the conversation after its last compaction
 * (2.0.15: the context starts at a `type: "compaction"` message; the message list keeps the older ones).
 */
export function v2Shown(messages: readonly unknown[]): ShownMessages {
  const ids = new Set<string>()
  for (const m of messages) {
    const id = isRecord(m) ? (text(m.id) ?? (isRecord(m.info) ? text(m.info.id) : undefined)) : undefined
    if (id !== undefined) ids.add(id)
  }
  const head = messages[0]
  const compaction = isRecord(head) && head.type === "compaction" ? text(head.id) : undefined
  return { ids, ...(compaction ? { compactedBefore: compaction } : {}) }
}

/** The host's agent list in 1.18's shape (`[{ name, permission: [{ permission, pattern, action }] }]`). */
export function v2AgentRules(raw: unknown): unknown[] | undefined {
  const list = Array.isArray(raw) ? raw : isRecord(raw) && Array.isArray(raw.data) ? raw.data : undefined
  if (list === undefined) return undefined
  return list.flatMap((agent) => {
    if (!isRecord(agent)) return []
    const name = text(agent.id) ?? text(agent.name)
    const rules = Array.isArray(agent.permissions) ? agent.permissions : undefined
    if (name === undefined || rules === undefined) return []
    const permission = rules.flatMap((rule) =>
      isRecord(rule) ? [{ permission: rule.action, pattern: rule.resource, action: rule.effect }] : [],
    )
    return [{ name, permission }]
  })
}

/**
 * The session's info in the shape the 1.18 decoders read: its id, its parent and its revert. A fork names its
 * source as `parentID` in the fork event, and (in later versions) under `fork.sessionID` in its info; the host
 * stores a fork with no parent (projector.ts@008d5715: `parent_id: null, fork_session_id`). That source is not a
 * parent (a fork is no subagent): `forkOf`, or the info's own `fork`, is never taken for one.
 */
export function v2SessionInfo(raw: unknown, forkOf: string | undefined): Record<string, unknown> | undefined {
  const info = isRecord(raw) && isRecord(raw.data) ? raw.data : raw
  if (!isRecord(info)) return undefined
  const parentID = text(info.parentID)
  const source = isRecord(info.fork) ? text(info.fork.sessionID) : undefined
  return {
    ...(text(info.id) ? { id: info.id } : {}),
    ...(parentID !== undefined && parentID !== forkOf && parentID !== source ? { parentID } : {}),
    ...(isRecord(info.revert) ? { revert: info.revert } : {}),
    ...(text(info.agent) ? { agent: info.agent } : {}),
  }
}

/**
 * What an event says of a session's turns that is no core event (turns.ts): a compaction started or ended, the
 * session's agent (2.0.15 publishes `session.created` with it; a session this event makes known skips the first
 * sight that would have read it), our synthetic message. `done`: the event says nothing else.
 */
export function v2TurnNotes(raw: unknown): { readonly notes: TurnNote[]; readonly done: boolean } {
  if (!isRecord(raw) || typeof raw.type !== "string") return { notes: [], done: false }
  const data = isRecord(raw.data) ? raw.data : undefined
  const sessionID = data?.sessionID
  if (raw.type.startsWith("session.compaction.")) {
    if (typeof sessionID !== "string") return { notes: [], done: false }
    if (raw.type === "session.compaction.started")
      return { notes: [{ type: "compaction", sessionID, running: true }], done: false }
    const over = raw.type === "session.compaction.ended" || raw.type === "session.compaction.failed"
    return { notes: over ? [{ type: "compaction", sessionID, running: false }] : [], done: false }
  }
  const agent = data?.agent
  const agentNote = (selected: boolean): TurnNote[] =>
    typeof sessionID === "string" && typeof agent === "string"
      ? [{ type: "agent", sessionID, agent, selected }]
      : []
  if (raw.type === "session.created" && data) return { notes: agentNote(false), done: false }
  if (raw.type === "session.agent.selected" && data) return { notes: agentNote(true), done: true }
  if (raw.type === "session.synthetic" && data) {
    const id = syntheticMessageId(raw)
    const ours =
      typeof sessionID === "string" && typeof data.text === "string" && isPluginText(data.text) && id
    return { notes: ours ? [{ type: "ours", sessionID, messageID: id }] : [], done: true }
  }
  return { notes: [], done: false }
}
