// The session record as it lies on disk: its JSON form and version, and how a file's text decodes into a
// snapshot or says why it cannot. Pure: no file system; the store reads and writes the text.
// Version 2 adds the list's history (core/history/history.ts) beside the list in effect; a version-1 record reads
// as a history whose only state is its list. A history that does not read keeps the list and warns.

import {
  currentList,
  decodeHistory,
  encodeHistory,
  HISTORY_CAPS,
  historyFrom,
  type ListHistory,
  recordEdit,
  sameList,
} from "../core/history/history.ts"
import { isRecord, type Result } from "../core/list/result.ts"
import type { TodoList } from "../core/list/types.ts"

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
  const record = {
    version: RECORD_VERSION,
    session,
    revision: snap.revision,
    list: snap.list,
    edits: snap.edits,
  }
  const head = JSON.stringify(record, null, 2)
  const history = JSON.stringify(encodeHistory(historyOf(snap)))
  return `${head.slice(0, -2)},${HISTORY_LINE}${history}\n}\n`
}

/** The record's fields before its history line, when they read as an object; undefined otherwise. */
function parseHead(head: string): unknown {
  try {
    return JSON.parse(`${head}\n}`)
  } catch {
    return undefined
  }
}

/** Decodes a record's text; `session` must be the one it names (a record copied to another name is corrupt). */
export function decodeRecord(text: string, session: string, parse: Parse): Decoded {
  let raw: unknown
  // A history over its cap is not parsed at all (the list before it is): reading it would stall the host.
  const cut = text.lastIndexOf(HISTORY_LINE)
  let overCap = cut > 0 && text[cut - 1] === "," && text.length - cut > HISTORY_CAPS.historyChars
  try {
    raw = overCap ? parseHead(text.slice(0, cut - 1)) : JSON.parse(text)
    if (raw === undefined) {
      overCap = false
      raw = JSON.parse(text)
    }
  } catch {
    return { kind: "corrupt", reason: "not valid JSON" }
  }
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
  const snap = { list: parsed.value, revision, edits: edits ?? [], persisted: true }
  if (overCap)
    return {
      kind: "ok",
      snap: { ...snap, history: historyFrom(parsed.value) },
      warning: `The stored list history is over its cap (${HISTORY_CAPS.historyChars / 1024 / 1024} MB); the list was kept, but undo cannot go back before it.`,
    }
  // Version 1 had no history, and a version-2 record without one reads the same: the list is all there is.
  if (version === 1 || raw.history === undefined)
    return { kind: "ok", snap: { ...snap, history: historyFrom(parsed.value) } }
  const read = decodeHistory(raw.history, parsed.value)
  const decoded = { kind: "ok" as const, snap: { ...snap, history: read.history } }
  return read.warning === undefined ? decoded : { ...decoded, warning: read.warning }
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
