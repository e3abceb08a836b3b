// How a tracked session's list follows the store: its first load and every later sync (a part of sessions.ts).
// The load takes the notes the TUI queued and starts a session with no record from its origin; a sync picks up
// another process's writes. It assigns nothing itself: the session changes through sessions.ts's writers.

import { samePoint } from "../core/history/rewind.ts"
import type { EditNote } from "../core/list/diff.ts"
import { isEditNote } from "../core/list/diff.ts"
import type { TodoList } from "../core/list/types.ts"
import type { HostEvent, SessionAction } from "../core/session/session.ts"
import type { FindOrigin } from "../shared/origin.ts"
import type { Snapshot } from "../store/record.ts"
import type { Store } from "../store/store.ts"
import type { AgreeHow } from "./host-agreement.ts"
import type { SessionWrites, Tracked } from "./sessions.ts"

/** The user-edit note as the core hears it. */
export function editedEvent(note: EditNote): HostEvent {
  return {
    type: "list.edited",
    lines: note.lines,
    removed: note.removed,
    ...(note.removedPhases ? { removedPhases: note.removedPhases } : {}),
  }
}

/** Takes the pending user-edit notes out of the record (under its lock), with the list they go with. */
async function takeNotes(store: Store, id: string) {
  const { snapshot, value } = await store.update(id, (current) => ({
    next: current.edits.length > 0 ? { ...current, edits: [] } : undefined,
    value: current.edits.filter(isEditNote),
  }))
  return { snapshot, notes: value ?? [] }
}

/**
 * A session never written here (a fork, an import) starts from its origin, written only while its record is
 * still unwritten: a list another process stored meanwhile wins.
 */
async function startFromOrigin(store: Store, id: string, find: FindOrigin, empty: Snapshot) {
  const origin = await find(id)
  if (origin === undefined) return { snapshot: empty, carried: undefined }
  const { snapshot, value: started } = await store.update(id, (current) =>
    current.revision === 0
      ? { next: { ...current, list: origin.list, history: origin.history }, value: true }
      : { value: false },
  )
  return { snapshot, carried: started === true && !snapshot.busy ? { shown: origin.shown } : undefined }
}

export interface StoreSyncDeps {
  readonly store: Store
  /** Where a session with no record starts (origin.ts); without it, empty. */
  readonly findOrigin: FindOrigin | undefined
  readonly writes: SessionWrites
  step(s: Tracked, event: HostEvent): Promise<readonly SessionAction[]>
  agree(s: Tracked, how?: AgreeHow): Promise<void>
  /** The session's first load, run once (sessions.ts keeps the promise). */
  ensureLoaded(s: Tracked): Promise<void>
}

/** The load and the sync of a tracked session's list. */
export function storeSync(deps: StoreSyncDeps) {
  const { store, findOrigin, writes, step, agree } = deps

  /** Where a session with no record starts from, if anywhere: a subagent's list is its own. */
  function originOf(s: Tracked): FindOrigin | undefined {
    return s.state.facts.subagent === true ? undefined : findOrigin
  }

  /** Reads the stored list and tells the core it was loaded (a resume, when it was stored earlier). */
  async function load(s: Tracked): Promise<void> {
    // The stamp is taken before the read: a write in between makes the next stamp differ, so it is read then.
    const stamp = await store.stamp(s.id)
    let snapshot = await store.read(s.id)
    // Notes the TUI queued and no server delivered are handed to the core with the list: a resume notice
    // spends them, so they cannot come back after the next todo update.
    let notes: EditNote[] = []
    if (snapshot.edits.length > 0) ({ snapshot, notes } = await takeNotes(store, s.id))
    let carried: { shown: TodoList | null } | undefined
    const find = originOf(s)
    if (snapshot.revision === 0 && snapshot.persisted && find)
      ({ snapshot, carried } = await startFromOrigin(store, s.id, find, snapshot))
    writes.took(s, snapshot)
    writes.stamped(s, stamp)
    await step(s, { type: "list.loaded", edits: notes, ...(carried ? { carried } : {}) })
    // A server that starts late (a restart, a second window) may have missed an undo, a redo or a commit:
    // the record is brought to what the host says now, before anything reads the list.
    if (snapshot.revision > 0) await agree(s, { ask: true })
  }

  /** One stat per call, a read only when the stamp moved. */
  async function sync(s: Tracked): Promise<void> {
    await deps.ensureLoaded(s)
    const stamp = await store.stamp(s.id)
    if (stamp === s.stamp) return
    // Only pending notes need the lock (to clear them); a plain change of the list is read without it.
    let read = await store.read(s.id)
    // A record read here before and gone now, that the store could not save again from what it last read
    // (it keeps a bounded number of sessions), is rebuilt from the conversation, as for a session met with no
    // record.
    const find = originOf(s)
    if (s.stamp !== undefined && read.revision === 0 && read.persisted && find)
      ({ snapshot: read } = await startFromOrigin(store, s.id, find, read))
    const { snapshot, notes } =
      read.edits.length === 0 ? { snapshot: read, notes: [] } : await takeNotes(store, s.id)
    const revertBefore = s.storedRevert ?? null
    writes.took(s, snapshot)
    // Busy: the notes stay stored and the stamp old, so the next hook delivers them.
    if (snapshot.busy) return
    // Not a fresh stat: a write landing after the read would carry that stat's stamp and be missed.
    writes.stamped(s, stamp)
    for (const note of notes) await step(s, editedEvent(note))
    // Another process wrote a revert this one did not hear of (or cleared one it did): the host says which holds.
    const revertAfter = s.storedRevert ?? null
    if (!samePoint(revertBefore, revertAfter) && !samePoint(revertAfter, s.host.revert ?? null))
      await agree(s, { ask: true })
  }

  return { load, sync }
}
