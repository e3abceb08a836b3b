// Storage adapter: one JSON record per session under <data>/opencode/plugin/todo/, shared by the server and TUI
// processes. Owns file naming, the cross-process lock, atomic writes and every way storage can fail (which degrades
// to an in-memory list plus one warning, never a throw). It imports only Node built-ins so the tests can run it in
// child processes after a plain type-strip.

import { createHash, randomBytes } from "node:crypto"
import * as nodeFs from "node:fs/promises"
import { hostname } from "node:os"
import { basename, dirname, join } from "node:path"
import { isRecord, type Result } from "./core/result.ts"
import type { TodoList } from "./core/types.ts"

export const RECORD_VERSION = 1

export interface Snapshot {
  readonly list: TodoList
  /** Bumped by every write; 0 for a session never written. */
  readonly revision: number
  /** Pending "the user changed X" notes; opaque JSON values the server consumes. */
  readonly edits: readonly unknown[]
  /** False once this session lives only in this process's memory (storage unusable for it). */
  readonly persisted: boolean
}

export type Parse = (raw: unknown) => Result<TodoList>

/** The slice of node:fs/promises the store uses; injectable so tests can simulate EROFS or a full disk. */
export type Fs = Pick<
  typeof nodeFs,
  "open" | "readFile" | "rename" | "stat" | "unlink" | "mkdir" | "link" | "readdir"
>

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
  /** Read-modify-write under the session lock. `fn` returning undefined means "no change": nothing is written. */
  update(session: string, fn: (current: Snapshot) => Snapshot | undefined): Promise<Snapshot>
  /** A cheap change marker (one stat); undefined when there is no record. Equal stamps mean an unchanged record. */
  stamp(session: string): Promise<string | undefined>
}

const PLAIN_ID = /^[A-Za-z0-9_-]{1,100}$/
// Device names Windows refuses as file names, whatever the extension.
const WINDOWS_RESERVED = /^(?:con|prn|aux|nul|com\d|lpt\d)$/i

/**
 * The record's file name. Plain ids are kept readable; anything else becomes "x." + sha256 of the id. The dot cannot
 * occur in a plain id, so the two forms never collide. Hashing UTF-16 code units keeps lone surrogates distinct.
 */
export function fileName(session: string): string {
  if (PLAIN_ID.test(session) && !WINDOWS_RESERVED.test(session)) return `${session}.json`
  return `x.${createHash("sha256").update(Buffer.from(session, "utf16le")).digest("hex")}.json`
}

const EMPTY: Snapshot = Object.freeze({ list: [], revision: 0, edits: [], persisted: true })
const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"])
const DIR_SYNC_UNSUPPORTED = new Set(["EINVAL", "EPERM", "EISDIR", "ENOTSUP"])
// What tempName() appends to "<record>", "<record>.lock" or "<record>.lock.break"; group 1 is the pid.
const TEMP_SUFFIX = /^(?:\.lock(?:\.break)?)?\.(\d+)\.\d+-[0-9a-f]+\.tmp$/
const RENAME_RETRY_WIN32 = new Set(["EPERM", "EACCES", "EBUSY"])

type Loaded =
  | { readonly kind: "ok"; readonly snap: Snapshot }
  | { readonly kind: "corrupt"; readonly reason: string }
  | { readonly kind: "newer"; readonly version: number }
  | { readonly kind: "error"; readonly error: unknown }

interface LockInfo {
  readonly pid: number
  readonly host: string
  readonly time: number
  readonly token: string
}

type Acquired =
  | { readonly kind: "held"; readonly release: () => Promise<void> }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly error: unknown }

const HOST = hostname()
let tempSeq = 0

export function createStore(options: StoreOptions): Store {
  const { dir, parse, warn } = options
  const fs = options.fs ?? nodeFs
  const lockWaitMs = options.lockWaitMs ?? 2500
  const staleLockMs = options.staleLockMs ?? 2000
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
      `Todo storage in ${dir} is not usable (${describe(error)}); todo lists are kept in memory only for now.`,
    )
  }

  function decode(text: string, session: string): Loaded {
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

  async function load(session: string): Promise<Loaded> {
    let text: string
    try {
      text = await fs.readFile(file(session), "utf8")
    } catch (error) {
      return code(error) === "ENOENT" ? { kind: "ok", snap: EMPTY } : { kind: "error", error }
    }
    return decode(text, session)
  }

  function newer(session: string, version: number): Snapshot {
    return toMemory(
      session,
      EMPTY,
      `newer:${session}`,
      `The todo list of session ${sessionLabel(session)} was saved by a newer plugin version (record version ${version}); ` +
        "it is left untouched and this session's list is kept in memory only.",
    )
  }

  /** Moves a corrupt record to <file>.corrupt-<n> without ever replacing an earlier one. Runs under the lock. */
  async function moveAside(path: string): Promise<string> {
    const base = basename(path)
    let n = 1
    for (const name of await fs.readdir(dirname(path))) {
      const match = name.startsWith(`${base}.corrupt-`) ? /^\d+$/.exec(name.slice(base.length + 9)) : null
      if (match) n = Math.max(n, Number(match[0]) + 1)
    }
    for (; ; n++) {
      const aside = `${path}.corrupt-${n}`
      try {
        // link fails on an existing name, so an aside is never overwritten.
        await fs.link(path, aside)
        await fs.unlink(path)
        return aside
      } catch (error) {
        if (code(error) === "EEXIST") continue
        if (!LINK_UNSUPPORTED.has(code(error))) throw error
        if (await exists(fs, aside)) continue
        await fs.rename(path, aside)
        return aside
      }
    }
  }

  // ----- lock: <file>.lock holds {pid, host, time, token}; created whole by linking a finished temp file -----

  async function createExclusive(path: string, body: string): Promise<void> {
    const temp = tempName(path)
    await writeNew(fs, temp, body, false)
    try {
      await fs.link(temp, path)
    } catch (error) {
      if (!LINK_UNSUPPORTED.has(code(error))) throw error
      // No hard links on this file system: plain exclusive create (briefly empty, judged by age if found so).
      await writeNew(fs, path, body, false)
    } finally {
      await fs.unlink(temp).catch(noop)
    }
  }

  /** Judges a lock (or break guard) file. "gone" means it vanished while we looked. */
  async function inspect(path: string): Promise<"gone" | { raw: string; stale: boolean; deadPid?: number }> {
    let raw: string
    try {
      raw = await fs.readFile(path, "utf8")
    } catch (error) {
      return code(error) === "ENOENT" ? "gone" : { raw: "", stale: false }
    }
    const info = parseLock(raw)
    if (info) {
      const dead = info.host === HOST && !alive(info.pid)
      if (dead) return { raw, stale: true, deadPid: info.pid }
      return { raw, stale: Date.now() - info.time > staleLockMs }
    }
    try {
      return { raw, stale: Date.now() - (await fs.stat(path)).mtimeMs > staleLockMs }
    } catch (error) {
      return code(error) === "ENOENT" ? "gone" : { raw, stale: false }
    }
  }

  /** Removes a stale lock. Breakers take a guard file so two of them cannot remove a lock a third just took. */
  async function breakLock(lockPath: string, seen: { raw: string; deadPid?: number }): Promise<boolean> {
    const guard = `${lockPath}.break`
    try {
      await createExclusive(guard, lockBody().body)
    } catch {
      const other = await inspect(guard)
      if (other !== "gone" && other.stale) await fs.unlink(guard).catch(noop)
      return false
    }
    try {
      const again = await fs.readFile(lockPath, "utf8").catch(() => undefined)
      if (again === seen.raw) await fs.unlink(lockPath)
    } catch {
      return false
    } finally {
      await fs.unlink(guard).catch(noop)
    }
    await sweepTemps(lockPath, seen.deadPid)
    return true
  }

  /**
   * Deletes temp files of this record left by crashed processes: those of the dead lock holder, and any older than
   * staleLockMs (no live write keeps a temp that long: data temps exist only under a lock, which is stale by then).
   */
  async function sweepTemps(lockPath: string, deadPid: number | undefined): Promise<void> {
    const folder = dirname(lockPath)
    const record = basename(lockPath, ".lock")
    let names: string[]
    try {
      names = await fs.readdir(folder)
    } catch {
      return
    }
    for (const name of names) {
      const temp = name.startsWith(record) ? TEMP_SUFFIX.exec(name.slice(record.length)) : null
      if (!temp) continue
      const path = join(folder, name)
      try {
        if (Number(temp[1]) === deadPid || Date.now() - (await fs.stat(path)).mtimeMs > staleLockMs)
          await fs.unlink(path)
      } catch {
        // Hygiene only.
      }
    }
  }

  /**
   * Waits for the lock. It gives up when one holder has blocked it for lockWaitMs (a stuck lock it may not break),
   * or after 4 x lockWaitMs in all; while the lock keeps changing hands the others are making progress, so it waits on.
   */
  async function acquire(path: string): Promise<Acquired> {
    const lockPath = `${path}.lock`
    const start = Date.now()
    let deadline = start + lockWaitMs
    let holder: string | undefined
    let delay = 1
    let madeDir = false
    for (;;) {
      const { body, token } = lockBody()
      try {
        await createExclusive(lockPath, body)
        return { kind: "held", release: () => release(lockPath, token) }
      } catch (error) {
        if (code(error) === "ENOENT" && !madeDir) {
          madeDir = true
          try {
            await fs.mkdir(dir, { recursive: true })
          } catch (mkdirError) {
            return { kind: "error", error: mkdirError }
          }
          continue
        }
        if (code(error) !== "EEXIST") return { kind: "error", error }
      }
      const seen = await inspect(lockPath)
      if (seen !== "gone" && seen.raw !== holder) {
        if (holder !== undefined) deadline = Math.min(Date.now() + lockWaitMs, start + 4 * lockWaitMs)
        holder = seen.raw
      }
      // The deadline comes first so that no odd lock path (a dangling symlink, say) can spin this loop forever.
      if (Date.now() >= deadline) return { kind: "timeout" }
      if (seen === "gone" || (seen.stale && (await breakLock(lockPath, seen)))) continue
      await sleep(delay * (0.5 + Math.random()))
      delay = Math.min(delay * 2, 40)
    }
  }

  async function release(lockPath: string, token: string): Promise<void> {
    try {
      // Only remove our own lock: it may have been judged stale and replaced meanwhile.
      if (parseLock(await fs.readFile(lockPath, "utf8"))?.token === token) await fs.unlink(lockPath)
    } catch {
      // Gone already, or unreadable: a stale lock is broken by the next waiter anyway.
    }
  }

  // ----- updates -----

  function apply(current: Snapshot, fn: (s: Snapshot) => Snapshot | undefined, persisted: boolean) {
    const next = fn(current)
    if (next === undefined) return undefined
    // Refuse to write what the next read would call corrupt; this is a caller bug, not an I/O problem.
    const checked = parse(next.list)
    if (!checked.ok) throw new Error(`Refusing to store an invalid todo list: ${checked.error}`)
    return { list: checked.value, revision: current.revision + 1, edits: [...next.edits], persisted }
  }

  function inMemory(session: string, current: Snapshot, fn: (s: Snapshot) => Snapshot | undefined): Snapshot {
    const next = apply(current, fn, false)
    if (next) memory.set(session, next)
    return next ?? current
  }

  async function locked(session: string, fn: (s: Snapshot) => Snapshot | undefined): Promise<Snapshot> {
    const kept = memory.get(session)
    if (kept) return inMemory(session, kept, fn)
    const path = file(session)
    const lock = await acquire(path)
    if (lock.kind !== "held") {
      const seen = await load(session)
      const base = seen.kind === "ok" ? seen.snap : EMPTY
      if (lock.kind === "error") return inMemory(session, unusable(session, base, lock.error), fn)
      const message =
        `The todo list of session ${sessionLabel(session)} stayed locked by another process; ` +
        "this session's list is kept in memory only from now on."
      return inMemory(session, toMemory(session, base, `lock:${session}`, message), fn)
    }
    try {
      const loaded = await load(session)
      let current: Snapshot
      if (loaded.kind === "ok") current = loaded.snap
      else if (loaded.kind === "newer") return inMemory(session, newer(session, loaded.version), fn)
      else if (loaded.kind === "error") return inMemory(session, unusable(session, EMPTY, loaded.error), fn)
      else {
        try {
          const aside = await moveAside(path)
          warnOnce(
            `corrupt:${session}`,
            `The saved todo list of session ${sessionLabel(session)} was unreadable (${loaded.reason}); ` +
              `it was moved to ${basename(aside)} and the session starts with an empty list.`,
          )
        } catch (error) {
          return inMemory(session, unusable(session, EMPTY, error), fn)
        }
        current = EMPTY
      }
      const next = apply(current, fn, true)
      if (!next) return current
      const record = {
        version: RECORD_VERSION,
        session,
        revision: next.revision,
        list: next.list,
        edits: next.edits,
      }
      const text = `${JSON.stringify(record, null, 2)}\n`
      try {
        await writeAtomic(fs, path, text)
      } catch (error) {
        return unusable(session, next, error)
      }
      return next
    } finally {
      await lock.release()
    }
  }

  /** Runs jobs of one session one after another in this process; the lock file orders them across processes. */
  function enqueue<T>(session: string, job: () => Promise<T>): Promise<T> {
    const run = (queues.get(session) ?? Promise.resolve()).then(job)
    const tail = run.then(noop, noop)
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
      if (loaded.kind === "newer") return newer(session, loaded.version)
      if (loaded.kind === "error") return unusable(session, EMPTY, loaded.error)
      // Corrupt: re-check and move it aside under the lock, so a record written meanwhile is never moved.
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

// ----- file helpers -----

function tempName(path: string): string {
  tempSeq += 1
  // pid + counter, plus a random tail in case two bundled copies of this module share one process.
  return `${path}.${process.pid}.${tempSeq}-${randomBytes(3).toString("hex")}.tmp`
}

async function writeNew(fs: Fs, path: string, text: string, sync: boolean): Promise<void> {
  const handle = await fs.open(path, "wx")
  try {
    await handle.writeFile(text, "utf8")
    if (sync) await handle.sync()
  } finally {
    await handle.close()
  }
}

/** Temp file in the same folder, fsync, rename over the record, fsync the folder. */
async function writeAtomic(fs: Fs, path: string, text: string): Promise<void> {
  const temp = tempName(path)
  try {
    await writeNew(fs, temp, text, true)
    await renameWithRetry(fs, temp, path)
  } catch (error) {
    await fs.unlink(temp).catch(noop)
    throw error
  }
  let handle: nodeFs.FileHandle | undefined
  try {
    handle = await fs.open(dirname(path), "r")
    await handle.sync()
  } catch (error) {
    if (!DIR_SYNC_UNSUPPORTED.has(code(error))) throw error
  } finally {
    await handle?.close().catch(noop)
  }
}

async function renameWithRetry(fs: Fs, from: string, to: string): Promise<void> {
  // Windows refuses to replace a file another process has open for a moment; elsewhere these errors are final.
  for (let attempt = 0; ; attempt++) {
    try {
      return await fs.rename(from, to)
    } catch (error) {
      if (process.platform !== "win32" || attempt >= 10 || !RENAME_RETRY_WIN32.has(code(error))) throw error
      await sleep(20)
    }
  }
}

async function exists(fs: Fs, path: string): Promise<boolean> {
  try {
    await fs.stat(path)
    return true
  } catch {
    return false
  }
}

function lockBody(): { body: string; token: string } {
  const token = randomBytes(8).toString("hex")
  return { body: JSON.stringify({ pid: process.pid, host: HOST, time: Date.now(), token }), token }
}

function parseLock(raw: string): LockInfo | undefined {
  try {
    const v: unknown = JSON.parse(raw)
    if (
      isRecord(v) &&
      typeof v.pid === "number" &&
      Number.isSafeInteger(v.pid) &&
      v.pid > 0 &&
      typeof v.host === "string" &&
      typeof v.time === "number" &&
      typeof v.token === "string"
    )
      return { pid: v.pid, host: v.host, time: v.time, token: v.token }
  } catch {
    // Not a lock we wrote.
  }
  return undefined
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return code(error) === "EPERM"
  }
}

function code(error: unknown): string {
  return isRecord(error) && typeof error.code === "string" ? error.code : ""
}

function describe(error: unknown): string {
  return code(error) || (error instanceof Error ? error.message : String(error))
}

/** Session ids in messages: quoted, escaped, and cut short (hostile ids can be huge or contain control bytes). */
function sessionLabel(session: string): string {
  return JSON.stringify(session.length > 40 ? `${session.slice(0, 39)}…` : session)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

function noop(): void {}
