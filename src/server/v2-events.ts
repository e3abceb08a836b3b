// Decodes what OpenCode 2 sends into the core's values: its bus events (`{ type, data }`) into HostEvent, the
// messages of a model request (`{ role, content: [...] }`) into the history the stale rule reads, its agents'
// rules and its session info into the shapes the 1.18 decoders already read; and writes stubs and our notices
// back into a request. Shapes are read defensively and nothing here throws.
//
// Host facts (anomalyco/opencode, read, not run):
// - Event names and payloads: packages/schema/src/session-event.ts@03130971 (session.execution.*, session.step.*,
//   session.text.ended, session.input.admitted (session.prompt.admitted in a newer schema; 2.0.15 sends
//   session.inbox.delivered instead), session.revert.staged|cleared|committed, session.forked,
//   session.deleted, session.compaction.ended); packages/schema/src/permission.ts@047544f0 and question.ts@29df7523
//   (permission.v2.asked|replied, question.v2.asked|replied|rejected); the payload sits in `data`
//   (packages/plugin/src/promise/adapter.ts@07bc181c encodes each event with the host's event schema).
// - Revert state `{ messageID, partID? }`: packages/schema/src/revert.ts@9e3d245c; session info `parentID`,
//   `revert`: packages/schema/src/session.ts@06f9d1a6.
// - Agent rules `{ action, resource, effect }` under `permissions`, agents named by `id`:
//   packages/schema/src/agent.ts@3ece701d, permission.ts@047544f0.
// - Request messages: packages/ai/src/schema/messages.ts@2b33fbee (roles system|user|assistant|tool; tool-call
//   `{ id, name, input }` in assistant messages, tool-result `{ id, name, result: { type, value } }` in tool
//   messages; an optional message `id`).

import type { ShownMessages } from "../core/history/effect.ts"
import type { Point } from "../core/history/history.ts"
import type { Transcript, TranscriptMessage } from "../core/history/rebuild.ts"
import { hostOrder } from "../core/history/spans.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import {
  type History,
  type HistoryMessage,
  type HistoryPart,
  type PartRef,
  stubText,
} from "../core/model/stale.ts"
import type { HostEvent } from "../core/session/session.ts"
import { hostRevert } from "../core/view/tui-protocol.ts"

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

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
}

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

/**
 * A `session.context` answer as the fork rules read a conversation (core/history/fork.ts): each message with an
 * id, its kind (`type`, or a request message's `role`), when it was written (a fork's copies keep their source's
 * `time.created`) and its todo calls' ids (a stored `tool` part, or a request's `tool-call`). Copies have ids of
 * their own on 2.0.15 (`<fork event's message id>_<seq>`), so a fork's history is anchored at them.
 */
export function v2Transcript(messages: readonly unknown[]): Transcript {
  return messages.flatMap((m): TranscriptMessage[] => {
    const id = isRecord(m) ? text(m.id) : undefined
    if (!isRecord(m) || id === undefined) return []
    const created = isRecord(m.time) && typeof m.time.created === "number" ? m.time.created : undefined
    const calls = partsOf(m).flatMap((p) =>
      (p.type === "tool" || p.type === "tool-call") && p.name === TODO_TOOL && typeof p.id === "string"
        ? [p.id]
        : [],
    )
    return [{ id, role: text(m.type) ?? roleOf(m), created, calls, lists: [] }]
  })
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

// ---------------------------------------------------------------------------------------------------------
// A model request's messages

interface V2Part {
  type?: unknown
  id?: unknown
  name?: unknown
  input?: unknown
  text?: unknown
  result?: unknown
  metadata?: unknown
}

function partsOf(message: unknown): V2Part[] {
  return isRecord(message) && Array.isArray(message.content) ? (message.content as V2Part[]) : []
}

function roleOf(message: unknown): string {
  return isRecord(message) && typeof message.role === "string" ? message.role : "unknown"
}

/**
 * What a todo result says of itself. OpenCode 2 does not carry a tool's metadata into the request
 * (to-llm-message.ts@0010d84d builds a tool result from the stored text only), so this is read from the result's
 * text: our tool's failures all start with "Error" (format.ts, todo-tool.ts). Metadata is used when a host sends it.
 */
function resultMetadata(part: V2Part): unknown {
  if (isRecord(part.metadata) && typeof part.metadata.ok === "boolean") return part.metadata
  const result = isRecord(part.result) ? part.result : {}
  if (result.type === "error") return undefined
  return { ok: !resultText(result.value).startsWith("Error") }
}

/** The text of a result value: a string (`text`), or the first text of a content list (`content`). */
function resultText(value: unknown): string {
  if (typeof value === "string") return value
  if (!Array.isArray(value)) return ""
  const first = value.find((item) => isRecord(item) && item.type === "text" && typeof item.text === "string")
  return isRecord(first) ? String(first.text) : ""
}

/** A request message's id, or one made of its place and role (the host's tool messages carry none). */
function messageIdAt(messages: readonly unknown[], index: number): string {
  const message = messages[index]
  const own = isRecord(message) ? text(message.id) : undefined
  return own ?? `v2:${index}:${roleOf(message)}:${partsOf(message).length}`
}

/** A part's id, or one made of its message's id and its place (text parts carry none on 2). */
function partIdAt(messageID: string, part: V2Part, i: number): string {
  return text(part.id) ?? `${messageID}:${i}`
}

/**
 * The id of the message OpenCode 2 makes of a `session.synthetic` event: "msg" + the event id after its "evt"
 * (packages/core/src/session/message-id.ts@4d6e4690 `fromEvent`, used for synthetic messages by the host's
 * message updater). Undefined when the event carries no such id.
 */
export function syntheticMessageId(raw: unknown): string | undefined {
  const id = isRecord(raw) ? text(raw.id) : undefined
  return id?.startsWith("evt") ? `msg${id.slice(3)}` : undefined
}

/**
 * Whether the execution an event ends (`session.execution.*`) ended before the prompt `messageID` was sent. 2.0.15
 * mints event and message ids from one ascending generator (an execution's idle message has its end event's id,
 * "msg" for "evt"), and its events can reach the plugin after the hook of a later prompt: a redo wakes the
 * session, and that execution's end comes after the hook of a prompt sent right after the redo (seen on the real
 * 2.0.15). False when either id is unknown.
 */
export function endedBefore(raw: unknown, messageID: string | undefined): boolean {
  const id = syntheticMessageId(raw)
  return id !== undefined && messageID !== undefined && hostOrder(id, messageID) < 0
}

/**
 * The messages of a request as the stale rule reads them. A tool message's results count as the assistant's
 * (1.18 keeps a call and its result in one part of the assistant message); a message without an id is named
 * by its place and role, so a cut history still reads as changed. The request shows a synthetic message as a
 * plain user message (to-llm-message.ts@0010d84d): `synthetic` holds the ids of ours, whose text parts are
 * then read as synthetic (a part the user typed never is).
 */
export function v2History(messages: readonly unknown[], synthetic?: ReadonlySet<string>): History {
  const inputs = new Map<string, unknown>()
  const id = (index: number) => messageIdAt(messages, index)
  return {
    length: messages.length,
    id,
    at(index): HistoryMessage {
      const message = messages[index]
      const role = roleOf(message)
      const messageID = id(index)
      const ours = role === "user" && synthetic?.has(messageID) === true
      const parts: HistoryPart[] = partsOf(message).map((part, i) => {
        const partID = partIdAt(messageID, part, i)
        if (part.type === "tool-call" && typeof part.name === "string") {
          inputs.set(partID, part.input)
          return { id: `call:${partID}`, type: "tool-call", tool: part.name }
        }
        if (part.type === "tool-result" && typeof part.name === "string")
          return {
            id: partID,
            type: "tool",
            tool: part.name,
            status: isRecord(part.result) && part.result.type === "error" ? "error" : "completed",
            input: inputs.get(partID),
            metadata: part.name === TODO_TOOL ? resultMetadata(part) : undefined,
          }
        return {
          id: partID,
          type: typeof part.type === "string" ? part.type : "unknown",
          ...(typeof part.text === "string" ? { text: part.text } : {}),
          ...(ours ? { synthetic: true } : {}),
        }
      })
      return { id: messageID, role: role === "tool" ? "assistant" : role, parts }
    },
  }
}

/**
 * Puts each stub in place, in this request only (the host keeps its own): a superseded todo result's result, and
 * the text of one of our reminders a later todo update made stale.
 */
export function applyV2Stubs(messages: readonly unknown[], refs: readonly PartRef[]): void {
  for (const ref of refs) {
    const messageID = messageIdAt(messages, ref.index)
    const part = partsOf(messages[ref.index]).find((p, i) => partIdAt(messageID, p, i) === ref.partID)
    if (!part) continue
    if (ref.kind === "notice") {
      if (part.type === "text") part.text = stubText(ref.kind)
    } else if (part.type === "tool-result") part.result = { type: "text", value: stubText(ref.kind) }
  }
}

/**
 * Adds `text` to the turn's prompt in this request only: the user message `messageID` (the prompt hook's), else the
 * last user message. Text said with the prompt stays there through the turn's later requests, as on 1.18 (a
 * synthetic part of the prompt); pushed after the tool results it would read as the user's newest words, and a
 * model on the real OpenCode 2.0.15 planned again on each one. False when the request has no user message.
 */
export function attachToPromptV2(messages: unknown[], text: string, messageID?: string): boolean {
  const prompt =
    messages.find(
      (m) => roleOf(m) === "user" && messageID !== undefined && isRecord(m) && m.id === messageID,
    ) ?? messages.findLast((m) => roleOf(m) === "user")
  if (!isRecord(prompt) || !Array.isArray(prompt.content)) return false
  prompt.content.push({ type: "text", text })
  return true
}

/**
 * Adds `notice` as the newest user content of this request only: to the last message when it is the user's,
 * else as a new user message built the way the host built its others.
 */
export function injectV2(messages: unknown[], notice: string): void {
  const last = messages.at(-1)
  const part = { type: "text", text: notice }
  if (roleOf(last) === "user" && isRecord(last) && Array.isArray(last.content)) {
    last.content.push(part)
    return
  }
  const fresh = { role: "user", content: [part] }
  try {
    const Make = isRecord(last) ? (last.constructor as new (input: unknown) => unknown) : undefined
    messages.push(Make && Make !== Object ? new Make(fresh) : fresh)
  } catch {
    messages.push(fresh)
  }
}

/** What a per-request session hook's event is for: the agent's own turn, the summarizer's request, or an aside. */
export type V2RequestRole = "primary" | "summarizer" | "aside"

/**
 * The role of a request-shaped hook event. Where the host names it (`kind`: "primary" | "compaction" | "title" |
 * "generate", packages/plugin/src/promise/session.ts@03545fd3) that decides, and a kind not known here is an aside
 * (nothing of ours goes into a request we cannot place). Without a kind (session.ts@ee2e318e: one `context` hook for
 * loop steps, compaction summaries and generation) the event's agent is `contextAgentID ?? agentID` (a request
 * preparation seen without its repository or commit; the summarizer's `agentID` is "compaction", compaction.ts
 * @031a4a9c): the hidden `compaction` agent's is the summarizer's, `title` and `summary` are asides (the
 * host's hidden agents, packages/core/src/plugin/agent.ts@054d7458). A compaction that names the session's own agent
 * instead (compaction.ts@031a4a9c sets `contextAgentID` to it) is told by `compacting`: the host said it started one
 * (`session.compaction.started`, published before its request) and has not said it ended. A transient generation
 * (an earlier generate.ts; the newest has its own `generate` hook, generate.ts@05428957) names the session's agent
 * and offers no tools: the caller leaves a request
 * that does not offer `todo` alone.
 */
export function v2RequestRole(event: Record<string, unknown>, compacting = false): V2RequestRole {
  const kind = event.kind
  if (typeof kind === "string") {
    if (kind === "primary") return "primary"
    return kind === "compaction" ? "summarizer" : "aside"
  }
  if (event.agent === "compaction" || compacting) return "summarizer"
  return event.agent === "title" || event.agent === "summary" ? "aside" : "primary"
}
