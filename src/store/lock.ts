// The cross-process lock of one session record: <record>.lock holds {pid, host, start, realm, time, token} and is
// created whole by linking a finished temp file. identity.ts finds out who holds it; policy.ts decides whether it
// may be broken: a live process on this machine keeps its lock however long it takes; waiting gives up when one
// holder blocks it for waitMs, or after 4 x waitMs in all. A holder confirms its token just before it renames.

import { randomBytes } from "node:crypto"
import { basename, dirname, join } from "node:path"
import { isRecord } from "../core/list/result.ts"
import {
  errorCode,
  type Fs,
  LINK_UNSUPPORTED,
  noop,
  sleep,
  TEMP_SUFFIX,
  tempName,
  writeNew,
} from "./files.ts"
import { alive, HOST, REALM, START, startIdentity } from "./identity.ts"
import { type Holder, judgeHolder, mayBreakLock, maySweepTemp } from "./policy.ts"

export type Acquired =
  | {
      readonly kind: "held"
      /** True while the lock file still carries this holder's token; checked just before a rename. */
      readonly holds: () => Promise<boolean>
      readonly release: () => Promise<void>
    }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly error: unknown }

export interface LockOptions {
  readonly fs: Fs
  /** The folder of the records; created on the first lock if missing. */
  readonly dir: string
  /** How long to wait for another holder of the lock before giving up. */
  readonly waitMs: number
  /** A lock whose holder cannot be confirmed (another machine, unreadable) is broken when older than this. */
  readonly staleMs: number
}

export interface Locks {
  /** Takes the lock of the record at `path`; never throws. */
  acquire(path: string): Promise<Acquired>
}

interface LockInfo {
  readonly pid: number
  readonly host: string
  readonly start: string | undefined
  readonly realm: string | undefined
  readonly time: number
  readonly token: string
}

export function createLocks(options: LockOptions): Locks {
  const { fs, dir, waitMs, staleMs } = options

  async function createExclusive(path: string, body: string): Promise<void> {
    const temp = tempName(path)
    try {
      // Inside the try: a write that fails after the create (a full disk) must not leave the temp behind.
      await writeNew(fs, temp, body, false)
      try {
        await fs.link(temp, path)
      } catch (error) {
        if (!LINK_UNSUPPORTED.has(errorCode(error))) throw error
        // No hard links on this file system: plain exclusive create (briefly empty, judged by age if found so).
        await createPlain(path, body)
      }
    } finally {
      await fs.unlink(temp).catch(noop)
    }
  }

  async function createPlain(path: string, body: string): Promise<void> {
    try {
      await writeNew(fs, path, body, false)
    } catch (error) {
      // Remove a lock we created but could not fill; an existing one (EEXIST) is someone else's.
      if (errorCode(error) !== "EEXIST") await fs.unlink(path).catch(noop)
      throw error
    }
  }

  /** Reads a lock (or break guard) file. "gone" means it vanished while we looked. */
  async function inspect(
    path: string,
  ): Promise<"gone" | { raw: string; holder: Holder; ageMs: number; pid?: number }> {
    let raw: string
    try {
      raw = await fs.readFile(path, "utf8")
    } catch (error) {
      return errorCode(error) === "ENOENT" ? "gone" : { raw: "", holder: "unconfirmed", ageMs: 0 }
    }
    const info = parseLock(raw)
    if (info) return { raw, holder: holderOf(info), ageMs: Date.now() - info.time, pid: info.pid }
    try {
      return { raw, holder: "unconfirmed", ageMs: Date.now() - (await fs.stat(path)).mtimeMs }
    } catch (error) {
      return errorCode(error) === "ENOENT" ? "gone" : { raw, holder: "unconfirmed", ageMs: 0 }
    }
  }

  /** Removes a lock that may be broken. Breakers take a guard file so two of them cannot remove a lock a third just took. */
  async function breakLock(
    lockPath: string,
    seen: { raw: string; holder: Holder; pid?: number },
  ): Promise<boolean> {
    const guard = `${lockPath}.break`
    const mine = lockBody()
    // Held while it exists, so that another breaker of this realm does not take it for a leaked one.
    REALM.held.add(mine.token)
    try {
      await createExclusive(guard, mine.body)
    } catch {
      REALM.held.delete(mine.token)
      const other = await inspect(guard)
      if (
        other !== "gone" &&
        mayBreakLock({ holder: other.holder, ageMs: other.ageMs, watchedMs: 0, staleMs })
      )
        await fs.unlink(guard).catch(noop)
      return false
    }
    try {
      const again = await fs.readFile(lockPath, "utf8").catch(() => undefined)
      // Changed hands, gone, or unreadable: nothing to remove here (the caller waits before it looks again).
      if (again !== seen.raw) return false
      await fs.unlink(lockPath)
    } catch {
      return false
    } finally {
      await fs.unlink(guard).catch(noop)
      REALM.held.delete(mine.token)
    }
    await sweepTemps(lockPath, seen.holder === "gone" ? seen.pid : undefined)
    return true
  }

  /** Deletes temp files of this record that crashed writers left behind (policy.ts says which). */
  async function sweepTemps(lockPath: string, gonePid: number | undefined): Promise<void> {
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
      const pid = Number(temp[1])
      try {
        const ageMs = Date.now() - (await fs.stat(path)).mtimeMs
        if (maySweepTemp({ pidAlive: alive(pid), ofGoneHolder: pid === gonePid, ageMs, staleMs }))
          await fs.unlink(path)
      } catch {
        // Hygiene only.
      }
    }
  }

  /**
   * Waits for the lock. It gives up when one holder has blocked it for waitMs (a live holder, stopped or slow),
   * or after 4 x waitMs in all; while the lock keeps changing hands the others are making progress, so it waits on.
   */
  async function acquire(path: string): Promise<Acquired> {
    const lockPath = `${path}.lock`
    const start = Date.now()
    let deadline = start + waitMs
    let holder: string | undefined
    let watchedFrom = start
    let delay = 1
    let madeDir = false
    for (;;) {
      const { body, token } = lockBody()
      try {
        REALM.held.add(token)
        await createExclusive(lockPath, body)
        return { kind: "held", holds: () => holds(lockPath, token), release: () => release(lockPath, token) }
      } catch (error) {
        REALM.held.delete(token)
        if (errorCode(error) === "ENOENT" && !madeDir) {
          madeDir = true
          try {
            await fs.mkdir(dir, { recursive: true })
          } catch (mkdirError) {
            return { kind: "error", error: mkdirError }
          }
          continue
        }
        if (errorCode(error) !== "EEXIST") return { kind: "error", error }
      }
      const seen = await inspect(lockPath)
      if (seen !== "gone" && seen.raw !== holder) {
        if (holder !== undefined) deadline = Math.min(Date.now() + waitMs, start + 4 * waitMs)
        holder = seen.raw
        watchedFrom = Date.now()
      }
      // The deadline comes first so that no odd lock path (a dangling symlink, say) can spin this loop forever.
      if (Date.now() >= deadline) return { kind: "timeout" }
      if (seen === "gone") continue
      const verdict = { holder: seen.holder, ageMs: seen.ageMs, watchedMs: Date.now() - watchedFrom, staleMs }
      if (mayBreakLock(verdict) && (await breakLock(lockPath, seen))) continue
      await sleep(delay * (0.5 + Math.random()))
      delay = Math.min(delay * 2, 40)
    }
  }

  async function holds(lockPath: string, token: string): Promise<boolean> {
    try {
      return parseLock(await fs.readFile(lockPath, "utf8"))?.token === token
    } catch {
      return false
    }
  }

  async function release(lockPath: string, token: string): Promise<void> {
    try {
      // Only remove our own lock: it may have been broken and taken by another meanwhile.
      if (await holds(lockPath, token)) await fs.unlink(lockPath)
    } catch {
      // Left in place: no longer held here, so the next waiter of this realm finds it leaked and breaks it.
    } finally {
      REALM.held.delete(token)
    }
  }

  return { acquire }
}

function holderOf(info: LockInfo): Holder {
  const onThisHost = info.host === HOST
  const ownRealm = onThisHost && info.pid === process.pid && info.realm === REALM.id
  return judgeHolder({
    onThisHost,
    pidAlive: onThisHost && alive(info.pid),
    startInLock: info.start,
    startNow: onThisHost ? startIdentity(info.pid) : undefined,
    ownRealm,
    heldHere: REALM.held.has(info.token),
  })
}

function lockBody(): { body: string; token: string } {
  const token = randomBytes(8).toString("hex")
  const info = { pid: process.pid, host: HOST, start: START, realm: REALM.id, time: Date.now(), token }
  return { body: JSON.stringify(info), token }
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
      return {
        pid: v.pid,
        host: v.host,
        start: typeof v.start === "string" ? v.start : undefined,
        realm: typeof v.realm === "string" ? v.realm : undefined,
        time: v.time,
        token: v.token,
      }
  } catch {
    // Not a lock we wrote.
  }
  return undefined
}
