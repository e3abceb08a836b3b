// Which of the plugin's stored messages a later todo update has made stale, so that the server sends a
// one-line stub in their place (prompts.ts STALE_STUB). Pure: (state, history) -> state; the state is a
// memo of the rule over the history, so each request reads only the messages added since the last one.

/*
 * The rule, over the history a model request carries (oldest first):
 * - Ours: a text part of a user message that starts with the marker and is synthetic (a prelude, notice or
 *   reminder) or carries the /todo command's metadata (the command's reply). A part the user typed is never
 *   ours, even when it quotes the marker.
 * - A todo update: a completed todo tool part of an assistant message whose result says it changed the list
 *   (older results without that flag: a successful call that was not only `view`).
 * - Ours is stale when a later message holds a todo update. The update is the model's own answer, so a part
 *   the model has not answered is never stale.
 * - The decision depends on the history alone: a history that only grows never takes a stub back, so the
 *   request's prefix changes once per stale part and a provider's prompt cache keeps working after it. The
 *   same history read in another process gives the same stubs.
 * - The memo: the last message read (index and id) and the parts found so far. When that message is no
 *   longer at its index (a compaction cut the history, an undo removed its end) the history is read again from
 *   the start, which gives the rule's answer for the history that is left. Parts are kept only while their
 *   message is in the request, so the state is bounded by what fits in one request.
 */

import { isPluginText } from "./prompts.ts"
import { isRecord } from "./result.ts"
import { TODO_TOOL } from "./words.ts"

export interface HistoryPart {
  readonly id: string
  readonly type: string
  readonly text?: string
  readonly synthetic?: boolean
  /** The part carries the metadata the /todo command's reply is written with. */
  readonly command?: boolean
  /** Tool parts: the tool, and its state as the host stored it. */
  readonly tool?: string
  readonly status?: string
  readonly input?: unknown
  readonly metadata?: unknown
}

export interface HistoryMessage {
  readonly id: string
  readonly role: string
  readonly parts: readonly HistoryPart[]
}

/** The history of one request, read on demand: the adapter decodes only the messages asked for. */
export interface History {
  readonly length: number
  id(index: number): string
  at(index: number): HistoryMessage
}

/** One of our parts: where it is in the history. */
export interface PartRef {
  readonly index: number
  readonly messageID: string
  readonly partID: string
}

export interface StubState {
  /** The last message read; null before the first read. */
  readonly scanned: { readonly index: number; readonly id: string } | null
  /** Our parts with no todo update after them yet. */
  readonly fresh: readonly PartRef[]
  /** Our parts a later todo update made stale: stubbed in every request. */
  readonly stale: readonly PartRef[]
}

export function initialStubs(): StubState {
  return { scanned: null, fresh: [], stale: [] }
}

function isOurs(message: HistoryMessage, part: HistoryPart): boolean {
  return (
    message.role === "user" &&
    part.type === "text" &&
    typeof part.text === "string" &&
    isPluginText(part.text) &&
    (part.synthetic === true || part.command === true)
  )
}

function viewOnly(input: unknown): boolean {
  if (!isRecord(input)) return false
  if (input.op === "view") return true
  return (
    Array.isArray(input.ops) &&
    input.ops.length > 0 &&
    input.ops.every((op) => isRecord(op) && op.op === "view")
  )
}

/** A completed todo call that changed the list. */
export function isTodoUpdate(message: HistoryMessage, part: HistoryPart): boolean {
  if (message.role !== "assistant" || part.type !== "tool" || part.tool !== TODO_TOOL) return false
  if (part.status !== "completed" || !isRecord(part.metadata) || part.metadata.ok !== true) return false
  const changed = part.metadata.changed
  return typeof changed === "boolean" ? changed : !viewOnly(part.input)
}

/** The state for `history`: the memo carried on when its last message is still in place, else read again. */
export function stepStubs(state: StubState, history: History): StubState {
  if (history.length === 0) return state.scanned === null ? state : initialStubs()
  const last = state.scanned
  const carried = last !== null && last.index < history.length && history.id(last.index) === last.id
  if (carried && last.index === history.length - 1) return state
  const start = carried ? last.index + 1 : 0
  let fresh: PartRef[] = carried ? [...state.fresh] : []
  let stale: readonly PartRef[] = carried ? state.stale : []
  for (let index = start; index < history.length; index++) {
    const message = history.at(index)
    let updated = false
    for (const part of message.parts)
      if (isOurs(message, part)) fresh.push({ index, messageID: message.id, partID: part.id })
      else if (isTodoUpdate(message, part)) updated = true
    if (updated && fresh.length > 0) {
      stale = [...stale, ...fresh]
      fresh = []
    }
  }
  const end = history.length - 1
  return { scanned: { index: end, id: history.id(end) }, fresh, stale }
}

/** Our parts that are stale in `history`, by the rule alone (no memo). */
export function staleParts(history: History): readonly PartRef[] {
  return stepStubs(initialStubs(), history).stale
}
