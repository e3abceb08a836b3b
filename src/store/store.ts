// Storage adapter: one JSON record per session in one folder, shared by the server and TUI processes. Owns the
// store's interface and its read-modify-write under the session lock; it never throws (every failure degrades
// to a warning, said once). More: docs/design.md, "store/store.ts".

import * as nodeFs from "node:fs/promises"
import { join } from "node:path"
import { describeError, type Fs, fileName, writeAtomic } from "./files.ts"
import { type Acquired, createLocks } from "./lock.ts"
import { createMemory, type Memory } from "./memory.ts"
import { createQueue } from "./queue.ts"
import { EMPTY, encodeRecordPieces, nextSnapshot, type Parse, type Snapshot } from "./record.ts"
import { createRecords, type Records } from "./records.ts"
import { createRecovery, type Recovery } from "./recovery.ts"
import { createWarnings, sessionLabel, type Warnings } from "./warnings.ts"

/** What an update that could not take the lock in time says: the caller's change was not made. */
export const LIST_BUSY = "The todo list is busy in another process; nothing changed. Try again in a moment."

/** What a caller says of an update whose function threw (the store warned with the cause): nothing changed. */
export const LIST_FAILED =
  "The todo list could not be changed (an internal error, reported to the user); nothing changed. Try the call once more; if it fails again, go on without the list."

export interface StoreOptions {
  readonly dir: string
  readonly parse: Parse
  readonly warn: (message: string) => void
  readonly fs?: Fs
  /** How long an update waits for one holder of the lock before it gives up (`busy`, nothing changed). */
  readonly lockWaitMs?: number
  /** A lock whose holder cannot be confirmed (another machine, unreadable) is broken when older than this. */
  readonly staleLockMs?: number
}

/** What one run of an update's function decided: `next` is the snapshot to store (absent: no change). */
export interface Computed<T> {
  readonly next?: Snapshot | undefined
  /** Whatever the caller wants back from the run (the result of the change, the notes it took). */
  readonly value?: T
}

/** An update's answer: the snapshot after it, and the value of the run of its function that counted. */
export interface Updated<T> {
  readonly snapshot: Snapshot
  /** Undefined when the function never ran to the end (it threw, or the update was `busy`). */
  readonly value: T | undefined
}

export interface Store {
  readonly dir: string
  /** Absolute path of the session's record (it may not exist yet). */
  file(session: string): string
  read(session: string): Promise<Snapshot>
  /**
   * Read-modify-write under the session lock. `fn` asking for no `next` means "no change": nothing is written,
   * and its value is still handed back. A list the store's parse refuses, or an `fn` that throws, changes
   * nothing and warns once. `fn` may run more than once (a write that lost its lock is made again); only the
   * last run's snapshot and value are kept. An answer with `busy` set made no change and has no value.
   */
  update<T = undefined>(session: string, fn: (current: Snapshot) => Computed<T>): Promise<Updated<T>>
  /** A cheap change marker (one stat); undefined when there is no record. Equal stamps mean an unchanged record. */
  stamp(session: string): Promise<string | undefined>
}

type Change<T> = (current: Snapshot) => Computed<T>
/** What a run asked for once checked: `next` undefined for no change. */
type Asked<T> = { readonly next: Snapshot | undefined; readonly value: T | undefined }

/** How often one update writes again after its write was lost (its lock broken, its temp file swept). */
const WRITE_ATTEMPTS = 3

export function createStore(options: StoreOptions): Store {
  const { dir, parse } = options
  const fs = options.fs ?? nodeFs
  const locks = createLocks({
    fs,
    dir,
    waitMs: options.lockWaitMs ?? 2500,
    staleMs: options.staleLockMs ?? 2000,
  })
  const file = (session: string) => join(dir, fileName(session))
  const warnings = createWarnings(options.warn)
  const queue = createQueue()
  const records = createRecords({ fs, file, parse, warnings })
  const memory = createMemory(dir, warnings)
  const recovery = createRecovery({ fs, file, records, memory, warnings })
  const parts: Parts = { fs, file, parse, warnings, memory, records, recovery }

  async function locked<T>(session: string, fn: Change<T>): Promise<Updated<T>> {
    if (memory.get(session)?.permanent) return inMemory(parts, session, fn)
    for (let tries = 0; tries < WRITE_ATTEMPTS; tries++) {
      const lock = await locks.acquire(file(session))
      if (lock.kind === "timeout") break
      if (lock.kind === "error") {
        await recovery.lockFailed(session, lock.error)
        return inMemory(parts, session, fn)
      }
      try {
        const done = await attempt(parts, session, fn, lock)
        if (done !== "lost") return done
      } finally {
        await lock.release()
      }
    }
    return { snapshot: { ...(await unlocked(session)), busy: true }, value: undefined }
  }

  /** The list as readable without the lock: for an update that could not take it. */
  async function unlocked(session: string): Promise<Snapshot> {
    const kept = memory.get(session)
    if (kept) return kept.kept
    const loaded = await records.load(session)
    return loaded.kind === "ok" ? loaded.snap : EMPTY
  }

  /** Whatever a job throws that the paths above did not foresee sends the session to memory, never to the caller. */
  function inQueue<T>(session: string, fn: Change<T>): Promise<Updated<T>> {
    return queue.run(
      session,
      () => locked(session, fn),
      (error) => ({
        snapshot: memory.unusable(session, memory.get(session)?.kept ?? EMPTY, undefined, error),
        value: undefined,
      }),
    )
  }

  return {
    dir,
    file,
    async read(session) {
      const kept = memory.get(session)
      if (kept) return kept.kept
      const loaded = await records.load(session)
      if (loaded.kind === "ok") return loaded.snap
      if (loaded.kind === "missing" && records.lastGood(session) === undefined) return EMPTY
      // Anything else is decided on the recovery path, under the lock.
      return (await inQueue(session, () => ({}))).snapshot
    },
    update: inQueue,
    async stamp(session) {
      const kept = memory.get(session)
      if (kept) return `memory:${kept.kept.revision}`
      try {
        const st = await fs.stat(file(session))
        // Every write renames a new inode in, so ino separates writes that share an mtime tick and a size.
        return `${st.ino}:${st.mtimeMs}:${st.size}`
      } catch {
        return undefined
      }
    },
  }
}

/** The pieces of one store that a locked update works with. */
interface Parts {
  readonly fs: Fs
  readonly file: (session: string) => string
  readonly parse: Parse
  readonly warnings: Warnings
  readonly memory: Memory
  readonly records: Records
  readonly recovery: Recovery
}

/** What `fn` asks for: `next` undefined for no change (none asked, refused, or `fn` threw). */
function changed<T>(
  parts: Parts,
  session: string,
  current: Snapshot,
  fn: Change<T>,
  persisted: boolean,
): Asked<T> {
  const { warnings, parse } = parts
  const nothing = { next: undefined, value: undefined }
  let asked: Computed<T> | undefined
  try {
    asked = fn(current)
  } catch (error) {
    warnings.once(
      `fn:${describeError(error)}`,
      `A change to the todo list of session ${sessionLabel(session)} failed (${describeError(error)}); the list was left as it was.`,
    )
    return nothing
  }
  // Only a caller outside the type checker returns something else.
  if (typeof asked !== "object" || asked === null) return nothing
  const { next, value } = asked
  if (next === undefined) return { next: undefined, value }
  // What the next read would call corrupt is never written; a caller bug, not an I/O problem.
  const checked = nextSnapshot(current, next, parse, persisted)
  if (checked.ok) return { next: checked.value, value }
  warnings.once(
    `invalid:${checked.error}`,
    `Refusing to store an invalid todo list for session ${sessionLabel(session)} (${checked.error}); the list was left as it was.`,
  )
  return { next: undefined, value }
}

/** Applies `fn` to the session's memory list. */
function inMemory<T>(parts: Parts, session: string, fn: Change<T>): Updated<T> {
  const { memory } = parts
  const kept = memory.get(session)
  if (!kept) return { snapshot: EMPTY, value: undefined }
  const { next, value } = changed(parts, session, kept.kept, fn, false)
  if (next) memory.keep(session, next)
  return { snapshot: next ?? kept.kept, value }
}

/** One locked read-modify-write; "lost" when the write did not land and must be made again. */
async function attempt<T>(
  parts: Parts,
  session: string,
  fn: Change<T>,
  lock: Extract<Acquired, { kind: "held" }>,
): Promise<Updated<T> | "lost"> {
  const { fs, file, memory, records, recovery } = parts
  const stored = await recovery.recover(session, lock.holds)
  if (stored === "lost") return "lost"
  if (stored === undefined) return inMemory(parts, session, fn)
  const { base, write } = memory.rejoin(session, stored)
  const { next: asked, value } = changed(parts, session, base, fn, true)
  const next = asked ?? (write ? base : undefined)
  if (!next) {
    memory.rejoined(session, false)
    return { snapshot: base, value }
  }
  try {
    if ((await writeAtomic(fs, file(session), encodeRecordPieces(session, next), lock.holds)) === "lost")
      return "lost"
    records.remember(session, next)
  } catch (error) {
    return { snapshot: memory.restart(session, next, stored, error), value }
  }
  memory.rejoined(session, write)
  return { snapshot: next, value }
}
