// The one way the plugin reads and writes files a user or a cloned repository controls (todo.json, TODO.md).
// It never blocks on open, reads regular files only and at most a byte cap, replaces a file atomically and
// never writes through a symbolic link: a FIFO, /dev/zero or a 100 MB file cannot stall or exhaust the host.

import { constants } from "node:fs"
import * as fsp from "node:fs/promises"
import { dirname } from "node:path"
import { errorCode, type Fs, writeAtomic } from "../store/files.ts"

/** The largest todo.json read: far above any real config, far below what could hurt the host. */
export const CONFIG_MAX_BYTES = 1024 * 1024
/** The largest TODO.md read (import, and the check before an export overwrites a file). */
export const TODO_MAX_BYTES = 4 * 1024 * 1024

/** Why a read gave no text; the caller words it for its reader. */
export type ReadProblem =
  | { readonly kind: "missing" }
  | { readonly kind: "special"; readonly what: string }
  | { readonly kind: "too-large"; readonly max: number }
  | { readonly kind: "not-text" }
  | { readonly kind: "unreadable"; readonly code: string }

export type ReadOutcome =
  | { readonly ok: true; readonly text: string }
  | ({ readonly ok: false } & ReadProblem)

// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; Windows has no such flag.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0)

function kindOf(stats: { isFile(): boolean; isDirectory(): boolean; isFIFO(): boolean }): string {
  if (stats.isFile()) return "file"
  if (stats.isDirectory()) return "a folder"
  if (stats.isFIFO()) return "a named pipe"
  return "a device or socket"
}

/**
 * Reads a regular file as UTF-8, at most `maxBytes`. The path is checked before opening (so a device is never
 * opened) and the open handle again (so a swap in between is caught); only then is it read, through that handle.
 */
export async function readTextFile(path: string, maxBytes: number): Promise<ReadOutcome> {
  let handle: fsp.FileHandle | undefined
  try {
    const before = await fsp.stat(path)
    if (!before.isFile()) return { ok: false, kind: "special", what: kindOf(before) }
    handle = await fsp.open(path, OPEN_FLAGS)
    const stats = await handle.stat()
    if (!stats.isFile()) return { ok: false, kind: "special", what: kindOf(stats) }
    if (stats.size > maxBytes) return { ok: false, kind: "too-large", max: maxBytes }
    // One byte more than the cap tells a file that grew since fstat from one that fits.
    const buffer = Buffer.alloc(Math.min(stats.size, maxBytes) + 1)
    let length = 0
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length)
      if (bytesRead === 0) break
      length += bytesRead
    }
    if (length > maxBytes) return { ok: false, kind: "too-large", max: maxBytes }
    try {
      return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(buffer.subarray(0, length)) }
    } catch {
      return { ok: false, kind: "not-text" }
    }
  } catch (error) {
    const code = errorCode(error)
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, kind: "missing" }
    return { ok: false, kind: "unreadable", code: code || String(error) }
  } finally {
    await handle?.close().catch(() => {})
  }
}

/** A read problem as the end of a sentence starting with the file's path. */
export function readProblemText(problem: ReadProblem): string {
  switch (problem.kind) {
    case "missing":
      return "does not exist"
    case "special":
      return `is ${problem.what}, not a regular file`
    case "too-large":
      return `is larger than ${megabytes(problem.max)}`
    case "not-text":
      return "is not UTF-8 text"
    case "unreadable":
      return `cannot be read (${problem.code})`
  }
}

function megabytes(bytes: number): string {
  return `${bytes / (1024 * 1024)} MB`
}

/** What is at a path, without following a final symbolic link. */
export async function entryKind(path: string): Promise<"none" | "file" | "link" | "other"> {
  try {
    const stats = await fsp.lstat(path)
    if (stats.isSymbolicLink()) return "link"
    return stats.isFile() ? "file" : "other"
  } catch (error) {
    if (errorCode(error) === "ENOENT") return "none"
    throw error
  }
}

/**
 * Replaces `path` with `text`: a temp file in the same folder, then a rename, so a full disk leaves the old file
 * whole. The new file keeps the old one's mode, and its owner where the process may give it. A symbolic link at
 * `path` is refused rather than followed or replaced. Creates missing folders.
 */
export async function replaceFile(path: string, text: string, fs: Fs = fsp): Promise<void> {
  if ((await entryKind(path)) === "link") throw Object.assign(new Error("symbolic link"), { code: "ELOOP" })
  await fs.mkdir(dirname(path), { recursive: true })
  const old = await fs.stat(path).catch(() => undefined)
  const keep = old === undefined ? undefined : { mode: old.mode, uid: old.uid, gid: old.gid }
  // "lost": the temporary file vanished before the rename, so nothing was written; say so, never "wrote".
  if ((await writeAtomic(fs, path, text, undefined, keep)) === "lost")
    throw Object.assign(new Error("the temporary file vanished before the rename"), { code: "ENOENT" })
}
