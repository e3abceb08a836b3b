// The store's pure decisions: who holds a lock, whether to break a lock or sweep a temp file, and what
// becomes of a list kept in memory once storage works again. The adapters (lock.ts, store.ts) gather the
// facts (process checks, clocks, file ages) and carry the verdicts out.

import type { Snapshot } from "./record.ts"

/** What a waiter could find out about the process named in a lock. */
export interface HolderFacts {
  /** The lock names this machine (its host name). Nothing about another machine's processes can be checked. */
  readonly onThisHost: boolean
  /** A process with the lock's pid exists here (`kill(pid, 0)` succeeded or said EPERM). */
  readonly pidAlive: boolean
  /** The lock's start identity of its process (boot and start time, where the platform tells). */
  readonly startInLock: string | undefined
  /** The start identity of the process that has that pid now; undefined where it cannot be read. */
  readonly startNow: string | undefined
  /** The lock was taken in this very JavaScript realm (same pid, same module instance registry). */
  readonly ownRealm: boolean
  /** ...and this realm holds its token right now. */
  readonly heldHere: boolean
}

/**
 * "running": a live process holds it, however long it takes (stopped, swapped out, in a long fsync).
 * "gone": its process has ended, or its pid now belongs to another process; "leaked": this realm
 * took it and no longer holds it (a failed release). "unconfirmed": nobody can vouch for it.
 */
export type Holder = "running" | "gone" | "leaked" | "unconfirmed"

export function judgeHolder(f: HolderFacts): Holder {
  if (!f.onThisHost) return "unconfirmed"
  if (f.ownRealm) return f.heldHere ? "running" : "leaked"
  if (!f.pidAlive) return "gone"
  // A pid alive under another start identity was reused by a new process after the holder died.
  if (f.startInLock !== undefined && f.startNow !== undefined && f.startInLock !== f.startNow) return "gone"
  return "running"
}

export interface LockFacts {
  readonly holder: Holder
  /** Milliseconds since the lock says it was taken (its time, else its file's mtime); negative when dated ahead. */
  readonly ageMs: number
  /** How long this waiter has watched the very same lock (same bytes) in place. */
  readonly watchedMs: number
  readonly staleMs: number
}

/**
 * A live holder's lock is never broken, whatever its age: its writes are under way, and breaking it is
 * how committed updates were lost. A lock nobody can vouch for is broken once it is older than staleMs
 * by its own date, or, when that date cannot be trusted (a clock ahead of ours), once this waiter has
 * watched it unchanged for staleMs.
 */
export function mayBreakLock(f: LockFacts): boolean {
  switch (f.holder) {
    case "running":
      return false
    case "gone":
    case "leaked":
      return true
    case "unconfirmed":
      return f.ageMs > f.staleMs || f.watchedMs >= f.staleMs
  }
}

export interface TempFacts {
  /** A process with the pid in the temporary file's name exists here. */
  readonly pidAlive: boolean
  /** That pid is the one of a lock holder found gone. */
  readonly ofGoneHolder: boolean
  readonly ageMs: number
  readonly staleMs: number
}

/**
 * A temporary file of a live process is never swept: that process may be about to rename it. Others are
 * swept when their writer was the gone lock holder, or when they are older than staleMs (a writer on
 * another machine whose temp is swept finds it gone and writes again).
 */
export function maySweepTemp(f: TempFacts): boolean {
  if (f.pidAlive) return false
  return f.ofGoneHolder || f.ageMs > f.staleMs
}

/** A session kept in memory since storage failed. */
export interface Fallback {
  /** The list as this process has it now. */
  readonly kept: Snapshot
  /** The revision `kept` started from when storage failed. */
  readonly start: number
  /** The stored record's revision when storage failed; undefined when it could not be read. */
  readonly storedThen: number | undefined
}

export type Reunion =
  /** Write `snap` (the memory list, at a revision above the stored one) and go on from it. */
  | { readonly kind: "write-back"; readonly snap: Snapshot }
  /** Go on from the stored list; `unsaved` changes of the memory list are dropped (0: there were none). */
  | { readonly kind: "stored"; readonly unsaved: number }

/**
 * Storage works again and the stored record reads as `stored`. The memory list is written back only when
 * nobody wrote the record since the fallback began (its revision is the one seen then, or, when that was
 * not known, there is still no record); otherwise the stored list wins and the caller says what was lost.
 */
export function reunite(stored: Snapshot, fallback: Fallback): Reunion {
  const unsaved = Math.max(0, fallback.kept.revision - fallback.start)
  if (unsaved === 0) return { kind: "stored", unsaved: 0 }
  const untouched =
    fallback.storedThen === undefined ? stored.revision === 0 : stored.revision === fallback.storedThen
  if (!untouched) return { kind: "stored", unsaved }
  // The memory list's revision counts on from the stored one, so the record's revision never goes back.
  const revision = Math.max(fallback.kept.revision, stored.revision + 1)
  return { kind: "write-back", snap: { ...fallback.kept, revision, persisted: true } }
}
