// Where the TUI's list comes from, and the context every part of the TUI shell shares. The list is read
// from the per-session store the server writes when this TUI shares it, else from the last todo tool
// result the host keeps; one signal per shown session, refreshed by the host events that can change it.
// While the host has the session reverted (/undo), the list is the one strictly before the revert point,
// and on /redo the newest again: the point comes from the host's session state, so no model turn is needed.

import { accessSync, constants, existsSync } from "node:fs"
import { dirname, resolve } from "node:path"
import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { type Accessor, createSignal, type Setter } from "solid-js"
import { STORED_LIMITS } from "../core/config.ts"
import { type HostFacts, inEffect } from "../core/history/effect.ts"
import type { Point } from "../core/history/history.ts"
import { samePoint } from "../core/history/rewind.ts"
import { latestToolList, toolPartList } from "../core/list/carried.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import type { Limits, TodoList } from "../core/list/types.ts"
import type { Variant } from "../core/session/toasts.ts"
import { identicalLists } from "../core/view/dialog.ts"
import { hostRevert, partsBefore } from "../core/view/tui-protocol.ts"
import { stateDir } from "../shared/paths.ts"
import type { EditAnchor } from "../shared/user-edits.ts"
import { historyOf } from "../store/record.ts"
import type { Store } from "../store/store.ts"

export interface ListSource {
  /** The session's list as a signal; following it starts with the first call. */
  list(session: string): Accessor<TodoList>
  /** Shows `known` at once when given, then rereads the list; the newest refresh wins. */
  refresh(session: string, known?: TodoList): void
  /** The session's list now: the shared store when it holds a record, else the last todo tool result. */
  read(session: string): Promise<TodoList>
  /** Where an edit made now sits in the conversation: the revert point while reverted, else after the newest message. */
  anchorOf(session: string): EditAnchor | undefined
  /** Whether the store on this machine is the one the server writes. */
  storeShared(): boolean
  /** Why this TUI cannot change lists, or undefined when it can. */
  editProblem(): string | undefined
}

/** What the parts of the TUI shell share. */
export interface Shell {
  readonly api: TuiPluginApi
  readonly store: Store
  readonly source: ListSource
  readonly limits: Limits
  readonly toast: (variant: Variant, message: string, title?: string) => void
  /** The project folder (export and import resolve TODO.md there). */
  readonly directory: () => string
}

/** The session shown, read from the route (the slot gets no session id); reactive in the host. */
export function routeSession(api: TuiPluginApi): string | undefined {
  const route = api.route.current
  if (route.name !== "session") return undefined
  const id = (route.params as { sessionID?: unknown } | undefined)?.sessionID
  return typeof id === "string" && id ? id : undefined
}

interface ShownList {
  readonly list: Accessor<TodoList>
  readonly set: Setter<TodoList>
  /** Bumped by every refresh; an older read that resolves late is dropped. */
  seq: number
}

/** What the list source needs from the shell besides the host and the store. */
export interface SourceOptions {
  readonly limits: Limits
}

export function createListSource(
  api: TuiPluginApi,
  store: Store,
  offs: (() => void)[],
  options: SourceOptions,
): ListSource {
  const tracked = new Map<string, ShownList>()
  // The newest revert state a `session.updated` event carried (null: not reverted): a host fact, read from
  // the event because the host's own session state may apply it after our listener runs.
  const reverts = new Map<string, Point | null>()

  function revertOf(session: string): Point | undefined {
    const seen = reverts.get(session)
    if (seen !== undefined) return seen ?? undefined
    try {
      return hostRevert(api.state.session.get(session))
    } catch {
      return undefined
    }
  }

  /**
   * What the host this TUI is attached to says now: its revert point, and which messages (and parts) it still
   * has, from its own state. A message older than the ones it keeps, or newer than the newest it has heard
   * of, is not known here (the list then stays as stored).
   */
  function hostFacts(session: string): HostFacts {
    let ids: string[] = []
    try {
      ids = api.state.session.messages(session).map((m) => m.id)
    } catch {
      ids = []
    }
    const known = new Set(ids)
    const oldest = ids[0]
    const newest = ids[ids.length - 1]
    return {
      revert: revertOf(session) ?? null,
      holds: (point) => {
        if (known.has(point.message)) {
          if (point.part === undefined) return true
          try {
            const parts = api.state.part(point.message)
            if (parts.some((p) => p.id === point.part)) return true
            return parts.length === 0 ? undefined : false
          } catch {
            return undefined
          }
        }
        if (oldest === undefined || newest === undefined) return undefined
        return point.message > oldest && point.message < newest ? false : undefined
      },
    }
  }

  function anchorOf(session: string): EditAnchor | undefined {
    const point = revertOf(session)
    if (point) return { kind: "reverted", point }
    try {
      const newest = api.state.session.messages(session).at(-1)?.id
      return newest ? { kind: "after", message: newest } : undefined
    } catch {
      return undefined
    }
  }

  // The server reports its state folder and project folder; a TUI attached to a server elsewhere
  // (or run with another environment) sees different ones.
  function storeShared(): boolean {
    try {
      const path = api.state.path as { state?: string; directory?: string } | undefined
      if (path?.state && resolve(path.state) !== resolve(stateDir())) return false
      if (path?.directory && !existsSync(path.directory)) return false
      return true
    } catch {
      return false
    }
  }

  function editProblem(): string | undefined {
    if (!storeShared())
      return "This TUI is attached to an OpenCode server whose todo storage is not on this machine: it can show the list but not change it. Use /todo <verb> instead (for example /todo done <task>), which runs on the server."
    let dir = store.dir
    while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir)
    try {
      accessSync(dir, constants.R_OK | constants.W_OK)
    } catch {
      return `The todo storage folder ${store.dir} is not writable from this TUI, so the list cannot be changed here. Use /todo <verb> instead, which runs on the server.`
    }
    return undefined
  }

  /**
   * The newest list a completed todo tool call reported in this session before `point` (the host keeps
   * the parts of its last 100 messages, reverted ones included until the next prompt removes them).
   */
  function listFromParts(session: string, point: Point | undefined): TodoList | undefined {
    try {
      const messages = api.state.session
        .messages(session)
        .map((msg) => ({ id: msg.id, parts: api.state.part(msg.id) }))
      const raw = latestToolList(partsBefore(messages, point))
      if (raw === undefined) return undefined
      const parsed = parseSnapshot(raw, STORED_LIMITS)
      return parsed.ok ? parsed.value : undefined
    } catch {
      return undefined
    }
  }

  async function read(session: string): Promise<TodoList> {
    const point = revertOf(session)
    if (storeShared()) {
      try {
        if ((await store.stamp(session)) !== undefined) {
          const snapshot = await store.read(session)
          // The same function the server follows the host with: what the record says under the host's facts.
          if (snapshot.persisted)
            return inEffect(historyOf(snapshot), hostFacts(session), options.limits).list
        }
      } catch {
        // Unreadable: fall back to what the tool calls reported.
      }
    }
    return listFromParts(session, point) ?? []
  }

  function track(session: string): ShownList {
    let t = tracked.get(session)
    if (!t) {
      const [list, set] = createSignal<TodoList>([], { equals: identicalLists })
      t = { list, set, seq: 0 }
      tracked.set(session, t)
    }
    return t
  }

  function refresh(session: string, known?: TodoList): void {
    const t = track(session)
    const seq = ++t.seq
    if (known) t.set(known)
    read(session).then(
      (list) => {
        if (seq === t.seq) t.set(list)
      },
      () => {},
    )
  }

  const listen = (register: () => () => void) => {
    try {
      offs.push(register())
    } catch {
      // An event type this host does not know: the other triggers still work.
    }
  }
  listen(() =>
    api.event.on("message.part.updated", (event) => {
      const part = event.properties.part
      const raw = toolPartList(part)
      if (raw === undefined || !tracked.has(part.sessionID)) return
      const parsed = parseSnapshot(raw, STORED_LIMITS)
      refresh(part.sessionID, parsed.ok ? parsed.value : undefined)
    }),
  )
  // A typed `/todo <verb>` runs in the server before its user message is stored, and ends with command.executed.
  listen(() =>
    api.event.on("command.executed", (event) => {
      if (event.properties.name === "todo" && tracked.has(event.properties.sessionID))
        refresh(event.properties.sessionID)
    }),
  )
  listen(() =>
    api.event.on("message.updated", (event) => {
      const { sessionID, info } = event.properties
      if (info.role === "user" && tracked.has(sessionID)) refresh(sessionID)
    }),
  )
  // Undo and redo: the host sets or clears `revert` on the session and says so with session.updated. A
  // commit (the next prompt) first removes the reverted messages, then clears `revert` the same way.
  listen(() =>
    api.event.on("session.updated", (event) => {
      const session = event.properties.info?.id
      if (!session) return
      const point = hostRevert(event.properties.info)
      const before = reverts.get(session)
      reverts.set(session, point ?? null)
      if ((before !== undefined && samePoint(before, point ?? null)) || !tracked.has(session)) return
      refresh(session)
    }),
  )
  // A commit (the next prompt) removes the undone messages: the list is worked out again from what is left.
  listen(() =>
    api.event.on("message.removed", (event) => {
      if (tracked.has(event.properties.sessionID)) refresh(event.properties.sessionID)
    }),
  )
  listen(() =>
    api.event.on("session.idle", (event) => {
      if (tracked.has(event.properties.sessionID)) refresh(event.properties.sessionID)
    }),
  )

  return {
    list: (session) => {
      const first = !tracked.has(session)
      const t = track(session)
      if (first) refresh(session)
      return t.list
    },
    refresh,
    read,
    anchorOf,
    storeShared,
    editProblem,
  }
}
