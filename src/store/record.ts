// The session record as it lies on disk: its JSON form and version, and how a file's text decodes into a
// snapshot or says why it cannot. Pure: no file system; the store reads and writes the text.
// Version 2 adds the list's history (core/history/history.ts) beside the list in effect; a version-1 record reads
// as a history whose only state is its list. A history that does not read keeps the list and warns.

import {
  currentList,
  HISTORY_CAPS,
  historyFrom,
  type ListHistory,
  sameList,
} from "../core/history/history.ts"
import { recordEdit } from "../core/history/placement.ts"
import { decodeHistory, historyReader } from "../core/history/stored.ts"
import { isRecord, type Result } from "../core/list/result.ts"
import type { TodoList } from "../core/list/types.ts"
import { historyPieces, keepSpanText, spansOf } from "./history-text.ts"

export const RECORD_VERSION = 2

/** Where the history starts in a record's text: it is written last, on a line of its own. */
const HISTORY_LINE = '\n  "history": '

export interface Snapshot {
  /** The list in effect: the newest list, or while the session is reverted the list before the revert point. */
  readonly list: TodoList
  /**
   * How the list got here, anchored in the conversation; `currentList(history)` is `list`. Absent: a
   * history whose only state is `list`. A change that sets `list` without recording it in the history is
   * recorded by `nextSnapshot` as a user edit at the newest position.
   */
  readonly history?: ListHistory
  /** Bumped by every write; 0 for a session never written. */
  readonly revision: number
  /** Pending "the user changed X" notes; opaque JSON values the server consumes. */
  readonly edits: readonly unknown[]
  /** False once this session lives only in this process's memory (storage unusable for it). */
  readonly persisted: boolean
  /** Set on the answer of an update that could not take the lock in time: nothing changed; the list as readable. */
  readonly busy?: true
}

/** Checks a stored list; the store reads and writes only lists it accepts. */
export type Parse = (raw: unknown) => Result<TodoList>

/** A session with no record yet. */
export const EMPTY: Snapshot = Object.freeze({ list: [], revision: 0, edits: [], persisted: true })

/** The history of a snapshot: its own, or one whose only state is its list. */
export function historyOf(snap: Snapshot): ListHistory {
  return snap.history ?? historyFrom(snap.list)
}

export type Decoded =
  /** `warning`: the history did not read; the list did, and the snapshot has a history of it alone. */
  | { readonly kind: "ok"; readonly snap: Snapshot; readonly warning?: string }
  /** Unreadable: the store moves it aside and the session starts empty. */
  | { readonly kind: "corrupt"; readonly reason: string }
  /** Written by a newer version of the plugin: left untouched. */
  | { readonly kind: "newer"; readonly version: number }

/**
 * The record's text: `{version, session, revision, list, edits, history}`, pretty-printed but for the history,
 * which is one compact line (it is most of the record, and indentation would triple it), ending in a newline.
 */
export function encodeRecord(session: string, snap: Snapshot): string {
  return encodeRecordPieces(session, snap).join("")
}

/** encodeRecord's text in pieces of about a span each, for a write that lets the host run between them. */
export function encodeRecordPieces(session: string, snap: Snapshot): string[] {
  const record = {
    version: RECORD_VERSION,
    session,
    revision: snap.revision,
    list: snap.list,
    edits: snap.edits,
  }
  const head = JSON.stringify(record, null, 2)
  const history = historyPieces(historyOf(snap))
  history[0] = `${head.slice(0, -2)},${HISTORY_LINE}${history[0]}`
  history[history.length - 1] += "\n}\n"
  return history
}

/** The record's fields before its history line, when they read as an object; undefined otherwise. */
function parseHead(head: string): unknown {
  try {
    return JSON.parse(`${head}\n}`)
  } catch {
    return undefined
  }
}

/** The record's fields but its history, checked: the snapshot with no history yet, or why it does not read. */
function decodeFields(
  raw: unknown,
  session: string,
  parse: Parse,
):
  | { readonly kind: "fields"; readonly snap: Snapshot; readonly version: number }
  | Exclude<Decoded, { kind: "ok" }> {
  if (!isRecord(raw)) return { kind: "corrupt", reason: "not a JSON object" }
  const { version, revision, list, edits } = raw
  if (typeof version === "number" && Number.isInteger(version) && version > RECORD_VERSION)
    return { kind: "newer", version }
  if (version !== RECORD_VERSION && version !== 1)
    return { kind: "corrupt", reason: "missing or unknown version" }
  if (raw.session !== session) return { kind: "corrupt", reason: "it names another session" }
  if (typeof revision !== "number" || !Number.isSafeInteger(revision) || revision < 0)
    return { kind: "corrupt", reason: "bad revision" }
  if (edits !== undefined && !Array.isArray(edits))
    return { kind: "corrupt", reason: "edits is not an array" }
  const parsed = parse(list)
  if (!parsed.ok) return { kind: "corrupt", reason: parsed.error }
  return {
    kind: "fields",
    snap: { list: parsed.value, revision, edits: edits ?? [], persisted: true },
    version,
  }
}

/** The snapshot with the history read for it (a warning when the history did not read). */
function withHistory(
  snap: Snapshot,
  read: { readonly history: ListHistory; readonly warning?: string },
): Decoded {
  const decoded = { kind: "ok" as const, snap: { ...snap, history: read.history } }
  return read.warning === undefined ? decoded : { ...decoded, warning: read.warning }
}

/** Where the history line starts, and whether the history is over its cap (then it is not read at all). */
function historyCut(text: string): { readonly cut: number; readonly overCap: boolean } {
  // The first: the head above it is short, and no string in the written JSON holds a raw newline.
  const cut = text.indexOf(HISTORY_LINE)
  const found = cut > 0 && text[cut - 1] === ","
  return { cut: found ? cut : -1, overCap: found && text.length - cut > HISTORY_CAPS.historyChars }
}

/** Decodes a record's text; `session` must be the one it names (a record copied to another name is corrupt). */
export function decodeRecord(text: string, session: string, parse: Parse): Decoded {
  let raw: unknown
  // A history over its cap is not parsed at all (the list before it is): reading it would stall the host.
  const { cut, overCap: over } = historyCut(text)
  let overCap = over
  try {
    raw = overCap ? parseHead(text.slice(0, cut - 1)) : JSON.parse(text)
    if (raw === undefined) {
      overCap = false
      raw = JSON.parse(text)
    }
  } catch {
    return { kind: "corrupt", reason: "not valid JSON" }
  }
  const fields = decodeFields(raw, session, parse)
  if (fields.kind !== "fields") return fields
  const { snap, version } = fields
  if (overCap)
    return {
      kind: "ok",
      snap: { ...snap, history: historyFrom(snap.list) },
      warning: `The stored list history is over its cap (${HISTORY_CAPS.historyChars / 1024 / 1024} MB); the list was kept, but undo cannot go back before it.`,
    }
  // Version 1 had no history, and a version-2 record without one reads the same: the list is all there is.
  const history = isRecord(raw) ? raw.history : undefined
  if (version === 1 || history === undefined)
    return { kind: "ok", snap: { ...snap, history: historyFrom(snap.list) } }
  return withHistory(snap, decodeHistory(history, snap.list))
}

/** How much history text a read parses between two pauses: about a millisecond of JSON.parse. */
export const PIECE_CHARS = 64 * 1024

/**
 * decodeRecord's answer, read so that the host never waits long: a history line as this module writes it is
 * parsed one span at a time, with `pause()` (the caller's yield to the event loop) after every PIECE_CHARS of
 * it. A record in any other form (an older writer, a hand edit, anything that does not read) is decoded
 * whole, by decodeRecord, so both always answer the same.
 */
export async function decodeRecordInPieces(
  text: string,
  session: string,
  parse: Parse,
  pause: () => Promise<void>,
): Promise<Decoded> {
  const whole = () => decodeRecord(text, session, parse)
  const { cut, overCap } = historyCut(text)
  if (cut < 0 || overCap) return whole()
  const closed = text.trimEnd()
  if (!closed.endsWith("}")) return whole()
  const fields = decodeFields(parseHead(text.slice(0, cut - 1)), session, parse)
  if (fields.kind !== "fields" || fields.version !== RECORD_VERSION) return whole()
  const line = closed.slice(cut + HISTORY_LINE.length, -1).trimEnd()
  const reader = historyReader(fields.snap.list)
  const pieces = spansOf(line)
  let since = 0
  for (;;) {
    const next = pieces.next()
    if (next.done) {
      if (next.value === undefined) return whole()
      await pause()
      return withHistory(fields.snap, reader.end(next.value.rev))
    }
    let span: unknown
    try {
      span = JSON.parse(next.value.text)
    } catch {
      return whole()
    }
    keepSpanText(span, next.value)
    // After a span that does not read, the rest is still parsed: a record that is not JSON is corrupt.
    reader.add(span)
    since += next.value.text.length
    if (since >= PIECE_CHARS) {
      since = 0
      await pause()
    }
  }
}

/**
 * The snapshot a change makes: the next revision, the list as `parse` returns it. A list the next read
 * would call corrupt is refused here, so it never reaches the disk.
 */
export function nextSnapshot(
  current: Snapshot,
  next: Snapshot,
  parse: Parse,
  persisted: boolean,
): Result<Snapshot> {
  const checked = parse(next.list)
  if (!checked.ok) return checked
  const list = checked.value
  let history = next.history ?? historyOf(current)
  if (!sameList(currentList(history), list)) history = recordEdit(history, {}, list).history
  return {
    ok: true,
    value: { list, history, revision: current.revision + 1, edits: [...next.edits], persisted },
  }
}
