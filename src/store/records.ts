// Reading a session's record, through two small caches. The last text decoded per session (an unchanged text
// is not decoded again), and the record as this process last read it good or wrote it (what a record that
// turns corrupt or disappears is replaced with, see recovery.ts). A read that fails is a value, never a
// throw.

import { errorCode, type Fs } from "./files.ts"
import { type Decoded, decodeRecordInPieces, type Parse, type Snapshot } from "./record.ts"
import { sessionLabel, type Warnings } from "./warnings.ts"

export type Loaded =
  | Decoded
  | { readonly kind: "error"; readonly error: unknown }
  /** No record: a new session, or one whose record was moved aside or removed meanwhile. */
  | { readonly kind: "missing" }

export interface Records {
  load(session: string): Promise<Loaded>
  /** The record as this process last read it good or wrote it; undefined once it left the cache. */
  lastGood(session: string): Snapshot | undefined
  /** Notes `snap` as the session's record, just written. */
  remember(session: string, snap: Snapshot): void
}

/** How many sessions' last decoded records are kept (see `decodedTexts`). */
const DECODED_KEPT = 8

/**
 * How many sessions' last good records are kept (see `lastGood`): more than the decode cache, since a session
 * whose record turns corrupt or disappears after it left this cache cannot be saved again by this process.
 */
export const GOOD_KEPT = 32

/** Lets the host's other work run between the pieces of a big record's read (decodeRecordInPieces). */
const pause = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Sets `key` as the newest entry of `map`, dropping the oldest beyond `size`. */
function keepNewest<V>(map: Map<string, V>, size: number, key: string, value: V): void {
  map.delete(key)
  if (map.size >= size) map.delete(map.keys().next().value as string)
  map.set(key, value)
}

export function createRecords(options: {
  readonly fs: Fs
  readonly file: (session: string) => string
  readonly parse: Parse
  readonly warnings: Warnings
}): Records {
  const { fs, file, parse, warnings } = options
  // A todo call reads the record the hook before it just read, and decoding checks the whole list history, so
  // an unchanged text is not decoded again. Decoding is pure, so the answer is the same.
  const decodedTexts = new Map<string, { readonly text: string; readonly decoded: Decoded }>()
  // A write of garbage by someone else then costs only what that write replaced.
  const lastGood = new Map<string, Snapshot>()

  const remember = (session: string, snap: Snapshot) => keepNewest(lastGood, GOOD_KEPT, session, snap)

  async function load(session: string): Promise<Loaded> {
    let text: string
    try {
      text = await fs.readFile(file(session), "utf8")
    } catch (error) {
      return errorCode(error) === "ENOENT" ? { kind: "missing" } : { kind: "error", error }
    }
    try {
      const known = decodedTexts.get(session)
      if (known?.text === text) {
        if (known.decoded.kind === "ok") remember(session, known.decoded.snap)
        return known.decoded
      }
      const decoded = await decodeRecordInPieces(text, session, parse, pause)
      keepNewest(decodedTexts, DECODED_KEPT, session, { text, decoded })
      if (decoded.kind === "ok") remember(session, decoded.snap)
      if (decoded.kind === "ok" && decoded.warning !== undefined)
        warnings.once(`history:${session}`, `Todo session ${sessionLabel(session)}: ${decoded.warning}`)
      return decoded
    } catch (error) {
      // Only a parse function that throws gets here.
      return { kind: "error", error }
    }
  }

  return { load, lastGood: (session) => lastGood.get(session), remember }
}
