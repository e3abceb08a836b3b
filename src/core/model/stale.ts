// Which parts of a request's history go out as a one-line stub instead of their stored text. These are our
// notices a later todo update made stale, and todo results a later todo result superseded (the stub texts
// live in prompts.ts). Pure: (state, history) -> state; the state is a memo of the rule over the history, so
// each request reads only the messages added since the last one.

/*
 * The rule, over the history a model request carries (oldest first; parts in message order):
 * - Ours: a text part of a user message that starts with the marker and is synthetic (a prelude, notice or
 *   reminder) or carries the /todo command's metadata (the command's reply). A part the user typed is never
 *   ours, even when it quotes the marker.
 * - A todo update: a completed todo tool part of an assistant message whose result says it changed the list
 *   (older results without that flag: a successful call that was not only `view`).
 * - Ours is stale when a later message holds a todo update. The update is the model's own answer, so a part
 *   the model has not answered is never stale.
 * - A todo result: a completed todo tool part of an assistant message whose metadata says whether the call
 *   succeeded (`ok`). It is superseded when a later todo result succeeded, whatever that call did (a `view`
 *   included): the later result is the newer word on the list, and the model's own calls, arguments kept in
 *   full, still say what it did at every step. So the newest todo result always goes out in full, and so does
 *   every failed call after the last success (the model has not got past it yet). A superseded failure goes
 *   out as a stub that says the call failed and changed nothing, so the history never suggests it worked.
 *   Calls the host itself failed (status `error`, e.g. a refused permission) are the host's text: left alone.
 * - Arguments are never stubbed: they are the model's own words, and a plan call's `list` is the only record
 *   left in the request of the plan as the model wrote it once its result is a stub.
 * - The decision depends on the history alone: a history that only grows never takes a stub back, so the
 *   request's prefix changes once per stubbed part and a provider's prompt cache keeps working after it. The
 *   same history read in another process gives the same stubs.
 * - What it costs a prompt cache: a todo result goes out in full in the request that first carries it and as
 *   a stub from the next todo call on, so at each todo call the cached prefix ends where the previous result
 *   was, once: that request writes the stub to the cache instead of reading the full result from it (at
 *   usual prices, a cache write costs about 12 reads). Every later request then reads the stub, a fifth of
 *   an average result, so the write has paid for itself within a few requests, and a session of hundreds of
 *   requests pays the model for a fraction of the history it would carry otherwise.
 * - The memo: the last message read (index and id), our parts not yet stale, the todo results not yet
 *   superseded, and the stubbed parts. When the last message read is no longer at its index (a compaction cut
 *   the history, an undo removed its end) the history is read again from the start, which gives the rule's
 *   answer for the history that is left. Parts are kept only while their message is in the request, so the
 *   state is bounded by what fits in one request.
 */

import { isRecord } from "../list/result.ts"
import { TODO_TOOL } from "../list/words.ts"
import { isPluginText, STALE_FAILED_STUB, STALE_RESULT_STUB, STALE_STUB } from "./prompts.ts"

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

/**
 * What a stubbed part held, which decides its stub and the field it replaces: one of our notices (a text
 * part's text), a todo call's result, or a failed todo call's error (a tool part's output).
 */
export type StubKind = "notice" | "result" | "failed"

/** A part the rule tracks: where it is in the history, and what it holds. */
export interface PartRef {
  readonly index: number
  readonly messageID: string
  readonly partID: string
  readonly kind: StubKind
}

export interface StubState {
  /** The last message read; null before the first read. */
  readonly scanned: { readonly index: number; readonly id: string } | null
  /** Our parts with no todo update after them yet. */
  readonly fresh: readonly PartRef[]
  /** Todo results no later successful todo result supersedes yet: the newest success and failures after it. */
  readonly results: readonly PartRef[]
  /** Parts stubbed in every request: our stale parts and superseded todo results, in the order they went stale. */
  readonly stale: readonly PartRef[]
}

export function initialStubs(): StubState {
  return { scanned: null, fresh: [], results: [], stale: [] }
}

const STUB_TEXTS: Readonly<Record<StubKind, string>> = {
  notice: STALE_STUB,
  result: STALE_RESULT_STUB,
  failed: STALE_FAILED_STUB,
}

/** The text a stubbed part goes out with. */
export function stubText(kind: StubKind): string {
  return STUB_TEXTS[kind]
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

/** A completed todo call's outcome as its result's metadata states it; undefined for any other part. */
export function todoOutcome(message: HistoryMessage, part: HistoryPart): "ok" | "failed" | undefined {
  if (message.role !== "assistant" || part.type !== "tool" || part.tool !== TODO_TOOL) return undefined
  if (part.status !== "completed" || !isRecord(part.metadata)) return undefined
  const ok = part.metadata.ok
  return ok === true ? "ok" : ok === false ? "failed" : undefined
}

/** A completed todo call that changed the list. */
export function isTodoUpdate(message: HistoryMessage, part: HistoryPart): boolean {
  if (todoOutcome(message, part) !== "ok" || !isRecord(part.metadata)) return false
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
  let results: PartRef[] = carried ? [...state.results] : []
  // Appended to, then joined to the stale parts once: the copy is paid once per request, not per part.
  const staled: PartRef[] = []
  for (let index = start; index < history.length; index++) {
    const message = history.at(index)
    let updated = false
    for (const part of message.parts) {
      const ref = (kind: StubKind): PartRef => ({ index, messageID: message.id, partID: part.id, kind })
      if (isOurs(message, part)) {
        fresh.push(ref("notice"))
        continue
      }
      const outcome = todoOutcome(message, part)
      if (outcome === undefined) continue
      if (outcome === "ok") {
        staled.push(...results)
        results = []
        if (isTodoUpdate(message, part)) updated = true
      }
      results.push(ref(outcome === "ok" ? "result" : "failed"))
    }
    if (updated && fresh.length > 0) {
      staled.push(...fresh)
      fresh = []
    }
  }
  const base = carried ? state.stale : []
  const stale = staled.length > 0 ? [...base, ...staled] : base
  const end = history.length - 1
  return { scanned: { index: end, id: history.id(end) }, fresh, results, stale }
}

/** The parts stubbed in `history`, by the rule alone (no memo). */
export function staleParts(history: History): readonly PartRef[] {
  return stepStubs(initialStubs(), history).stale
}
