// The RPC between the server plugin and the TUI plugin on OpenCode 2: one definition the server registers and
// the TUI calls and listens to, plus a defensive decoder for each payload. Host-free: the schemas are raw JSON
// Schema both sides pass to the host as they are (the host facts it relies on: docs/design.md, v2-rpc.ts).

import { STORED_LIMITS } from "../core/config.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import { isRecord } from "../core/list/result.ts"
import type { TodoList } from "../core/list/types.ts"
import { PLUGIN_ID } from "../core/list/words.ts"
import type { Variant } from "../core/session/toasts.ts"

/** The RPC id: the plugin's own id, so no other plugin's definition can collide with it. */
export const TODO_RPC_ID = PLUGIN_ID

const sessionID = { type: "string", minLength: 1, maxLength: 256 } as const
const text = { type: "string", maxLength: 65_536 } as const
// A reply to the person can be the whole list (`show`, `copy`): its length follows the user's limits (over 120,000
// characters at the default ones, with blocked reasons), and the host refuses an answer or an event longer than its
// schema allows (`rpc.invalid_output`, a failed emit; seen on 2.0.15). So a reply's text has no bound here.
const replyText = { type: "string" } as const
const VARIANTS: readonly Variant[] = ["info", "success", "warning", "error"]

/**
 * The definition. Methods:
 * - `list({ sessionID })` → `{ list }`: the session's list in effect, as the server holds it (a TUI attached to a
 *   server on another machine cannot read the store).
 * - `run({ sessionID, text })` → `{ ok, text }`: runs `/todo <text>` exactly as the server's `/todo` command does
 *   (no model turn; the model is told on its next turn); `text` is the reply for the person at the keyboard.
 * Events (each carries the session it is about):
 * - `notice` `{ sessionID?, title, message, variant }`: a toast (a reminder sent, a task blocked, a storage
 *   warning without a session).
 * - `changed` `{ sessionID }`: the session's list in effect changed (tool call, command, undo, redo, another
 *   process); the TUI reads it again (`list`, or the store).
 * - `reply` `{ sessionID, ok, text }`: the outcome of a `/todo` command run through the host's command list,
 *   for the person who typed it (the command itself returns nothing: it starts no model turn).
 */
export const TODO_RPC = {
  id: TODO_RPC_ID,
  methods: {
    list: {
      input: {
        type: "object",
        properties: { sessionID },
        required: ["sessionID"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: { list: { type: "array" } },
        required: ["list"],
        additionalProperties: false,
      },
    },
    run: {
      input: {
        type: "object",
        properties: { sessionID, text: { type: "string", maxLength: 4096 } },
        required: ["sessionID", "text"],
        additionalProperties: false,
      },
      output: {
        type: "object",
        properties: { ok: { type: "boolean" }, text: replyText },
        required: ["ok", "text"],
        additionalProperties: false,
      },
    },
  },
  events: {
    notice: {
      schema: {
        type: "object",
        properties: {
          sessionID,
          title: { type: "string", maxLength: 200 },
          message: text,
          variant: { type: "string", enum: VARIANTS },
        },
        required: ["title", "message", "variant"],
        additionalProperties: false,
      },
    },
    changed: {
      schema: {
        type: "object",
        properties: { sessionID },
        required: ["sessionID"],
        additionalProperties: false,
      },
    },
    reply: {
      schema: {
        type: "object",
        properties: { sessionID, ok: { type: "boolean" }, text: replyText },
        required: ["sessionID", "ok", "text"],
        additionalProperties: false,
      },
    },
  },
} as const

export type TodoRpcMethod = keyof typeof TODO_RPC.methods
export type TodoRpcEvent = keyof typeof TODO_RPC.events

export interface ListInput {
  readonly sessionID: string
}
export interface ListOutput {
  readonly list: TodoList
}
export interface RunInput {
  readonly sessionID: string
  readonly text: string
}
export interface RunOutput {
  readonly ok: boolean
  readonly text: string
}
export interface NoticeEvent {
  readonly sessionID?: string
  readonly title: string
  readonly message: string
  readonly variant: Variant
}
export interface ChangedEvent {
  readonly sessionID: string
}
export interface ReplyEvent {
  readonly sessionID: string
  readonly ok: boolean
  readonly text: string
}

/** What each event carries, by name. */
export interface TodoRpcEvents {
  readonly notice: NoticeEvent
  readonly changed: ChangedEvent
  readonly reply: ReplyEvent
}

/** The data of an event as a subscriber receives it: the host wraps it as `{ type, location, data }`. */
function dataOf(payload: unknown): Record<string, unknown> | undefined {
  if (!isRecord(payload)) return undefined
  return isRecord(payload.data) ? payload.data : payload
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined
}

/** A `notice` event's data (or the whole payload), or undefined when it is not one. */
export function decodeNotice(payload: unknown): NoticeEvent | undefined {
  const data = dataOf(payload)
  const message = str(data?.message)
  const variant = VARIANTS.find((v) => v === data?.variant)
  if (!data || message === undefined || variant === undefined) return undefined
  const id = str(data.sessionID)
  return { ...(id ? { sessionID: id } : {}), title: str(data.title) ?? "Todo", message, variant }
}

/** A `changed` event's data, or undefined. */
export function decodeChanged(payload: unknown): ChangedEvent | undefined {
  const id = str(dataOf(payload)?.sessionID)
  return id === undefined ? undefined : { sessionID: id }
}

/** A `reply` event's data (also a `run` method's answer with the session added), or undefined. */
export function decodeReply(payload: unknown): ReplyEvent | undefined {
  const data = dataOf(payload)
  const id = str(data?.sessionID)
  if (!data || id === undefined || typeof data.text !== "string" || typeof data.ok !== "boolean")
    return undefined
  return { sessionID: id, ok: data.ok, text: data.text }
}

/** A `run` method's answer, or undefined. */
export function decodeRunOutput(value: unknown): RunOutput | undefined {
  if (!isRecord(value) || typeof value.ok !== "boolean" || typeof value.text !== "string") return undefined
  return { ok: value.ok, text: value.text }
}

/** A `list` answer's list (bare or wrapped in `data`), parsed as the store would; undefined when not one. */
export function decodeListOutput(value: unknown): TodoList | undefined {
  const body = isRecord(value) && !("list" in value) && isRecord(value.data) ? value.data : value
  if (!isRecord(body) || !("list" in body)) return undefined
  const parsed = parseSnapshot(body.list, STORED_LIMITS)
  return parsed.ok ? parsed.value : undefined
}
