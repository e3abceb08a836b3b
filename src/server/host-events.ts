// Decodes what the OpenCode 1.18 host sends into the core's HostEvent values: bus events, message parts and
// who a prompt went to; and writes the stale rule's stubs (core/model/stale.ts) into a request's parts. Host
// shapes are read defensively: an event the session step does not use is ignored, one it uses that lacks a
// field it needs is reported as malformed, and nothing here throws.

import { isCommandMark } from "../core/history/placement.ts"
import { COMMAND_PART_KEY } from "../core/list/carried.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import {
  type History,
  type HistoryMessage,
  type HistoryPart,
  type PartRef,
  stubText,
} from "../core/model/stale.ts"
import { decodeRules } from "../core/session/permission.ts"
import type { HostEvent, ModelRef, UserRef } from "../core/session/session.ts"
import type { MessagePart } from "../core/session/tracker.ts"
import { hostRevert } from "../shared/host-revert.ts"

export type DecodedEvent =
  | { readonly sessionID: string; readonly event: HostEvent }
  | { readonly malformed: string }
  /** Not an event the session step uses. */
  | undefined

// The host's name for an error caused by the user aborting the turn.
const ABORTED = "MessageAbortedError"

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
}

function about(sessionID: unknown, event: HostEvent): DecodedEvent {
  const id = text(sessionID)
  return id === undefined ? undefined : { sessionID: id, event }
}

/** One event of the host's bus (the `event` hook's `event`). */
export function decodeBusEvent(raw: unknown): DecodedEvent {
  if (!isRecord(raw) || typeof raw.type !== "string") return undefined
  const type = raw.type
  const props = isRecord(raw.properties) ? raw.properties : {}
  const info = isRecord(props.info) ? props.info : undefined
  switch (type) {
    case "session.created":
    case "session.deleted": {
      const id = text(info?.id)
      if (id === undefined) return { malformed: `${type} without info.id` }
      const parentID = text(info?.parentID)
      if (type === "session.deleted") return { sessionID: id, event: { type } }
      const rules = decodeRules(info?.permission)
      return {
        sessionID: id,
        event: { type, ...(parentID === undefined ? {} : { parentID }), ...(rules ? { rules } : {}) },
      }
    }
    case "session.updated": {
      const id = text(info?.id)
      if (id === undefined) return { malformed: `${type} without info.id` }
      return { sessionID: id, event: decodeSessionInfo(info ?? {}) }
    }
    case "message.removed":
    case "message.part.removed": {
      const messageID = text(props.messageID)
      if (messageID === undefined) return { malformed: `${type} without messageID` }
      const partID = type === "message.part.removed" ? text(props.partID) : undefined
      if (type === "message.part.removed" && partID === undefined)
        return { malformed: `${type} without partID` }
      return about(props.sessionID, {
        type: "message.removed",
        messageID,
        ...(partID === undefined ? {} : { partID }),
      })
    }
    case "session.compacted":
    case "session.idle":
      return about(props.sessionID, { type })
    case "session.error": {
      const error = isRecord(props.error) ? props.error : undefined
      return about(props.sessionID, { type, aborted: error?.name === ABORTED })
    }
    case "message.updated": {
      if (!info) return { malformed: `${type} without info` }
      if (info.role !== "assistant") return undefined
      const id = text(info.id)
      if (id === undefined) return { malformed: `${type} without info.id` }
      const error = isRecord(info.error) ? info.error : undefined
      return about(info.sessionID, {
        type: "assistant.updated",
        messageID: id,
        endedOnToolCalls: info.finish === "tool-calls",
        ...(error ? { error: error.name === ABORTED ? "aborted" : "failed" } : {}),
      })
    }
    case "message.part.updated": {
      const part = props.part
      if (!isRecord(part)) return { malformed: `${type} without part` }
      if (typeof part.messageID !== "string") return undefined
      if (part.type === "tool") return todoPart(part)
      if (part.type !== "text" || typeof part.text !== "string") return undefined
      return about(part.sessionID, { type: "part.text", messageID: part.messageID, text: part.text })
    }
    case "permission.asked":
    case "question.asked":
      return about(props.sessionID, { type: "ask.opened", id: String(props.id) })
    case "permission.replied":
    case "question.replied":
    case "question.rejected":
      return about(props.sessionID, { type: "ask.closed", id: String(props.requestID ?? props.id) })
    default:
      return undefined
  }
}

/**
 * A session's info (a session.updated event, or the host's answer to a lookup): its rules, and the revert
 * in progress. The host sends the whole session: no permission means no rules of its own, no revert none.
 */
export function decodeSessionInfo(
  info: Record<string, unknown>,
): Extract<HostEvent, { type: "session.updated" }> {
  return {
    type: "session.updated",
    rules: decodeRules(info.permission) ?? [],
    revert: hostRevert(info) ?? null,
  }
}

/** A part of the todo tool: which part holds which call (the tool learns its own part id from it). */
function todoPart(part: Record<string, unknown>): DecodedEvent {
  if (part.tool !== TODO_TOOL) return undefined
  const callID = text(part.callID)
  const partID = text(part.id)
  if (callID === undefined || partID === undefined) return undefined
  return about(part.sessionID, { type: "todo.part", callID, messageID: part.messageID as string, partID })
}

/**
 * The mark of the /todo command whose reply part a user message carries (hooks.ts writes it into the part's
 * metadata, and the host keeps the metadata); undefined for any other message.
 */
export function commandMarkOf(parts: readonly unknown[]): string | undefined {
  for (const part of parts) {
    const metadata =
      isRecord(part) && part.type === "text" && isRecord(part.metadata) ? part.metadata : undefined
    const carried = metadata?.[COMMAND_PART_KEY]
    const mark = isRecord(carried) ? carried.command : undefined
    if (isCommandMark(mark)) return mark
  }
  return undefined
}

/** The parts of a user message as the tracker classifies them. */
export function decodeParts(parts: readonly unknown[]): MessagePart[] {
  return parts.map((part) => {
    const p = isRecord(part) ? part : {}
    return {
      type: typeof p.type === "string" ? p.type : "unknown",
      ...(typeof p.text === "string" ? { text: p.text } : {}),
      ...(p.synthetic === true ? { synthetic: true } : {}),
      ...(p.ignored === true ? { ignored: true } : {}),
    }
  })
}

function modelRef(value: unknown): ModelRef | undefined {
  return isRecord(value) && typeof value.providerID === "string" && typeof value.modelID === "string"
    ? { providerID: value.providerID, modelID: value.modelID }
    : undefined
}

/** Who a prompt went to: the chat.message hook's input first, then the message it carries. */
export function decodeUser(input: Record<string, unknown>, message: unknown): UserRef {
  const m = isRecord(message) ? message : {}
  const agent = text(input.agent) ?? text(m.agent)
  const model = modelRef(input.model) ?? modelRef(m.model)
  const variant = text(input.variant) ?? text(m.variant)
  return {
    ...(agent === undefined ? {} : { agent }),
    ...(model === undefined ? {} : { model }),
    ...(variant === undefined ? {} : { variant }),
  }
}

/** A prompt's `tools` map (tool name -> on or off), when the message has one. */
export function decodeTools(message: unknown): Readonly<Record<string, boolean>> | undefined {
  const tools = isRecord(message) ? message.tools : undefined
  if (!isRecord(tools)) return undefined
  const map: Record<string, boolean> = {}
  for (const [name, on] of Object.entries(tools)) if (typeof on === "boolean") map[name] = on
  return map
}

function historyPart(raw: unknown): HistoryPart {
  const p = isRecord(raw) ? raw : {}
  const state = isRecord(p.state) ? p.state : {}
  const metadata = isRecord(p.metadata) ? p.metadata : undefined
  return {
    id: typeof p.id === "string" ? p.id : "",
    type: typeof p.type === "string" ? p.type : "unknown",
    ...(typeof p.text === "string" ? { text: p.text } : {}),
    ...(p.synthetic === true ? { synthetic: true } : {}),
    ...(metadata !== undefined && COMMAND_PART_KEY in metadata ? { command: true } : {}),
    ...(typeof p.tool === "string"
      ? {
          tool: p.tool,
          ...(typeof state.status === "string" ? { status: state.status } : {}),
          input: state.input,
          metadata: state.metadata,
        }
      : {}),
  }
}

/** The messages of experimental.chat.messages.transform as the stale rule reads them, decoded on demand. */
export function decodeMessages(messages: readonly { info: unknown; parts: readonly unknown[] }[]): History {
  const id = (index: number) => {
    const info = messages[index]?.info
    return isRecord(info) && typeof info.id === "string" ? info.id : ""
  }
  return {
    length: messages.length,
    id,
    at(index): HistoryMessage {
      const message = messages[index]
      const info = isRecord(message?.info) ? message.info : {}
      return {
        id: id(index),
        role: typeof info.role === "string" ? info.role : "unknown",
        parts: Array.isArray(message?.parts) ? message.parts.map(historyPart) : [],
      }
    },
  }
}

/**
 * Puts each stubbed part's stub in place of its text (our notices) or its output (todo results), in place:
 * the host builds the request from these parts and never writes them back (the stored part keeps its text).
 * The host loads every request's parts afresh, so each stub is written again each time: one lookup per
 * stubbed part, well under a microsecond each.
 */
export function applyStubs(
  messages: readonly { parts: readonly unknown[] }[],
  refs: readonly PartRef[],
): void {
  for (const ref of refs) {
    const part = messages[ref.index]?.parts.find((p) => isRecord(p) && p.id === ref.partID)
    if (!isRecord(part)) continue
    if (ref.kind === "notice") {
      if (part.type === "text") part.text = stubText(ref.kind)
    } else if (part.type === "tool" && isRecord(part.state) && part.state.status === "completed")
      part.state.output = stubText(ref.kind)
  }
}
