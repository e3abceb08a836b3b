// The session record as it lies on disk: its JSON form and version, and how a file's text decodes into a
// snapshot or says why it cannot. Pure: no file system; the store reads and writes the text.

import { isRecord, type Result } from "../core/result.ts"
import type { TodoList } from "../core/types.ts"

export const RECORD_VERSION = 1

export interface Snapshot {
  readonly list: TodoList
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

export type Decoded =
  | { readonly kind: "ok"; readonly snap: Snapshot }
  /** Unreadable: the store moves it aside and the session starts empty. */
  | { readonly kind: "corrupt"; readonly reason: string }
  /** Written by a newer version of the plugin: left untouched. */
  | { readonly kind: "newer"; readonly version: number }

/** The record's text: `{version, session, revision, list, edits}`, pretty-printed, ending in a newline. */
export function encodeRecord(session: string, snap: Snapshot): string {
  const record = {
    version: RECORD_VERSION,
    session,
    revision: snap.revision,
    list: snap.list,
    edits: snap.edits,
  }
  return `${JSON.stringify(record, null, 2)}\n`
}

/** Decodes a record's text; `session` must be the one it names (a record copied to another name is corrupt). */
export function decodeRecord(text: string, session: string, parse: Parse): Decoded {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return { kind: "corrupt", reason: "not valid JSON" }
  }
  if (!isRecord(raw)) return { kind: "corrupt", reason: "not a JSON object" }
  const { version, revision, list, edits } = raw
  if (typeof version === "number" && Number.isInteger(version) && version > RECORD_VERSION)
    return { kind: "newer", version }
  if (version !== RECORD_VERSION) return { kind: "corrupt", reason: "missing or unknown version" }
  if (raw.session !== session) return { kind: "corrupt", reason: "it names another session" }
  if (typeof revision !== "number" || !Number.isSafeInteger(revision) || revision < 0)
    return { kind: "corrupt", reason: "bad revision" }
  if (edits !== undefined && !Array.isArray(edits))
    return { kind: "corrupt", reason: "edits is not an array" }
  const parsed = parse(list)
  if (!parsed.ok) return { kind: "corrupt", reason: parsed.error }
  return { kind: "ok", snap: { list: parsed.value, revision, edits: edits ?? [], persisted: true } }
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
  return {
    ok: true,
    value: { list: checked.value, revision: current.revision + 1, edits: [...next.edits], persisted },
  }
}
