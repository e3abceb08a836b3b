// The store's one recovery path, under the session lock: every way a record or its lock can fail degrades to
// a warning here, never a throw. A record may fail to load corrupt, newer, missing or unreadable; one that
// turns corrupt or disappears is replaced by the list this process last read or wrote, when it knows one.

import { basename } from "node:path"
import { type Fs, keepAside, moveAside, writeAtomic } from "./files.ts"
import type { Memory } from "./memory.ts"
import { EMPTY, encodeRecordPieces, historyOf, type Snapshot } from "./record.ts"
import type { Records } from "./records.ts"
import { sessionLabel, type Warnings } from "./warnings.ts"

/** The lock's check before a write: false once the lock was lost. */
type Fence = () => Promise<boolean>

export interface Recovery {
  /**
   * The stored list, undefined when the session went to memory (a record of a newer version, an unreadable
   * folder), or "lost" when a write it made did not land. A corrupt record is moved aside only under the lock,
   * so a record another process wrote meanwhile is never moved.
   */
  recover(session: string, fence: Fence): Promise<Snapshot | undefined | "lost">
  /** The lock could not be taken (an unusable folder): the session goes to memory from what can be read. */
  lockFailed(session: string, error: unknown): Promise<void>
}

export function createRecovery(deps: {
  readonly fs: Fs
  readonly file: (session: string) => string
  readonly records: Records
  readonly memory: Memory
  readonly warnings: Warnings
}): Recovery {
  const { fs, file, records, memory, warnings } = deps

  async function recover(session: string, fence: Fence): Promise<Snapshot | undefined | "lost"> {
    const loaded = await records.load(session)
    switch (loaded.kind) {
      case "ok":
        return loaded.snap
      case "missing":
        return memory.get(session) ? EMPTY : restoreMissing(session, fence)
      case "error":
        memory.unusable(session, memory.get(session)?.kept ?? EMPTY, undefined, loaded.error)
        return undefined
      case "newer":
        memory.newer(session, loaded.version)
        return undefined
      case "corrupt":
        return replaceCorrupt(session, loaded.reason, fence)
    }
  }

  /**
   * A corrupt record goes aside. The list this process has (in memory, else as last read or written) is
   * written in its place at the next revision, so every process's stamp moves and they all go on with it;
   * with none known, the session starts empty and the server rebuilds it where its conversation shows one.
   */
  async function replaceCorrupt(
    session: string,
    reason: string,
    fence: Fence,
  ): Promise<Snapshot | undefined | "lost"> {
    const known = memory.get(session)?.kept ?? records.lastGood(session)
    const unreadable = `The saved todo list of session ${sessionLabel(session)} was unreadable (${reason})`
    try {
      if (known === undefined) {
        const aside = await moveAside(fs, file(session))
        warnings.once(
          `corrupt:${session}`,
          `${unreadable}; it was moved to ${basename(aside)}. A running server saves the list it has again; ` +
            "otherwise the list is rebuilt from the conversation where it shows one, else it starts empty.",
        )
        return EMPTY
      }
      const aside = await keepAside(fs, file(session))
      const restored = await saveKnown(session, known, fence)
      if (restored === "lost") return "lost"
      warnings.once(
        `corrupt:${session}`,
        `${unreadable}; it was moved to ${basename(aside)} and the list this process last read or wrote was saved in its place.`,
      )
      return restored
    } catch (error) {
      memory.unusable(session, memory.get(session)?.kept ?? known ?? EMPTY, undefined, error)
      return undefined
    }
  }

  /**
   * A record this process read or wrote that is gone now (moved aside as corrupt by a process that knew no
   * list, or removed) is saved again as this process last knew it, its history included; a session it never
   * knew has no record yet.
   */
  async function restoreMissing(session: string, fence: Fence): Promise<Snapshot | undefined | "lost"> {
    const known = records.lastGood(session)
    if (known === undefined) return EMPTY
    try {
      const restored = await saveKnown(session, known, fence)
      if (restored === "lost") return "lost"
      warnings.once(
        `missing:${session}`,
        `The saved todo list of session ${sessionLabel(session)} disappeared; the list this process last read or wrote was saved again.`,
      )
      return restored
    } catch (error) {
      memory.unusable(session, known, undefined, error)
      return undefined
    }
  }

  /** Writes `known` as the session's record at the next revision, so every process's stamp moves. */
  async function saveKnown(session: string, known: Snapshot, fence: Fence): Promise<Snapshot | "lost"> {
    const restored: Snapshot = {
      list: known.list,
      history: historyOf(known),
      revision: known.revision + 1,
      edits: known.edits,
      persisted: true,
    }
    if ((await writeAtomic(fs, file(session), encodeRecordPieces(session, restored), fence)) === "lost")
      return "lost"
    records.remember(session, restored)
    memory.rejoined(session, true)
    return restored
  }

  async function lockFailed(session: string, error: unknown): Promise<void> {
    const kept = memory.get(session)
    if (kept) {
      memory.unusable(session, kept.kept, undefined, error)
      return
    }
    const loaded = await records.load(session)
    const known = loaded.kind === "ok" ? loaded.snap : loaded.kind === "missing" ? EMPTY : undefined
    memory.unusable(session, known ?? EMPTY, known, error)
  }

  return { recover, lockFailed }
}
