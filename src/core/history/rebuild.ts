// The list a session's own conversation shows, for a session that has no record here (a fork, an import, a
// record left on another machine). It is read back from the lists its todo results and /todo replies carry.
// Pure: the adapter decodes the host's messages into a Transcript and stores what this decides.

/*
 * The rules.
 * - The newest part that carries a list decides: a completed `todo` tool part (its result's metadata) or a
 *   /todo command's reply. Older parts only stand in when the newest cannot be read.
 * - A transcript is text from outside (an exported file, another machine), so a carried list passes the
 *   checks an import passes: the configured counts and lengths, and the character rule on every text.
 *   Counts are checked before the list is walked, so a huge array costs nothing.
 * - A list of a newer format than ours is not read (core/list/carried.ts CARRIED_LIST_VERSION).
 * - What the model's own history shows is the newest carried list, when it can be read; a list rebuilt from
 *   an older part differs from it, and the model is told (tracker.ts "carried").
 */

import { type CarriedList, newerCarried } from "../list/carried.ts"
import { describeValue, parseSnapshot } from "../list/parse.ts"
import { fail, isRecord, ok, type Result } from "../list/result.ts"
import type { Limits, TodoList } from "../list/types.ts"
import { hostileText, quotePreview } from "../list/words.ts"
import { currentList, historyFrom, type ListHistory, listFingerprint, sameList } from "./history.ts"
import { recordCall, recordEdit, settleEdit } from "./placement.ts"

/** A list a part carries, and the call id of the todo call whose result it is (none for a /todo reply). */
export interface PartList extends CarriedList {
  readonly callID?: string
}

/** One message of a session's history, as the adapter decodes it from the host. */
export interface TranscriptMessage {
  readonly id: string
  readonly role: string
  /** When the message was first written (ms); a fork's copies keep their source's. */
  readonly created: number | undefined
  /** The call ids of its `todo` tool parts, in order. */
  readonly calls: readonly string[]
  /** The ids of those parts, in the same order, where the host gave them (a fork's copies have new ones). */
  readonly parts?: readonly (string | undefined)[]
  /** The lists its parts carry, in part order. */
  readonly lists: readonly PartList[]
}

export type Transcript = readonly TranscriptMessage[]

export type TranscriptList =
  /** No part carries a list: the session never had one here. */
  | { readonly kind: "none" }
  | {
      readonly kind: "found"
      readonly list: TodoList
      /** The list the newest carrying part shows the model; null when that part could not be read. */
      readonly shown: TodoList | null
      /** Why newer carried lists were passed over, one line each. */
      readonly skipped: readonly string[]
      /** The lists the conversation reached, oldest first, ending with `list`: the new record's history. */
      readonly reached: readonly Reached[]
    }
  /** Lists are carried, and none can be read. */
  | { readonly kind: "unreadable"; readonly skipped: readonly string[] }

/** Reads one carried list as an import would: its format, its counts, then every text. */
export function readCarried(carried: CarriedList, limits: Limits): Result<TodoList> {
  if (newerCarried(carried))
    return fail(`it was written by a newer plugin version (list format ${String(carried.version)})`)
  const raw = carried.list
  if (!Array.isArray(raw)) return fail(`the list is ${describeValue(raw)}, not an array of phases`)
  if (raw.length > limits.maxPhases)
    return fail(`the list has ${raw.length} phases; the limit is ${limits.maxPhases}`)
  let tasks = 0
  for (const phase of raw) if (isRecord(phase) && Array.isArray(phase.tasks)) tasks += phase.tasks.length
  if (tasks > limits.maxTasks) return fail(`the list has ${tasks} tasks; the limit is ${limits.maxTasks}`)
  const parsed = parseSnapshot(raw, limits)
  if (!parsed.ok) return parsed
  for (const phase of parsed.value) {
    const texts = [phase.name, ...phase.tasks.flatMap((t) => (t.blocker ? [t.text, t.blocker] : [t.text]))]
    for (const text of texts) {
      const hostile = hostileText(text)
      if (hostile) return fail(`${quotePreview(text)} ${hostile}`)
    }
  }
  return ok(parsed.value)
}

/** A list the conversation reached at a message: after its todo call `callID`, or after the message. */
export interface Reached {
  readonly message: string
  readonly callID?: string
  /** The call's part, when known: an undo to a later part of the same message keeps the call. */
  readonly part?: string
  /** The list at the start of `message`, before its parts (a /todo command's edit settles there). */
  readonly start?: true
  readonly list: TodoList
}

/** The list the transcript carries last that can be read, and what the model's history shows. */
export function transcriptList(transcript: Transcript, limits: Limits): TranscriptList {
  const skipped: string[] = []
  let newest = true
  for (let m = transcript.length - 1; m >= 0; m--) {
    const lists = transcript[m]!.lists
    for (let p = lists.length - 1; p >= 0; p--) {
      const read = readCarried(lists[p]!, limits)
      if (read.ok) {
        const reached = [...reachedBefore(transcript, m, limits), at(transcript[m]!, lists[p]!, read.value)]
        return { kind: "found", list: read.value, shown: newest ? read.value : null, skipped, reached }
      }
      newest = false
      skipped.push(`message ${m + 1}: ${read.error}`)
    }
  }
  return skipped.length === 0 ? { kind: "none" } : { kind: "unreadable", skipped }
}

function at(message: TranscriptMessage, part: PartList, list: TodoList): Reached {
  return part.callID === undefined
    ? { message: message.id, list }
    : { message: message.id, callID: part.callID, list }
}

/** The last readable list of each message before `end`, oldest first. */
function reachedBefore(transcript: Transcript, end: number, limits: Limits): Reached[] {
  const reached: Reached[] = []
  for (let m = 0; m < end; m++) {
    const lists = transcript[m]!.lists
    for (let p = lists.length - 1; p >= 0; p--) {
      const read = readCarried(lists[p]!, limits)
      if (!read.ok) continue
      reached.push(at(transcript[m]!, lists[p]!, read.value))
      break
    }
  }
  return reached
}

/**
 * The history a session started from elsewhere begins with: `base`, then each list reached, anchored where
 * it was reached, ending with `final`. An undo into the copied conversation then finds the list as it was
 * there, and a fork of this session finds the copied calls.
 */
export function historyReaching(base: TodoList, reached: readonly Reached[], final: TodoList): ListHistory {
  let h = historyFrom(base)
  for (const r of reached) {
    if (sameList(currentList(h), r.list)) continue
    if (r.start) {
      // Recorded at the newest change, then settled at the start of its message, as a command's edit is.
      h = settleEdit(recordEdit(h, {}, r.list).history, r.message, listFingerprint(r.list)).history
      continue
    }
    const step =
      r.callID === undefined
        ? recordEdit(h, { after: r.message }, r.list)
        : recordCall(
            h,
            { message: r.message, callID: r.callID, ...(r.part === undefined ? {} : { part: r.part }) },
            r.list,
          )
    h = step.history
  }
  return sameList(currentList(h), final) ? h : recordEdit(h, {}, final).history
}
