// A model request's messages on OpenCode 2 (`{ role, content: [...] }`): read as the history the stale rule reads
// and as a transcript the fork rules line up, and written back: stubs, what the prompt said, our notices and the
// summarizer's context, in this request only. Shapes are read defensively and nothing here throws.

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
import type { TurnAnswer } from "./turns.ts"

/** A non-empty string, else undefined. */
export function nonEmpty(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
}
const text = nonEmpty

interface V2Part {
  type?: unknown
  id?: unknown
  name?: unknown
  input?: unknown
  text?: unknown
  result?: unknown
  metadata?: unknown
}

export function partsOf(message: unknown): V2Part[] {
  return isRecord(message) && Array.isArray(message.content) ? (message.content as V2Part[]) : []
}

export function roleOf(message: unknown): string {
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

/**
 * The list for the summarizer: a system part where the event has a system, else the end of its prompt. A hook that
 * carries only the prompt (`{ sessionID, reason, context: string[], prompt }`) has its `context` built into the
 * prompt already, and the request is the prompt alone as one user message (packages/core/src/session/compaction.ts,
 * the version with that hook: `messages: [Message.user(hooked.prompt)]`), so text added to `context` is lost.
 */
function addForSummarizer(event: Record<string, unknown>, text: string): void {
  if (!text) return
  if (Array.isArray(event.system)) event.system.push({ type: "text", text })
  else if (typeof event.prompt === "string") event.prompt = `${event.prompt}\n\n${text}`
  else if (Array.isArray(event.context)) event.context.push(text)
}

/** The messages of a request-shaped hook event (none for a compaction hook that carries only the prompt). */
export function eventMessages(event: Record<string, unknown>): unknown[] {
  return Array.isArray(event.messages) ? (event.messages as unknown[]) : []
}

/** The host's own prompt in a request-shaped event: its first system part, where that is text. */
export function firstSystemText(event: Record<string, unknown>): string | undefined {
  const first = Array.isArray(event.system) ? event.system[0] : undefined
  return isRecord(first) && typeof first.text === "string" ? first.text : undefined
}

/** Writes the runtime's answer to a request (or the summarizer's) into the hook's event, for this request only. */
export function writeTurnAnswer(event: Record<string, unknown>, answer: TurnAnswer): void {
  const steered = answer.system?.[0]
  const first = Array.isArray(event.system) ? event.system[0] : undefined
  if (steered !== undefined && isRecord(first) && steered !== first.text) first.text = steered
  if (answer.summarizer !== undefined) addForSummarizer(event, answer.summarizer)
  const messages = eventMessages(event)
  applyV2Stubs(messages, answer.stale)
  // What was said with the prompt stays on the prompt; only what is new goes last.
  const said = answer.said
  const onPrompt = said !== undefined && attachToPromptV2(messages, said.text, said.messageID)
  const text = [onPrompt ? undefined : said?.text, answer.inject].filter(Boolean).join("\n\n")
  if (text) injectV2(messages, text)
}
