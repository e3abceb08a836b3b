// How a tracked session's record follows the host's undo and redo (a part of sessions.ts). The record is brought
// to what the host says (`agree`; host-agreement.ts asks the host), and a /todo command's edit moves to the
// message the host minted for it. It assigns nothing itself: the session changes through sessions.ts's writers.

import { inEffect } from "../core/history/effect.ts"
import { revertPoint } from "../core/history/history.ts"
import { settleEdit } from "../core/history/placement.ts"
import type { RewindAction } from "../core/history/rewind.ts"
import { isEditNote } from "../core/list/diff.ts"
import type { Limits } from "../core/list/types.ts"
import type { HostEvent, SessionAction } from "../core/session/session.ts"
import { droppedToast } from "../core/session/toasts.ts"
import type { Snapshot } from "../store/record.ts"
import { historyOf } from "../store/record.ts"
import type { Computed, Updated } from "../store/store.ts"
import type { AgreeHow, Agreement } from "./host-agreement.ts"
import type { HostPort } from "./host-port.ts"
import { editedEvent } from "./session-sync.ts"
import type { SessionWrites, Tracked } from "./sessions.ts"

export interface AgreeingDeps {
  readonly host: HostPort
  readonly limits: Limits
  readonly writes: SessionWrites
  /** The host's facts and what they put in effect (host-agreement.ts). */
  agreeWithHost(s: Tracked, how: AgreeHow): Promise<Agreement | undefined>
  update<T>(s: Tracked, fn: (current: Snapshot) => Computed<T>): Promise<Updated<T>>
  step(s: Tracked, event: HostEvent): Promise<readonly SessionAction[]>
}

/** `agree` and `followRewind` of a tracked session. */
export function agreeing(deps: AgreeingDeps) {
  const { host, limits, writes, update, step } = deps
  const { log } = host

  async function agree(s: Tracked, how: AgreeHow = {}): Promise<void> {
    const agreement = await deps.agreeWithHost(s, how)
    if (agreement === undefined) return
    await bringToHost(s, agreement)
    // What the host answered is what this process knows of its undo from now on (an edit's anchor, a commit).
    if (agreement.looked !== undefined) await step(s, { type: "revert.found", revert: agreement.looked })
  }

  async function bringToHost(s: Tracked, agreement: Agreement): Promise<void> {
    const { facts, effect: probe } = agreement
    if (probe.changes.length === 0) {
      writes.storedRevert(s, revertPoint(probe.history))
      return
    }
    const { snapshot, value } = await update(s, (current) => {
      const effect = inEffect(historyOf(current), facts, limits)
      if (effect.changes.length === 0) return { value: { effect, notes: [] } }
      // Edits made while reverted were made again: their notes go to the core first, which may replace them.
      const notes = effect.remadeOn === undefined ? [] : current.edits.filter(isEditNote)
      const edits = effect.remadeOn === undefined ? current.edits : []
      return {
        next: { ...current, list: effect.list, history: effect.history, edits },
        value: { effect, notes },
      }
    })
    if (value === undefined || snapshot.busy) return
    const { effect, notes } = value
    if (effect.warning) log("warn", effect.warning)
    const toast = droppedToast(effect.dropped)
    if (toast) host.toast(toast, s.id)
    for (const note of notes) await step(s, editedEvent(note))
    // What a redo or commit means for the notices is the core's to say (it brought back, or made again).
    const last = [...effect.changes].reverse().find((c) => c !== "revert")
    if (last !== undefined)
      await step(s, {
        type: "edits.remade",
        change: last,
        before: effect.remadeOn ?? snapshot.list,
        after: snapshot.list,
        dropped: effect.dropped.length,
      })
  }

  /** A /todo command's edit moves to the command's own message, once the host has minted it. */
  async function followRewind(s: Tracked, change: Extract<RewindAction, { type: "settle" }>): Promise<void> {
    const { value: stepped } = await update(s, (current) => {
      const history = historyOf(current)
      const stepped = settleEdit(history, change.message, change.made, change.mark, limits, change.ops)
      if (stepped.history === history) return { value: stepped }
      return { next: { ...current, list: stepped.list, history: stepped.history }, value: stepped }
    })
    if (stepped?.warning) log("warn", stepped.warning)
  }

  return { agree, followRewind }
}
