// The cross-process lock of one session record: waiting for <record>.lock (its file: lock-file.ts), breaking it
// and sweeping what crashed writers left, and releasing it. policy.ts decides whether a lock may be broken: a live
// process on this machine keeps its lock however long it takes; waiting gives up when one holder blocks it for
// waitMs, or after 4 x waitMs in all. A holder confirms its token just before it renames.

import { basename, dirname, join } from "node:path"
import { errorCode, type Fs, noop, sleep, TEMP_SUFFIX } from "./files.ts"
import { alive, REALM } from "./identity.ts"
import { createExclusive, holds, inspect, lockBody, type Seen } from "./lock-file.ts"
import { mayBreakLock, maySweepTemp } from "./policy.ts"

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

export function createLocks(options: LockOptions): Locks {
  return { acquire: (path) => acquire(options, path) }
}

/**
 * Waits for the lock. It gives up when one holder has blocked it for waitMs (a live holder, stopped or slow),
 * or after 4 x waitMs in all; while the lock keeps changing hands the others are making progress, so it waits on.
 */
async function acquire(options: LockOptions, path: string): Promise<Acquired> {
  const { fs, dir, waitMs, staleMs } = options
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
      await createExclusive(fs, lockPath, body)
      return {
        kind: "held",
        holds: () => holds(fs, lockPath, token),
        release: () => release(fs, lockPath, token),
      }
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
    const seen = await inspect(fs, lockPath)
    if (seen !== "gone" && seen.raw !== holder) {
      if (holder !== undefined) deadline = Math.min(Date.now() + waitMs, start + 4 * waitMs)
      holder = seen.raw
      watchedFrom = Date.now()
    }
    // The deadline comes first so that no odd lock path (a dangling symlink, say) can spin this loop forever.
    if (Date.now() >= deadline) return { kind: "timeout" }
    if (seen === "gone") continue
    const verdict = { holder: seen.holder, ageMs: seen.ageMs, watchedMs: Date.now() - watchedFrom, staleMs }
    if (mayBreakLock(verdict) && (await breakLock(options, lockPath, seen))) continue
    await sleep(delay * (0.5 + Math.random()))
    delay = Math.min(delay * 2, 40)
  }
}

/** Removes a lock that may be broken. Breakers take a guard file so two of them cannot remove a lock a third just took. */
async function breakLock(options: LockOptions, lockPath: string, seen: Seen): Promise<boolean> {
  const { fs, staleMs } = options
  const guard = `${lockPath}.break`
  const mine = lockBody()
  // Held while it exists, so that another breaker of this realm does not take it for a leaked one.
  REALM.held.add(mine.token)
  try {
    await createExclusive(fs, guard, mine.body)
  } catch {
    REALM.held.delete(mine.token)
    const other = await inspect(fs, guard)
    if (other !== "gone" && mayBreakLock({ holder: other.holder, ageMs: other.ageMs, watchedMs: 0, staleMs }))
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
  await sweepTemps(options, lockPath, seen.holder === "gone" ? seen.pid : undefined)
  return true
}

/** Deletes temp files of this record that crashed writers left behind (policy.ts says which). */
async function sweepTemps(
  options: LockOptions,
  lockPath: string,
  gonePid: number | undefined,
): Promise<void> {
  const { fs, staleMs } = options
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

/** Releases the lock at `lockPath` if this holder (`token`) still has it. */
async function release(fs: Fs, lockPath: string, token: string): Promise<void> {
  try {
    // Only remove our own lock: it may have been broken and taken by another meanwhile.
    if (await holds(fs, lockPath, token)) await fs.unlink(lockPath)
  } catch {
    // Left in place: no longer held here, so the next waiter of this realm finds it leaked and breaks it.
  } finally {
    REALM.held.delete(token)
  }
}
