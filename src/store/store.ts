// Storage adapter: one JSON record per session in one folder, shared by the server and TUI processes. Owns the
// in-process queue, the memory fallback and the one recovery path: every way a record can fail to load or save
// (corrupt, newer, locked, unwritable) is decided in `recover` and degrades to a warning, never a throw.
// It imports only Node built-ins and plain TypeScript modules, so tests can run it in child processes after a
// type-strip (test/fixtures/build-store.ts).

import * as nodeFs from "node:fs/promises"
import { basename, join } from "node:path"
import { describeError, errorCode, type Fs, fileName, moveAside, noop, writeAtomic } from "./files.ts"
import { type Acquired, createLocks } from "./lock.ts"
import {
  type Decoded,
  decodeRecord,
  EMPTY,
  encodeRecord,
  nextSnapshot,
  type Parse,
  type Snapshot,
} from "./record.ts"

export interface StoreOptions {
  readonly dir: string
  readonly parse: Parse
  readonly warn: (message: string) => void
  readonly fs?: Fs
  /** How long an update waits for another holder of the lock before it gives up and works in memory. */
  readonly lockWaitMs?: number
  /** A lock older than this is broken even if its owner seems alive (owner hung, or pid reused). */
  readonly staleLockMs?: number
}

export interface Store {
  readonly dir: string
  /** Absolute path of the session's record (it may not exist yet). */
  file(session: string): string
  read(session: string): Promise<Snapshot>
  /**
   * Read-modify-write under the session lock. `fn` returning undefined means "no change": nothing is written.
   * A list the store's parse refuses, or an `fn` that throws, changes nothing and warns once.
   */
  update(session: string, fn: (current: Snapshot) => Snapshot | undefined): Promise<Snapshot>
  /** A cheap change marker (one stat); undefined when there is no record. Equal stamps mean an unchanged record. */
  stamp(session: string): Promise<string | undefined>
}

type Loaded = Decoded | { readonly kind: "error"; readonly error: unknown }
type Change = (current: Snapshot) => Snapshot | undefined

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
  const memory = new Map<string, Snapshot>()
  const queues = new Map<string, Promise<void>>()

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

  /** Switches the session to memory for the rest of this process, starting from `snap`. */
  function toMemory(session: string, snap: Snapshot, key: string, message: string): Snapshot {
    const kept = { ...snap, persisted: false }
    memory.set(session, kept)
    warnOnce(key, message)
    return kept
  }

  function unusable(session: string, snap: Snapshot, error: unknown): Snapshot {
    return toMemory(
      session,
      snap,
      "unwritable",
      `Todo storage in ${dir} is not usable (${describeError(error)}); todo lists are kept in memory only for now.`,
    )
  }

  async function load(session: string): Promise<Loaded> {
    let text: string
    try {
      text = await fs.readFile(file(session), "utf8")
    } catch (error) {
      return errorCode(error) === "ENOENT" ? { kind: "ok", snap: EMPTY } : { kind: "error", error }
    }
    try {
      return decodeRecord(text, session, parse)
    } catch (error) {
      // Only a parse function that throws gets here.
      return { kind: "error", error }
    }
  }

  /**
   * The one recovery path: the session's list as it stands, given how taking the lock went and what the record
   * holds. Without the lock the session goes to memory from what could be read. A corrupt record is moved aside
   * only under the lock, so a record another process wrote meanwhile is never moved.
   */
  async function recover(session: string, lock: Acquired): Promise<Snapshot> {
    const loaded = await load(session)
    if (lock.kind !== "held") {
      const base = loaded.kind === "ok" ? loaded.snap : EMPTY
      if (lock.kind === "error") return unusable(session, base, lock.error)
      return toMemory(
        session,
        base,
        `lock:${session}`,
        `The todo list of session ${sessionLabel(session)} stayed locked by another process; ` +
          "this session's list is kept in memory only from now on.",
      )
    }
    switch (loaded.kind) {
      case "ok":
        return loaded.snap
      case "error":
        return unusable(session, EMPTY, loaded.error)
      case "newer":
        return toMemory(
          session,
          EMPTY,
          `newer:${session}`,
          `The todo list of session ${sessionLabel(session)} was saved by a newer plugin version (record version ${loaded.version}); ` +
            "it is left untouched and this session's list is kept in memory only.",
        )
      case "corrupt":
        try {
          const aside = await moveAside(fs, file(session))
          warnOnce(
            `corrupt:${session}`,
            `The saved todo list of session ${sessionLabel(session)} was unreadable (${loaded.reason}); ` +
              `it was moved to ${basename(aside)} and the session starts with an empty list.`,
          )
          return EMPTY
        } catch (error) {
          return unusable(session, EMPTY, error)
        }
    }
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

  function inMemory(session: string, current: Snapshot, fn: Change): Snapshot {
    const next = changed(session, current, fn, false)
    if (next) memory.set(session, next)
    return next ?? current
  }

  async function locked(session: string, fn: Change): Promise<Snapshot> {
    const kept = memory.get(session)
    if (kept) return inMemory(session, kept, fn)
    const path = file(session)
    const lock = await locks.acquire(path)
    try {
      const current = await recover(session, lock)
      if (!current.persisted) return inMemory(session, current, fn)
      const next = changed(session, current, fn, true)
      if (!next) return current
      try {
        await writeAtomic(fs, path, encodeRecord(session, next))
      } catch (error) {
        return unusable(session, next, error)
      }
      return next
    } finally {
      if (lock.kind === "held") await lock.release()
    }
  }

  /**
   * Runs jobs of one session one after another in this process; the lock file orders them across processes.
   * Whatever a job throws that the paths above did not foresee sends the session to memory, never to the caller.
   */
  function enqueue(session: string, job: () => Promise<Snapshot>): Promise<Snapshot> {
    const run = (queues.get(session) ?? Promise.resolve())
      .then(job)
      .catch((error: unknown) => unusable(session, memory.get(session) ?? EMPTY, error))
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
      if (kept) return kept
      const loaded = await load(session)
      if (loaded.kind === "ok") return loaded.snap
      // Anything else is decided on the recovery path, under the lock.
      return enqueue(session, () => locked(session, () => undefined))
    },
    update(session, fn) {
      return enqueue(session, () => locked(session, fn))
    },
    async stamp(session) {
      const kept = memory.get(session)
      if (kept) return `memory:${kept.revision}`
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
