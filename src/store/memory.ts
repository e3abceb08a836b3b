// The memory fallback: the sessions this process keeps in memory after storage failed for them. Each goes
// back to the disk once storage works again (policy.ts decides whether the memory list is written back; the
// warnings here say what was lost). A session whose record a newer version wrote stays in memory for good.

import { diffLists } from "../core/list/diff.ts"
import type { TodoList } from "../core/list/types.ts"
import { describeError } from "./files.ts"
import { type Fallback, reunite } from "./policy.ts"
import { EMPTY, type Snapshot } from "./record.ts"
import { sessionLabel, type Warnings } from "./warnings.ts"

/** A session kept in memory; `permanent` when its record must not be touched (a newer version wrote it). */
export interface Kept extends Fallback {
  /** The list the memory episode started from: what the changes made in memory are told against. */
  readonly startList: TodoList
  readonly permanent: boolean
}

export interface Memory {
  get(session: string): Kept | undefined
  /** Replaces the list of a session kept in memory (a change made there). */
  keep(session: string, snap: Snapshot): void
  /**
   * Storage failed: the session goes on in memory from `snap`. `stored` is the record as last read (undefined
   * when unknown); a session already in memory keeps what it knew when it first fell back.
   */
  unusable(session: string, snap: Snapshot, stored: Snapshot | undefined, error: unknown): Snapshot
  /** A write of `snap`, made from the record as read just now (`stored`), failed: a new episode starts. */
  restart(session: string, snap: Snapshot, stored: Snapshot, error: unknown): Snapshot
  /** The record was written by a newer version (record `version`): the session stays in memory, empty. */
  newer(session: string, version: number): void
  /**
   * Where a session in memory goes on from, now that its record reads as `stored`: its memory list written
   * back, or the stored list (saying what was lost). `write` is set when the memory list must be written.
   */
  rejoin(session: string, stored: Snapshot): { readonly base: Snapshot; readonly write: boolean }
  /** The session's memory episode ended with the record written: say so once and allow a later warning. */
  rejoined(session: string, wroteBack: boolean): void
}

export function createMemory(dir: string, warnings: Warnings): Memory {
  const kept = new Map<string, Kept>()

  /** Keeps the session in memory from `from` on (the list as this process has it). */
  function toMemory(session: string, from: Kept, key: string, message: string): Snapshot {
    const snap = { ...from.kept, persisted: false }
    kept.set(session, { ...from, kept: snap })
    warnings.once(key, message)
    return snap
  }

  function unusable(session: string, snap: Snapshot, stored: Snapshot | undefined, error: unknown): Snapshot {
    const before = kept.get(session)
    const from: Kept = before
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
      from,
      "unwritable",
      `Todo storage in ${dir} is not usable (${describeError(error)}); todo lists are kept in memory only for now. ` +
        "The next change tries the disk again.",
    )
  }

  function rejoin(session: string, stored: Snapshot): { base: Snapshot; write: boolean } {
    const episode = kept.get(session)
    if (!episode) return { base: stored, write: false }
    const verdict = reunite(stored, episode)
    if (verdict.kind === "write-back") return { base: verdict.snap, write: true }
    if (verdict.unsaved > 0) {
      const lines = diffLists(episode.startList, episode.kept.list).lines
      const shown = lines.slice(0, 3).join("; ") + (lines.length > 3 ? `; and ${lines.length - 3} more` : "")
      warnings.once(
        `lost:${session}:${episode.kept.revision}`,
        `Todo storage in ${dir} works again, but another process changed the saved todo list of session ${sessionLabel(session)} meanwhile, ` +
          `so ${verdict.unsaved === 1 ? "1 change" : `${verdict.unsaved} changes`} made here while it was unusable ${verdict.unsaved === 1 ? "was" : "were"} not saved` +
          `${shown ? ` (${shown})` : ""}. The saved list is used from now on.`,
      )
    }
    return { base: stored, write: false }
  }

  return {
    get: (session) => kept.get(session),
    keep(session, snap) {
      const episode = kept.get(session)
      if (episode) kept.set(session, { ...episode, kept: snap })
    },
    unusable,
    restart(session, snap, stored, error) {
      kept.delete(session)
      return unusable(session, snap, stored, error)
    },
    newer(session, version) {
      toMemory(
        session,
        { kept: EMPTY, start: 0, storedThen: undefined, startList: [], permanent: true },
        `newer:${session}`,
        `The todo list of session ${sessionLabel(session)} was saved by a newer plugin version (record version ${version}); ` +
          "it is left untouched and this session's list is kept in memory only.",
      )
    },
    rejoin,
    rejoined(session, wroteBack) {
      if (!kept.delete(session)) return
      warnings.allow("unwritable")
      if (wroteBack)
        warnings.once(
          `saved:${session}`,
          `Todo storage in ${dir} works again; the todo list of session ${sessionLabel(session)}, kept in memory meanwhile, is saved.`,
        )
    },
  }
}
