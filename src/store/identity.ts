// Who this process is to a lock, and whether the process a lock names still runs on this machine. A process
// is its host name, its start identity (Linux: the boot and the process's start time, so a reused pid is told
// apart) and the JavaScript realm it runs in, with the lock tokens that realm holds. Node built-ins only.

import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { hostname } from "node:os"
import { errorCode } from "./files.ts"

export const HOST = hostname()
const BOOT = readSmall("/proc/sys/kernel/random/boot_id")?.trim()
/** This process's start identity; undefined where the platform does not tell. */
export const START = startIdentity(process.pid)

/**
 * This JavaScript realm's id and the tokens it holds, shared by every copy of this module loaded in it (the
 * server and TUI bundles, repeated plugin loads). Another realm with the same pid (a worker thread) has its own.
 */
export const REALM: { readonly id: string; readonly held: Set<string> } = (() => {
  const key = Symbol.for("opencode-todo: store lock realm")
  const slot = globalThis as { [key: symbol]: { id: string; held: Set<string> } | undefined }
  slot[key] ??= { id: randomBytes(8).toString("hex"), held: new Set() }
  return slot[key]
})()

/** A process with this pid exists here. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return errorCode(error) === "EPERM"
  }
}

/**
 * Which process runs under `pid` on Linux: the boot and the process's start time, so a pid reused after a
 * holder died is told apart from the holder. Undefined where /proc cannot tell (other systems, hidden pids).
 */
export function startIdentity(pid: number): string | undefined {
  if (BOOT === undefined) return undefined
  const stat = readSmall(`/proc/${pid}/stat`)
  // The command name (field 2) may hold spaces and parentheses; the fields after its last ")" are plain.
  const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ")
  const started = fields?.[19]
  return started && /^\d+$/.test(started) ? `${BOOT}:${started}` : undefined
}

function readSmall(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}
