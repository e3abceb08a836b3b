// Storage adapter: one JSON record per session in one folder, shared by the server and TUI processes. Owns the
// in-process queue, the memory fallback and the one recovery path: every way a record can fail to load or save
// (corrupt, newer, locked, unwritable) is decided in `recover` and degrades to a warning, never a throw.
// A record that turns corrupt or disappears is replaced by the list this process last read or wrote, when it
// knows one.
// A session kept in memory after a storage error tries the disk again on its next change (policy.ts decides
// whether its list is written back). A lock held too long by a live process makes an update return `busy`.
// It imports only Node built-ins and plain TypeScript modules, so tests can run it in child processes after a
// type-strip (test/fixtures/build-store.ts).

import * as nodeFs from "node:fs/promises"
import { basename, join } from "node:path"
import { diffLists } from "../core/list/diff.ts"
import type { TodoList } from "../core/list/types.ts"
import {
  describeError,
  errorCode,
  type Fs,
  fileName,
  keepAside,
  moveAside,
  noop,
  writeAtomic,
} from "./files.ts"
import { type Acquired, createLocks } from "./lock.ts"
import { type Fallback, reunite } from "./policy.ts"
import {
  type Decoded,
  decodeRecord,
  EMPTY,
  encodeRecord,
  historyOf,
  nextSnapshot,
  type Parse,
  type Snapshot,
} from "./record.ts"

/** What an update that could not take the lock in time says: the caller's change was not made. */
export const LIST_BUSY = "The todo list is busy in another process; nothing changed. Try again in a moment."

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

export interface Store {
  readonly dir: string
  /** Absolute path of the session's record (it may not exist yet). */
  file(session: string): string
  read(session: string): Promise<Snapshot>
  /**
   * Read-modify-write under the session lock. `fn` returning undefined means "no change": nothing is written.
   * A list the store's parse refuses, or an `fn` that throws, changes nothing and warns once. `fn` may run more
   * than once (a write that lost its lock is made again); only the last run's list is kept. An answer with
   * `busy` set made no change, whatever `fn` returned.
   */
  update(session: string, fn: (current: Snapshot) => Snapshot | undefined): Promise<Snapshot>
  /** A cheap change marker (one stat); undefined when there is no record. Equal stamps mean an unchanged record. */
  stamp(session: string): Promise<string | undefined>
}

type Loaded =
  | Decoded
  | { readonly kind: "error"; readonly error: unknown }
  /** No record: a new session, or one whose record was moved aside or removed meanwhile. */
  | { readonly kind: "missing" }
type Change = (current: Snapshot) => Snapshot | undefined

/** A session kept in memory; `permanent` when its record must not be touched (a newer version wrote it). */
interface Kept extends Fallback {
  /** The list the memory episode started from: what the changes made in memory are told against. */
  readonly startList: TodoList
  readonly permanent: boolean
}

/** How many sessions' last decoded records are kept (see `decodedTexts`). */
const DECODED_KEPT = 8

/**
 * How many sessions' last good records are kept (see `lastGood`): more than the decode cache, since a session
 * whose record turns corrupt or disappears after it left this cache cannot be saved again by this process.
 */
export const GOOD_KEPT = 32

/** How often one update writes again after its write was lost (its lock broken, its temp file swept). */
const WRITE_ATTEMPTS = 3

export function createStore(options: StoreOptions): Store {
  const { dir, parse, warn } = options
  const fs = options.fs ?? nodeFs
  const locks = createLocks({
    fs,
    dir,
    waitMs: options.lockWaitMs ?? 2500,
    staleMs: options.staleLockMs ?? 2000,
  })
  const warned = new Set<string>()
  const memory = new Map<string, Kept>()
  const queues = new Map<string, Promise<void>>()
  // The last record text decoded per session, with what it decoded to: a todo call reads the record the
  // hook before it just read, and decoding checks the whole list history, so an unchanged text is not
  // decoded again. Decoding is pure, so the answer is the same; a few sessions are kept.
  const decodedTexts = new Map<string, { readonly text: string; readonly decoded: Decoded }>()
  // The record as this process last read it good or wrote it, per session: what a record that turns corrupt
  // is replaced with, so a write of garbage by someone else costs only what that write replaced.
  const lastGood = new Map<string, Snapshot>()

  function remember(session: string, snap: Snapshot): void {
    lastGood.delete(session)
    if (lastGood.size >= GOOD_KEPT) lastGood.delete(lastGood.keys().next().value as string)
    lastGood.set(session, snap)
  }

  const file = (session: string) => join(dir, fileName(session))

  function warnOnce(key: string, message: string): void {
    if (warned.has(key)) return
    warned.add(key)
    try {
      warn(message)
    } catch {
      // A failing warning sink must not break storage.
    }
  }

  /** Keeps the session in memory from `kept` on (the list as this process has it). */
  function toMemory(session: string, kept: Kept, key: string, message: string): Snapshot {
    const snap = { ...kept.kept, persisted: false }
    memory.set(session, { ...kept, kept: snap })
    warnOnce(key, message)
    return snap
  }

  /**
   * Storage failed: the session goes on in memory from `snap`. `stored` is the record as last read (undefined
   * when unknown); a session already in memory keeps what it knew when it first fell back.
   */
  function unusable(session: string, snap: Snapshot, stored: Snapshot | undefined, error: unknown): Snapshot {
    const before = memory.get(session)
    const kept: Kept = before
      ? { ...before, kept: snap }
      : {
          kept: snap,
          start: stored?.revision ?? snap.revision,
          storedThen: stored?.revision,
          startList: stored?.list ?? snap.list,
          permanent: false,
        }
    return toMemory(
      session,
      kept,
      "unwritable",
      `Todo storage in ${dir} is not usable (${describeError(error)}); todo lists are kept in memory only for now. ` +
        "The next change tries the disk again.",
    )
  }

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
      const decoded = decodeRecord(text, session, parse)
      decodedTexts.delete(session)
      if (decodedTexts.size >= DECODED_KEPT) decodedTexts.delete(decodedTexts.keys().next().value as string)
      decodedTexts.set(session, { text, decoded })
      if (decoded.kind === "ok") remember(session, decoded.snap)
      if (decoded.kind === "ok" && decoded.warning !== undefined)
        warnOnce(`history:${session}`, `Todo session ${sessionLabel(session)}: ${decoded.warning}`)
      return decoded
    } catch (error) {
      // Only a parse function that throws gets here.
      return { kind: "error", error }
    }
  }

  /** The list as readable without the lock: for an update that could not take it. */
  async function unlocked(session: string): Promise<Snapshot> {
    const kept = memory.get(session)
    if (kept) return kept.kept
    const loaded = await load(session)
    return loaded.kind === "ok" ? loaded.snap : EMPTY
  }

  /**
   * The one recovery path, under the lock: the stored list, undefined when the session went to memory
   * (a record of a newer version, an unreadable folder), or "lost" when a write it made did not land. A
   * corrupt record is moved aside only under the lock, so a record another process wrote meanwhile is never
   * moved. `fence` is the lock's check before a write.
   */
  async function recover(
    session: string,
    fence: () => Promise<boolean>,
  ): Promise<Snapshot | undefined | "lost"> {
    const loaded = await load(session)
    switch (loaded.kind) {
      case "ok":
        return loaded.snap
      case "missing":
        return memory.has(session) ? EMPTY : restoreMissing(session, fence)
      case "error":
        unusable(session, memory.get(session)?.kept ?? EMPTY, undefined, loaded.error)
        return undefined
      case "newer":
        toMemory(
          session,
          { kept: EMPTY, start: 0, storedThen: undefined, startList: [], permanent: true },
          `newer:${session}`,
          `The todo list of session ${sessionLabel(session)} was saved by a newer plugin version (record version ${loaded.version}); ` +
            "it is left untouched and this session's list is kept in memory only.",
        )
        return undefined
      case "corrupt":
        return replaceCorrupt(session, loaded.reason, fence)
    }
  }

  /**
   * A corrupt record goes aside. The list this process has (in memory, else as last read or written) is
   * written in its place at the next revision, so every process's stamp moves and they all go on with it;
   * with none known, the session starts empty and the server rebuilds it where its conversation shows one.
   */
  async function replaceCorrupt(
    session: string,
    reason: string,
    fence: () => Promise<boolean>,
  ): Promise<Snapshot | undefined | "lost"> {
    const known = memory.get(session)?.kept ?? lastGood.get(session)
    const unreadable = `The saved todo list of session ${sessionLabel(session)} was unreadable (${reason})`
    try {
      if (known === undefined) {
        const aside = await moveAside(fs, file(session))
        warnOnce(
          `corrupt:${session}`,
          `${unreadable}; it was moved to ${basename(aside)}. A running server saves the list it has again; ` +
            "otherwise the list is rebuilt from the conversation where it shows one, else it starts empty.",
        )
        return EMPTY
      }
      const aside = await keepAside(fs, file(session))
      const restored = await saveKnown(session, known, fence)
      if (restored === "lost") return "lost"
      warnOnce(
        `corrupt:${session}`,
        `${unreadable}; it was moved to ${basename(aside)} and the list this process last read or wrote was saved in its place.`,
      )
      return restored
    } catch (error) {
      unusable(session, memory.get(session)?.kept ?? known ?? EMPTY, undefined, error)
      return undefined
    }
  }

  /**
   * A record this process read or wrote that is gone now (moved aside as corrupt by a process that knew no
   * list, or removed) is saved again as this process last knew it, its history included; a session it never
   * knew has no record yet.
   */
  async function restoreMissing(
    session: string,
    fence: () => Promise<boolean>,
  ): Promise<Snapshot | undefined | "lost"> {
    const known = lastGood.get(session)
    if (known === undefined) return EMPTY
    try {
      const restored = await saveKnown(session, known, fence)
      if (restored === "lost") return "lost"
      warnOnce(
        `missing:${session}`,
        `The saved todo list of session ${sessionLabel(session)} disappeared; the list this process last read or wrote was saved again.`,
      )
      return restored
    } catch (error) {
      unusable(session, known, undefined, error)
      return undefined
    }
  }

  /** Writes `known` as the session's record at the next revision, so every process's stamp moves. */
  async function saveKnown(
    session: string,
    known: Snapshot,
    fence: () => Promise<boolean>,
  ): Promise<Snapshot | "lost"> {
    const restored: Snapshot = {
      list: known.list,
      history: historyOf(known),
      revision: known.revision + 1,
      edits: known.edits,
      persisted: true,
    }
    if ((await writeAtomic(fs, file(session), encodeRecord(session, restored), fence)) === "lost")
      return "lost"
    remember(session, restored)
    rejoined(session, true)
    return restored
  }

  /** The snapshot `fn` asks for, or undefined for no change: when it returns none, refuses, or throws. */
  function changed(session: string, current: Snapshot, fn: Change, persisted: boolean): Snapshot | undefined {
    let next: Snapshot | undefined
    try {
      next = fn(current)
    } catch (error) {
      warnOnce(
        `fn:${describeError(error)}`,
        `A change to the todo list of session ${sessionLabel(session)} failed (${describeError(error)}); the list was left as it was.`,
      )
      return undefined
    }
    if (next === undefined) return undefined
    // What the next read would call corrupt is never written; a caller bug, not an I/O problem.
    const checked = nextSnapshot(current, next, parse, persisted)
    if (checked.ok) return checked.value
    warnOnce(
      `invalid:${checked.error}`,
      `Refusing to store an invalid todo list for session ${sessionLabel(session)} (${checked.error}); the list was left as it was.`,
    )
    return undefined
  }

  /** Applies `fn` to the session's memory list. */
  function inMemory(session: string, fn: Change): Snapshot {
    const kept = memory.get(session)
    if (!kept) return EMPTY
    const next = changed(session, kept.kept, fn, false)
    if (next) memory.set(session, { ...kept, kept: next })
    return next ?? kept.kept
  }

  /**
   * Where a session in memory goes on from, now that its record reads as `stored`: its memory list written
   * back, or the stored list (saying what was lost). `write` is set when the memory list must be written.
   */
  function rejoin(session: string, stored: Snapshot): { base: Snapshot; write: boolean } {
    const kept = memory.get(session)
    if (!kept) return { base: stored, write: false }
    const verdict = reunite(stored, kept)
    if (verdict.kind === "write-back") return { base: verdict.snap, write: true }
    if (verdict.unsaved > 0) {
      const lines = diffLists(kept.startList, kept.kept.list).lines
      const shown = lines.slice(0, 3).join("; ") + (lines.length > 3 ? `; and ${lines.length - 3} more` : "")
      warnOnce(
        `lost:${session}:${kept.kept.revision}`,
        `Todo storage in ${dir} works again, but another process changed the saved todo list of session ${sessionLabel(session)} meanwhile, ` +
          `so ${verdict.unsaved === 1 ? "1 change" : `${verdict.unsaved} changes`} made here while it was unusable ${verdict.unsaved === 1 ? "was" : "were"} not saved` +
          `${shown ? ` (${shown})` : ""}. The saved list is used from now on.`,
      )
    }
    return { base: stored, write: false }
  }

  /** The session's memory episode ended with the record written: say so once and allow a later warning. */
  function rejoined(session: string, wroteBack: boolean): void {
    if (!memory.delete(session)) return
    warned.delete("unwritable")
    if (wroteBack)
      warnOnce(
        `saved:${session}`,
        `Todo storage in ${dir} works again; the todo list of session ${sessionLabel(session)}, kept in memory meanwhile, is saved.`,
      )
  }

  /** One locked read-modify-write; "lost" when the write did not land and must be made again. */
  async function attempt(session: string, fn: Change, lock: Extract<Acquired, { kind: "held" }>) {
    const stored = await recover(session, lock.holds)
    if (stored === "lost") return "lost"
    if (stored === undefined) return inMemory(session, fn)
    const { base, write } = rejoin(session, stored)
    const next = changed(session, base, fn, true) ?? (write ? base : undefined)
    if (!next) {
      rejoined(session, false)
      return base
    }
    try {
      if ((await writeAtomic(fs, file(session), encodeRecord(session, next), lock.holds)) === "lost")
        return "lost"
      remember(session, next)
    } catch (error) {
      // A new episode: `next` was made from the record as read just now.
      memory.delete(session)
      return unusable(session, next, stored, error)
    }
    rejoined(session, write)
    return next
  }

  async function locked(session: string, fn: Change): Promise<Snapshot> {
    if (memory.get(session)?.permanent) return inMemory(session, fn)
    for (let tries = 0; tries < WRITE_ATTEMPTS; tries++) {
      const lock = await locks.acquire(file(session))
      if (lock.kind === "timeout") break
      if (lock.kind === "error") {
        const kept = memory.get(session)
        if (kept) unusable(session, kept.kept, undefined, lock.error)
        else {
          const loaded = await load(session)
          const known = loaded.kind === "ok" ? loaded.snap : loaded.kind === "missing" ? EMPTY : undefined
          unusable(session, known ?? EMPTY, known, lock.error)
        }
        return inMemory(session, fn)
      }
      try {
        const done = await attempt(session, fn, lock)
        if (done !== "lost") return done
      } finally {
        await lock.release()
      }
    }
    return { ...(await unlocked(session)), busy: true }
  }

  /**
   * Runs jobs of one session one after another in this process; the lock file orders them across processes.
   * Whatever a job throws that the paths above did not foresee sends the session to memory, never to the caller.
   */
  function enqueue(session: string, job: () => Promise<Snapshot>): Promise<Snapshot> {
    const run = (queues.get(session) ?? Promise.resolve())
      .then(job)
      .catch((error: unknown) => unusable(session, memory.get(session)?.kept ?? EMPTY, undefined, error))
    const tail = run.then(noop)
    queues.set(session, tail)
    void tail.then(() => {
      if (queues.get(session) === tail) queues.delete(session)
    })
    return run
  }

  return {
    dir,
    file,
    async read(session) {
      const kept = memory.get(session)
      if (kept) return kept.kept
      const loaded = await load(session)
      if (loaded.kind === "ok") return loaded.snap
      if (loaded.kind === "missing" && !lastGood.has(session)) return EMPTY
      // Anything else is decided on the recovery path, under the lock.
      return enqueue(session, () => locked(session, () => undefined))
    },
    update(session, fn) {
      return enqueue(session, () => locked(session, fn))
    },
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

/** Session ids in messages: quoted, escaped, and cut short (hostile ids can be huge or contain control bytes). */
function sessionLabel(session: string): string {
  return JSON.stringify(session.length > 40 ? `${session.slice(0, 39)}…` : session)
}
