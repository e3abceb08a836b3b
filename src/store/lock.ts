// The cross-process lock of one session record: <record>.lock holds {pid, host, time, token} and is created whole
// by linking a finished temp file. A lock whose owner died on this host, or that is older than staleMs, is broken;
// waiting gives up when one holder blocks it for waitMs, or after 4 x waitMs in all.

import { randomBytes } from "node:crypto"
import { hostname } from "node:os"
import { basename, dirname, join } from "node:path"
import { isRecord } from "../core/result.ts"
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

export type Acquired =
  | { readonly kind: "held"; readonly release: () => Promise<void> }
  | { readonly kind: "timeout" }
  | { readonly kind: "error"; readonly error: unknown }

export interface LockOptions {
  readonly fs: Fs
  /** The folder of the records; created on the first lock if missing. */
  readonly dir: string
  /** How long to wait for another holder of the lock before giving up. */
  readonly waitMs: number
  /** A lock older than this is broken even if its owner seems alive (owner hung, or pid reused). */
  readonly staleMs: number
}

export interface Locks {
  /** Takes the lock of the record at `path`; never throws. */
  acquire(path: string): Promise<Acquired>
}

interface LockInfo {
  readonly pid: number
  readonly host: string
  readonly time: number
  readonly token: string
}

const HOST = hostname()

export function createLocks(options: LockOptions): Locks {
  const { fs, dir, waitMs, staleMs } = options

  async function createExclusive(path: string, body: string): Promise<void> {
    const temp = tempName(path)
    await writeNew(fs, temp, body, false)
    try {
      await fs.link(temp, path)
    } catch (error) {
      if (!LINK_UNSUPPORTED.has(errorCode(error))) throw error
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
      return errorCode(error) === "ENOENT" ? "gone" : { raw: "", stale: false }
    }
    const info = parseLock(raw)
    if (info) {
      const dead = info.host === HOST && !alive(info.pid)
      if (dead) return { raw, stale: true, deadPid: info.pid }
      return { raw, stale: Date.now() - info.time > staleMs }
    }
    try {
      return { raw, stale: Date.now() - (await fs.stat(path)).mtimeMs > staleMs }
    } catch (error) {
      return errorCode(error) === "ENOENT" ? "gone" : { raw, stale: false }
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
   * staleMs (no live write keeps a temp that long: data temps exist only under a lock, which is stale by then).
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
        if (Number(temp[1]) === deadPid || Date.now() - (await fs.stat(path)).mtimeMs > staleMs)
          await fs.unlink(path)
      } catch {
        // Hygiene only.
      }
    }
  }

  /**
   * Waits for the lock. It gives up when one holder has blocked it for waitMs (a stuck lock it may not break),
   * or after 4 x waitMs in all; while the lock keeps changing hands the others are making progress, so it waits on.
   */
  async function acquire(path: string): Promise<Acquired> {
    const lockPath = `${path}.lock`
    const start = Date.now()
    let deadline = start + waitMs
    let holder: string | undefined
    let delay = 1
    let madeDir = false
    for (;;) {
      const { body, token } = lockBody()
      try {
        await createExclusive(lockPath, body)
        return { kind: "held", release: () => release(lockPath, token) }
      } catch (error) {
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

  return { acquire }
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
    return errorCode(error) === "EPERM"
  }
}
