// The file operations the store and its lock share: record file names, temp files, atomic replacement,
// moving a corrupt record aside, and reading an error's code. Node built-ins only.

import { createHash, randomBytes } from "node:crypto"
import type * as nodeFs from "node:fs/promises"
import { basename, dirname } from "node:path"
import { isRecord } from "../core/list/result.ts"

/** The slice of node:fs/promises the store uses; injectable so tests can simulate EROFS or a full disk. */
export type Fs = Pick<
  typeof nodeFs,
  "open" | "readFile" | "rename" | "stat" | "unlink" | "mkdir" | "link" | "readdir"
>

/** Errors of `link` on file systems without hard links. */
export const LINK_UNSUPPORTED = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EXDEV"])
const DIR_SYNC_UNSUPPORTED = new Set(["EINVAL", "EPERM", "EISDIR", "ENOTSUP"])
const RENAME_RETRY_WIN32 = new Set(["EPERM", "EACCES", "EBUSY"])

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

let tempSeq = 0

/** "<path>.<pid>.<n>-<random>.tmp": a new name beside `path`; the pid lets a lock breaker sweep a dead writer's temps. */
export function tempName(path: string): string {
  tempSeq += 1
  // pid + counter, plus a random tail in case two bundled copies of this module share one process.
  return `${path}.${process.pid}.${tempSeq}-${randomBytes(3).toString("hex")}.tmp`
}

/** What tempName() appends to "<record>", "<record>.lock" or "<record>.lock.break"; group 1 is the pid. */
export const TEMP_SUFFIX = /^(?:\.lock(?:\.break)?)?\.(\d+)\.\d+-[0-9a-f]+\.tmp$/

/** The mode and owner of a file being replaced, for its replacement to keep. */
export interface Kept {
  readonly mode: number
  readonly uid: number
  readonly gid: number
}

/** Creates a file that must not exist yet; with `keep`, with that mode and (where the process may) owner. */
export async function writeNew(
  fs: Fs,
  path: string,
  text: string | Uint8Array | readonly string[],
  sync: boolean,
  keep?: Kept,
): Promise<void> {
  const handle = await fs.open(path, "wx", keep === undefined ? undefined : keep.mode & 0o7777)
  try {
    if (keep !== undefined) {
      // The umask narrowed the mode given at creation: set it exactly.
      await handle.chmod(keep.mode & 0o7777)
      const now = await handle.stat()
      if (now.uid !== keep.uid || now.gid !== keep.gid) await handle.chown(keep.uid, keep.gid).catch(noop)
    }
    // Pieces are written one after another, so a big record never becomes one string or one buffer at once.
    if (typeof text === "string" || text instanceof Uint8Array) await handle.writeFile(text, "utf8")
    else for (const piece of text) await handle.writeFile(piece, "utf8")
    if (sync) await handle.sync()
  } finally {
    await handle.close()
  }
}

/**
 * Temp file in the same folder, fsync, rename over the record, fsync the folder. `fence` runs just before the
 * rename: when it says the lock is no longer ours, nothing is renamed. "lost": the write did not land because
 * the fence failed or the temp file was gone (swept by another process); the caller writes again.
 */
export async function writeAtomic(
  fs: Fs,
  path: string,
  text: string | readonly string[],
  fence: () => Promise<boolean> = async () => true,
  keep?: Kept,
): Promise<"written" | "lost"> {
  const temp = tempName(path)
  try {
    await writeNew(fs, temp, text, true, keep)
    if (!(await fence())) {
      await fs.unlink(temp).catch(noop)
      return "lost"
    }
    await renameWithRetry(fs, temp, path)
  } catch (error) {
    await fs.unlink(temp).catch(noop)
    if (errorCode(error) === "ENOENT" && !(await exists(fs, dirname(path)))) throw error
    if (errorCode(error) === "ENOENT") return "lost"
    throw error
  }
  let handle: nodeFs.FileHandle | undefined
  try {
    handle = await fs.open(dirname(path), "r")
    await handle.sync()
  } catch (error) {
    if (!DIR_SYNC_UNSUPPORTED.has(errorCode(error))) throw error
  } finally {
    await handle?.close().catch(noop)
  }
  return "written"
}

async function renameWithRetry(fs: Fs, from: string, to: string): Promise<void> {
  // Windows refuses to replace a file another process has open for a moment; elsewhere these errors are final.
  for (let attempt = 0; ; attempt++) {
    try {
      return await fs.rename(from, to)
    } catch (error) {
      if (process.platform !== "win32" || attempt >= 10 || !RENAME_RETRY_WIN32.has(errorCode(error)))
        throw error
      await sleep(20)
    }
  }
}

/** Moves a corrupt record to <file>.corrupt-<n> without ever replacing an earlier one. Run it under the lock. */
export async function moveAside(fs: Fs, path: string): Promise<string> {
  for (let n = await firstAside(fs, path); ; n++) {
    const aside = `${path}.corrupt-${n}`
    try {
      // link fails on an existing name, so an aside is never overwritten.
      await fs.link(path, aside)
      await fs.unlink(path)
      return aside
    } catch (error) {
      if (errorCode(error) === "EEXIST") continue
      if (!LINK_UNSUPPORTED.has(errorCode(error))) throw error
      if (await exists(fs, aside)) continue
      await fs.rename(path, aside)
      return aside
    }
  }
}

/**
 * Gives a corrupt record a second name <file>.corrupt-<n> (never replacing an earlier one) and leaves it in
 * place: a record about to be written over stays corrupt, not missing, if that write does not land. Without
 * hard links the bytes are copied. Run it under the lock.
 */
export async function keepAside(fs: Fs, path: string): Promise<string> {
  let bytes: Uint8Array | undefined
  for (let n = await firstAside(fs, path); ; n++) {
    const aside = `${path}.corrupt-${n}`
    try {
      if (bytes === undefined) await fs.link(path, aside)
      else await writeNew(fs, aside, bytes, true)
      return aside
    } catch (error) {
      if (errorCode(error) === "EEXIST") continue
      if (bytes !== undefined || !LINK_UNSUPPORTED.has(errorCode(error))) throw error
      bytes = await fs.readFile(path)
      n--
    }
  }
}

/** The number of the next <file>.corrupt-<n>: one above the highest in the folder. */
async function firstAside(fs: Fs, path: string): Promise<number> {
  const base = basename(path)
  let n = 1
  for (const name of await fs.readdir(dirname(path))) {
    const match = name.startsWith(`${base}.corrupt-`) ? /^\d+$/.exec(name.slice(base.length + 9)) : null
    if (match) n = Math.max(n, Number(match[0]) + 1)
  }
  return n
}

async function exists(fs: Fs, path: string): Promise<boolean> {
  try {
    await fs.stat(path)
    return true
  } catch {
    return false
  }
}

/** The error's code ("ENOENT"), or "" when it has none. */
export function errorCode(error: unknown): string {
  return isRecord(error) && typeof error.code === "string" ? error.code : ""
}

/** An error in a warning: its code, else its message. */
export function describeError(error: unknown): string {
  return errorCode(error) || (error instanceof Error ? error.message : String(error))
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

export function noop(): void {}
