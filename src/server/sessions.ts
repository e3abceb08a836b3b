// The sessions this server tracks: per session, the core's state and the list as last read from the
// store. Owns the ways host facts reach the core besides hooks (the stored list, another process's writes,
// the session's parent, and the host's revert point and messages that the list in effect follows, see
// `agree`; host-agreement.ts asks the host for those) and performs the actions the core returns that need no
// hook output. The one module that assigns a tracked session's list and state.

import { type Config, limitsOf } from "../core/config.ts"
import { inEffect } from "../core/history/effect.ts"
import { type Point, revertPoint, sameList } from "../core/history/history.ts"
import { settleEdit } from "../core/history/placement.ts"
import { type EditAnchor, editAnchor, type RewindAction, samePoint } from "../core/history/rewind.ts"
import { type EditNote, isEditNote } from "../core/list/diff.ts"
import type { Op, TodoList } from "../core/list/types.ts"
import { type History, type StubState, stepStubs } from "../core/model/stale.ts"
import type { Access } from "../core/session/permission.ts"
import {
  type HostEvent,
  initialSession,
  parentUnknown,
  type Session,
  type SessionAction,
  stepSession,
  todoAccess,
  todoRefusal,
} from "../core/session/session.ts"
import { droppedToast, spokenToasts } from "../core/session/toasts.ts"
import type { Snapshot } from "../store/record.ts"
import { historyOf } from "../store/record.ts"
import type { Computed, Store, Updated } from "../store/store.ts"
import type { AgentRulesSource } from "./agent-rules.ts"
import { type AgreeHow, type Agreement, hostAgreement } from "./host-agreement.ts"
import { decodeSessionInfo } from "./host-events.ts"
import { type KnownFacts, newFacts, slowHostWord } from "./host-facts.ts"
import type { HostPort } from "./host-port.ts"
import type { FindOrigin } from "./origin.ts"
import { answerWithin, LATE } from "./wait.ts"

// How long the one lookup of a session's parent may hold up a hook; a host that has not answered by then
// leaves the session counted as a top-level one (events normally carry the parent, so this is rare).
const PARENT_WAIT_MS = 2_000
// How long a user edit waits for the host to name the newest message, when no event named it yet.
const NEWEST_WAIT_MS = 1_000

/**
 * What the server keeps per session: the core's session state, and the list in effect as last read from the
 * store (while the session is reverted, the list before the revert point).
 */
export interface Tracked {
  readonly id: string
  readonly state: Session
  readonly list: TodoList
  /** The store's change marker when `list` was read; a different stamp means another process wrote. */
  readonly stamp: string | undefined
  readonly loaded: Promise<void> | undefined
  /** The last job queued by `inOrder`. */
  readonly queue: Promise<void>
  /** What this process knows of the host's facts (its revert point, what it removed). */
  readonly host: KnownFacts
  /** The revert the record held when this process last read or wrote it (undefined: none). */
  readonly storedRevert: Point | undefined
}

/** A tracked session as this module holds it: only this module assigns its list and state. */
type Held = { -readonly [K in keyof Tracked]: Tracked[K] }

export interface Sessions {
  /** The tracked session, started when unknown. */
  get(id: string): Tracked
  /** The tracked session, or undefined: for events about sessions this server never started. */
  find(id: string): Tracked | undefined
  /**
   * Runs `job` once every job queued before it for this session has finished. The host hands events and
   * hooks to the plugin without waiting for the one before, and an undo is only followed right in the
   * order the host sent it (removals, the cleared revert, then the prompt that made them).
   */
  inOrder(s: Tracked, job: () => Promise<void>): Promise<void>
  /** Steps the core; reminders and forgetting are performed here, the other actions are returned. */
  step(s: Tracked, event: HostEvent): Promise<readonly SessionAction[]>
  /**
   * One locked change of the session's stored list (`Store.update`); the session takes the list in effect
   * (and the stored revert) from the answer, busy or not.
   */
  update<T>(s: Tracked, fn: (current: Snapshot) => Computed<T>): Promise<Updated<T>>
  /**
   * The /todo command left `after` in effect (it was `before`): the session takes it and the core hears of it.
   * `note`: the host mints no message for the command (OpenCode 2), so the change reaches the core as a user
   * edit, told to the model on its next request. `mark`: the command's mark, which its message will carry;
   * `ops`: the ops it ran, for a verb.
   */
  commandRan(
    s: Tracked,
    before: TodoList,
    after: TodoList,
    note?: EditNote,
    mark?: string,
    ops?: readonly Op[],
  ): Promise<readonly SessionAction[]>
  /** Steps the session's stubs of stale results over the request's messages (core/model/stale.ts), and returns them. */
  stubs(s: Tracked, history: History): StubState
  /** Picks up the stored list and another process's changes (and the user-edit notes they left). */
  syncFromStore(s: Tracked): Promise<void>
  /** Asks the host for the session's parent once, when no event said whether it has one. */
  resolveParent(s: Tracked): Promise<void>
  /**
   * Brings the record into agreement with the host's facts (core/history/effect.ts): the list in effect is
   * the one the record and the host's revert point and messages give, whatever events this process saw
   * (host-agreement.ts asks the host).
   */
  agree(s: Tracked, how?: AgreeHow): Promise<void>
  /**
   * Where a user edit made now belongs in the conversation: the revert point while reverted, else after the
   * newest message (asked of the host when this process has seen none). Undefined when the host cannot say.
   */
  editAnchor(s: Tracked): Promise<EditAnchor | undefined>
  /**
   * Whether the system prompt may point this session's agent at `todo`. A subagent's calls are refused;
   * an agent whose rules deny or ask for todo is never pushed.
   */
  todoCallable(s: Tracked): boolean
}

export function trackSessions(deps: {
  host: HostPort
  store: Store
  config: Config
  agents: AgentRulesSource
  /** Where a session with no record starts (origin.ts); without it, empty. */
  findOrigin?: FindOrigin
}): Sessions {
  const { host, store, config, agents, findOrigin } = deps
  const { log } = host
  const limits = limitsOf(config)
  const sessions = new Map<string, Held>()
  const slowHost = slowHostWord(host.log)
  const agreeWithHost = hostAgreement(host, store, limits, slowHost)

  function get(id: string): Held {
    let s = sessions.get(id)
    if (!s) {
      s = {
        id,
        state: initialSession(),
        list: [],
        stamp: undefined,
        loaded: undefined,
        queue: Promise.resolve(),
        host: newFacts(),
        storedRevert: undefined,
      }
      sessions.set(id, s)
    }
    return s
  }

  async function step(s: Held, event: HostEvent): Promise<readonly SessionAction[]> {
    const result = stepSession(s.state, event, s.list, config, agents.current())
    s.state = result.session
    for (const toast of spokenToasts(result.actions, s.list, config)) host.toast(toast, s.id)
    for (const action of result.actions) {
      if (action.type === "forget") sessions.delete(s.id)
      // Not waited for: the reminder's own prompt runs this session's hooks, which wait for this job.
      else if (action.type === "remind")
        void remind(s.id, action).catch((error: unknown) =>
          log("error", `reminder failed: ${error instanceof Error ? error.message : String(error)}`),
        )
      else if (action.type === "history")
        await (action.change.type === "settle"
          ? followRewind(s, action.change)
          : agree(s, { prompted: action.change.type === "commit" && event.type === "user.message" }))
    }
    return result.actions
  }

  /** A /todo command's edit moves to the command's own message, once the host has minted it. */
  async function followRewind(s: Held, change: Extract<RewindAction, { type: "settle" }>): Promise<void> {
    const { value: stepped } = await update(s, (current) => {
      const history = historyOf(current)
      const stepped = settleEdit(history, change.message, change.made, change.mark, limits, change.ops)
      if (stepped.history === history) return { value: stepped }
      return { next: { ...current, list: stepped.list, history: stepped.history }, value: stepped }
    })
    if (stepped?.warning) log("warn", stepped.warning)
  }

  async function update<T>(s: Held, fn: (current: Snapshot) => Computed<T>): Promise<Updated<T>> {
    const updated = await store.update(s.id, fn)
    took(s, updated.snapshot)
    return updated
  }

  /** The list and the revert of a snapshot this process read or wrote. */
  function took(s: Held, snapshot: Snapshot): void {
    if (!sameList(s.list, snapshot.list)) host.listChanged(s.id)
    s.list = snapshot.list
    s.storedRevert = snapshot.history === undefined ? undefined : revertPoint(snapshot.history)
  }

  async function agree(s: Held, how: AgreeHow = {}) {
    const agreement = await agreeWithHost(s, how)
    if (agreement === undefined) return
    await bringToHost(s, agreement)
    // What the host answered is what this process knows of its undo from now on (an edit's anchor, a commit).
    if (agreement.looked !== undefined) await step(s, { type: "revert.found", revert: agreement.looked })
  }

  async function bringToHost(s: Held, agreement: Agreement) {
    const { facts, effect: probe } = agreement
    if (probe.changes.length === 0) {
      s.storedRevert = revertPoint(probe.history)
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

  async function remind(id: string, action: Extract<SessionAction, { type: "remind" }>) {
    await host.remind(id, action.text, action.user)
  }

  /** Takes the pending user-edit notes out of the record (under its lock), with the list they go with. */
  async function takeNotes(id: string) {
    const { snapshot, value } = await store.update(id, (current) => ({
      next: current.edits.length > 0 ? { ...current, edits: [] } : undefined,
      value: current.edits.filter(isEditNote),
    }))
    return { snapshot, notes: value ?? [] }
  }

  /** Reads the stored list once per session and tells the core it was loaded (a resume, when it was stored earlier). */
  function ensureLoaded(s: Held): Promise<void> {
    s.loaded ??= (async () => {
      // The stamp is taken before the read: a write in between makes the next stamp differ, so it is read then.
      const stamp = await store.stamp(s.id)
      let snapshot = await store.read(s.id)
      // Notes the TUI queued and no server delivered are handed to the core with the list: a resume notice
      // spends them, so they cannot come back after the next todo update.
      let notes: EditNote[] = []
      if (snapshot.edits.length > 0) ({ snapshot, notes } = await takeNotes(s.id))
      let carried: { shown: TodoList | null } | undefined
      const find = originOf(s)
      if (snapshot.revision === 0 && snapshot.persisted && find)
        ({ snapshot, carried } = await startFromOrigin(s.id, find, snapshot))
      took(s, snapshot)
      s.stamp = stamp
      await step(s, { type: "list.loaded", edits: notes, ...(carried ? { carried } : {}) })
      // A server that starts late (a restart, a second window) may have missed an undo, a redo or a commit:
      // the record is brought to what the host says now, before anything reads the list.
      if (snapshot.revision > 0) await agree(s, { ask: true })
    })()
    return s.loaded
  }

  /** Where a session with no record starts from, if anywhere: a subagent's list is its own. */
  function originOf(s: Tracked): FindOrigin | undefined {
    return s.state.facts.subagent === true ? undefined : findOrigin
  }

  /**
   * A session never written here (a fork, an import) starts from its origin, written only while its record is
   * still unwritten: a list another process stored meanwhile wins.
   */
  async function startFromOrigin(id: string, find: FindOrigin, empty: Snapshot) {
    const origin = await find(id)
    if (origin === undefined) return { snapshot: empty, carried: undefined }
    const { snapshot, value: started } = await store.update(id, (current) =>
      current.revision === 0
        ? { next: { ...current, list: origin.list, history: origin.history }, value: true }
        : { value: false },
    )
    return { snapshot, carried: started === true && !snapshot.busy ? { shown: origin.shown } : undefined }
  }

  /** One stat per call, a read only when the stamp moved. */
  async function syncFromStore(s: Held): Promise<void> {
    await ensureLoaded(s)
    const stamp = await store.stamp(s.id)
    if (stamp === s.stamp) return
    // Only pending notes need the lock (to clear them); a plain change of the list is read without it.
    let read = await store.read(s.id)
    // A record read here before and gone now, that the store could not save again from what it last read
    // (it keeps a bounded number of sessions), is rebuilt from the conversation, as for a session met with no
    // record.
    const find = originOf(s)
    if (s.stamp !== undefined && read.revision === 0 && read.persisted && find)
      ({ snapshot: read } = await startFromOrigin(s.id, find, read))
    const { snapshot, notes } =
      read.edits.length === 0 ? { snapshot: read, notes: [] } : await takeNotes(s.id)
    const revertBefore = s.storedRevert ?? null
    took(s, snapshot)
    // Busy: the notes stay stored and the stamp old, so the next hook delivers them.
    if (snapshot.busy) return
    // Not a fresh stat: a write landing after the read would carry that stat's stamp and be missed.
    s.stamp = stamp
    for (const note of notes) await step(s, editedEvent(note))
    // Another process wrote a revert this one did not hear of (or cleared one it did): the host says which holds.
    const revertAfter = s.storedRevert ?? null
    if (!samePoint(revertBefore, revertAfter) && !samePoint(revertAfter, s.host.revert ?? null))
      await agree(s, { ask: true })
  }

  function editedEvent(note: EditNote): HostEvent {
    return {
      type: "list.edited",
      lines: note.lines,
      removed: note.removed,
      ...(note.removedPhases ? { removedPhases: note.removedPhases } : {}),
    }
  }

  /** The lookup also says whether the session is reverted: a process started after the undo learns it here. */
  async function resolveParent(s: Held): Promise<void> {
    if (!parentUnknown(s.state.facts)) return
    let data: Record<string, unknown> | undefined
    try {
      const answer = await answerWithin(host.sessionInfo(s.id), PARENT_WAIT_MS)
      if (answer === LATE) slowHost(s.id, "what the session is", PARENT_WAIT_MS)
      data = answer === LATE ? undefined : answer
    } catch {
      data = undefined
    }
    const parentID = typeof data?.parentID === "string" && data.parentID !== "" ? data.parentID : undefined
    await step(s, parentID === undefined ? { type: "parent.found" } : { type: "parent.found", parentID })
    if (data !== undefined && data.id === s.id) {
      const info = decodeSessionInfo(data)
      s.host.revert = info.revert
      await step(s, info)
    }
  }

  async function anchorOf(s: Held): Promise<EditAnchor | undefined> {
    const known = editAnchor(s.state.facts.rewind)
    if (known !== undefined) return known
    try {
      const id = await answerWithin(host.newestMessage(s.id), NEWEST_WAIT_MS)
      if (id === LATE) slowHost(s.id, "which message is its newest", NEWEST_WAIT_MS)
      else if (id !== undefined) await step(s, { type: "message.seen", messageID: id })
    } catch {
      // No answer: the edit is anchored at the newest recorded change.
    }
    return editAnchor(s.state.facts.rewind)
  }

  /** Whether the agent of the session's turn under way may call todo, by the core's rule over the host's rules. */
  function todoAccessOf(id: string): Access {
    return todoAccess((sessions.get(id)?.state ?? initialSession()).facts, agents.current())
  }

  function inOrder(s: Held, job: () => Promise<void>): Promise<void> {
    const run = s.queue.then(job)
    s.queue = run.catch(() => undefined)
    return run
  }

  return {
    get,
    find: (id) => sessions.get(id),
    inOrder,
    step,
    update,
    commandRan(s: Held, before, after, note, mark, ops) {
      if (!sameList(s.list, after)) host.listChanged(s.id)
      s.list = after
      if (note !== undefined) return note.lines.length > 0 ? step(s, editedEvent(note)) : Promise.resolve([])
      // The host mints the command's own message after this hook: the edit settles on it (rewind.ts).
      return step(s, {
        type: "command.ran",
        before,
        after,
        ...(mark === undefined ? {} : { mark }),
        ...(ops === undefined ? {} : { ops }),
      })
    },
    stubs(s: Held, history) {
      const stubs = stepStubs(s.state.stubs, history)
      if (stubs !== s.state.stubs) s.state = { ...s.state, stubs }
      return stubs
    },
    syncFromStore,
    resolveParent,
    agree,
    editAnchor: anchorOf,
    todoCallable: (s) => todoRefusal(s.state.facts) === undefined && todoAccessOf(s.id) === "allow",
  }
}
