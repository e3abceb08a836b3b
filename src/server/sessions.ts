// The sessions this server tracks: per session, the core's state and the list as last read from the store.
// Each is opened for a hook (`open`), stepped, and changed under the store's lock; its parts bring in the facts
// that come besides hooks (session-sync.ts, session-agree.ts, session-lookups.ts). The one module that assigns a
// tracked session's list and state (its parts write through `SessionWrites`).

import { type Config, limitsOf } from "../core/config.ts"
import { type Point, revertPoint, sameList } from "../core/history/history.ts"
import type { EditAnchor } from "../core/history/rewind.ts"
import type { EditNote } from "../core/list/diff.ts"
import type { Op, TodoList } from "../core/list/types.ts"
import { type History, type StubState, stepStubs } from "../core/model/stale.ts"
import type { Access } from "../core/session/permission.ts"
import {
  type HostEvent,
  initialSession,
  type Session,
  type SessionAction,
  stepSession,
  todoAccess,
  todoRefusal,
} from "../core/session/session.ts"
import { spokenToasts } from "../core/session/toasts.ts"
import type { FindOrigin } from "../shared/origin.ts"
import type { Snapshot } from "../store/record.ts"
import type { Computed, Store, Updated } from "../store/store.ts"
import type { AgentRulesSource } from "./agent-rules.ts"
import { type AgreeHow, hostAgreement } from "./host-agreement.ts"
import { type KnownFacts, newFacts, slowHostWord } from "./host-facts.ts"
import type { HostPort } from "./host-port.ts"
import { agreeing } from "./session-agree.ts"
import { sessionLookups } from "./session-lookups.ts"
import { editedEvent, storeSync } from "./session-sync.ts"

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

/** A tracked session as this file holds it: only here is it assigned (its parts write through `SessionWrites`). */
type Held = { -readonly [K in keyof Tracked]: Tracked[K] }

/**
 * The writes the parts of this module make to a tracked session, each named: the parts hold a `Tracked`
 * (read-only) and change it only through these, so every assignment stays in this file.
 */
export interface SessionWrites {
  /** The list and the revert of a snapshot this process read or wrote. */
  took(s: Tracked, snapshot: Snapshot): void
  /** The store's change marker the list was read at. */
  stamped(s: Tracked, stamp: string | undefined): void
  /** The revert the record holds, as this process last read or wrote it. */
  storedRevert(s: Tracked, point: Point | undefined): void
}

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
  /**
   * The session (started when unknown) ready for a hook: the stored list and another process's changes picked
   * up (with the user-edit notes they left), then its parent asked of the host once, when no event said whether
   * it has one. `listOnly`: the list alone, for a hook that must not step what the host says of the session
   * ahead of its own event (see `openSession`).
   */
  open(session: string | Tracked, options?: { readonly listOnly?: boolean }): Promise<Tracked>
  /** The session (started when unknown) with its parent known, its list not read: for what it may do. */
  known(session: string | Tracked): Promise<Tracked>
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

export interface TrackDeps {
  readonly host: HostPort
  readonly store: Store
  readonly config: Config
  readonly agents: AgentRulesSource
  /** Where a session with no record starts (origin.ts); without it, empty. */
  readonly findOrigin?: FindOrigin
}

/** A session met for the first time: nothing known of it, its list not read yet. */
function newTracked(id: string): Held {
  return {
    id,
    state: initialSession(),
    list: [],
    stamp: undefined,
    loaded: undefined,
    queue: Promise.resolve(),
    host: newFacts(),
    storedRevert: undefined,
  }
}

/** The only writes the parts (session-*.ts) make to a tracked session: its list, stamp and stored revert. */
function sessionWrites(host: HostPort): SessionWrites {
  return {
    took(s, snapshot) {
      if (!sameList(s.list, snapshot.list)) host.listChanged(s.id)
      const held = s as Held
      held.list = snapshot.list
      held.storedRevert = snapshot.history === undefined ? undefined : revertPoint(snapshot.history)
    },
    stamped: (s, stamp) => {
      ;(s as Held).stamp = stamp
    },
    storedRevert: (s, point) => {
      ;(s as Held).storedRevert = point
    },
  }
}

/**
 * The order a hook's session is made ready in, decided here once: the list first (the first load, then a stat
 * per hook), then the parent. It is the order of the prompt (every turn's first hook) and of an idle session, so
 * a session's first load sees what it saw before: a parent not yet looked up reads as "not a subagent" to
 * `originOf` (a subagent is normally known from its creation event, and its origin is its own conversation).
 * Hooks that read only the list (a request, a compaction, a /todo command, an undo's event, the TUI's RPC) take
 * `listOnly`, as before: the parent's lookup also steps what the host says of the session (its revert point),
 * which must not run ahead of the event being followed. The todo call takes `known` first (the refusal needs
 * only the parent, and comes before the host's approval and before any read), then `open`, whose parent step
 * is then a no-op: resolve, refuse, approve, sync, as before.
 */
function openSession(
  get: (id: string) => Tracked,
  sync: (s: Tracked) => Promise<void>,
  resolveParent: (s: Tracked) => Promise<void>,
): Pick<Sessions, "open" | "known"> {
  const tracked = (session: string | Tracked) => (typeof session === "string" ? get(session) : session)
  return {
    async open(session, options) {
      const s = tracked(session)
      await sync(s)
      if (options?.listOnly !== true) await resolveParent(s)
      return s
    },
    async known(session) {
      const s = tracked(session)
      await resolveParent(s)
      return s
    },
  }
}

async function remind(host: HostPort, id: string, action: Extract<SessionAction, { type: "remind" }>) {
  await host.remind(id, action.text, action.user)
}

export function trackSessions(deps: TrackDeps): Sessions {
  const { host, store, config, agents } = deps
  const { log } = host
  const limits = limitsOf(config)
  const sessions = new Map<string, Held>()
  const writes = sessionWrites(host)
  const slowHost = slowHostWord(host.log)
  const agreeWithHost = hostAgreement(host, store, limits, slowHost)

  function get(id: string): Held {
    let s = sessions.get(id)
    if (!s) {
      s = newTracked(id)
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
        void remind(host, s.id, action).catch((error: unknown) =>
          log("error", `reminder failed: ${error instanceof Error ? error.message : String(error)}`),
        )
      else if (action.type === "history")
        await (action.change.type === "settle"
          ? followHost.followRewind(s, action.change)
          : followHost.agree(s, {
              prompted: action.change.type === "commit" && event.type === "user.message",
            }))
    }
    return result.actions
  }

  async function update<T>(s: Tracked, fn: (current: Snapshot) => Computed<T>): Promise<Updated<T>> {
    const updated = await store.update(s.id, fn)
    writes.took(s, updated.snapshot)
    return updated
  }

  const followHost = agreeing({ host, limits, writes, agreeWithHost, update, step })
  const { agree } = followHost
  const ensureLoaded = (s: Held): Promise<void> => {
    s.loaded ??= fromStore.load(s)
    return s.loaded
  }
  const fromStore = storeSync({ store, findOrigin: deps.findOrigin, writes, step, agree, ensureLoaded })
  const lookups = sessionLookups({ host, slowHost, step })

  /** Whether the agent of the session's turn under way may call todo, by the core's rule over the host's rules. */
  function todoAccessOf(id: string): Access {
    return todoAccess((sessions.get(id)?.state ?? initialSession()).facts, agents.current())
  }

  return {
    get,
    find: (id) => sessions.get(id),
    inOrder(s: Held, job) {
      const run = s.queue.then(job)
      s.queue = run.catch(() => undefined)
      return run
    },
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
    ...openSession(get, fromStore.sync, lookups.resolveParent),
    agree,
    editAnchor: lookups.anchorOf,
    todoCallable: (s) => todoRefusal(s.state.facts) === undefined && todoAccessOf(s.id) === "allow",
  }
}
