// Where the TUI's list comes from, and the context every part of the TUI shell shares. The store the server
// writes when this TUI shares it, else what the host binding reaches without it; one signal per shown
// session, read again on the binding's events. Under undo, redo and commit the list is
// core/history/effect.ts's (docs/design.md).

import { accessSync, constants, existsSync } from "node:fs"
import { dirname } from "node:path"
import { type Accessor, createSignal, type Setter } from "solid-js"
import { type HostFacts, inEffect } from "../core/history/effect.ts"
import type { Point } from "../core/history/history.ts"
import { samePoint } from "../core/history/rewind.ts"
import type { Limits, TodoList } from "../core/list/types.ts"
import type { Variant } from "../core/session/toasts.ts"
import { identicalLists } from "../core/view/dialog.ts"
import { hostRevert } from "../shared/host-revert.ts"
import type { EditAnchor, StartOf } from "../shared/user-edits.ts"
import { historyOf } from "../store/record.ts"
import type { Store } from "../store/store.ts"
import type { TuiHost } from "./host.ts"

export interface ListSource {
  /** The session's list as a signal; following it starts with the first call. */
  list(session: string): Accessor<TodoList>
  /** Shows `known` at once when given, then rereads the list; the newest refresh wins. */
  refresh(session: string, known?: TodoList): void
  /** Refreshes the session's list only when something on screen follows it. */
  refreshShown(session: string, known?: TodoList): void
  /** The session's list now: the shared store when it holds a record, else what the host binding reaches. */
  read(session: string): Promise<TodoList>
  /** Where an edit made now sits in the conversation: the revert point while reverted, else after the newest message. */
  anchorOf(session: string): EditAnchor | undefined
  /** Whether the store on this machine is the one the server writes. */
  storeShared(): boolean
  /** Why this TUI cannot change lists, or undefined when it can. */
  editProblem(): string | undefined
}

/** What a host binding tells the list source about sessions; every method is cheap and never throws. */
export interface ListFacts {
  /** The point the host has the session reverted to, or undefined. */
  revertOf(session: string): Point | undefined
  /** What the host says now about the session: its revert point, and which places it still holds. */
  hostFacts(session: string): HostFacts
  /** The id of the session's newest message, or undefined. */
  newestMessage(session: string): string | undefined
  /** The list when the store holds no record for the session (or is not this TUI's), before `point`. */
  fallback(session: string, point: Point | undefined): Promise<TodoList | undefined>
  /** Whether the server's store is the one on this machine (false when attached to a server elsewhere). */
  storeShared(): boolean
}

/** What the parts of the TUI shell share. */
export interface Shell {
  readonly host: TuiHost
  readonly store: Store
  readonly source: ListSource
  readonly limits: Limits
  readonly toast: (variant: Variant, message: string, title?: string, sessionID?: string) => void
  /** The project folder (export and import resolve TODO.md there). */
  readonly directory: () => string
  /**
   * Runs `/todo <text>` on the server, for a TUI that cannot change the store itself (OpenCode 2's RPC);
   * undefined where the host sends such a line to the server's command by itself (1.18).
   */
  readonly remote?: (session: string, text: string) => Promise<{ ok: boolean; text: string } | undefined>
  /** Where a session no server has met yet starts (a fork), asked of the host as the server asks it. */
  readonly startOf?: StartOf
}

interface ShownList {
  readonly list: Accessor<TodoList>
  readonly set: Setter<TodoList>
  /** Bumped by every refresh; an older read that resolves late is dropped. */
  seq: number
}

/** What the list source needs from the shell besides the host facts and the store. */
export interface SourceOptions {
  readonly limits: Limits
}

export function createListSource(facts: ListFacts, store: Store, options: SourceOptions): ListSource {
  const tracked = new Map<string, ShownList>()

  function anchorOf(session: string): EditAnchor | undefined {
    const point = facts.revertOf(session)
    if (point) return { kind: "reverted", point }
    const newest = facts.newestMessage(session)
    return newest ? { kind: "after", message: newest } : undefined
  }

  function editProblem(): string | undefined {
    if (!facts.storeShared())
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

  async function read(session: string): Promise<TodoList> {
    const point = facts.revertOf(session)
    if (facts.storeShared()) {
      try {
        if ((await store.stamp(session)) !== undefined) {
          const snapshot = await store.read(session)
          // The same function the server follows the host with: what the record says under the host's facts.
          if (snapshot.persisted)
            return inEffect(historyOf(snapshot), facts.hostFacts(session), options.limits).list
        }
      } catch {
        // Unreadable: fall back to what the host binding reaches.
      }
    }
    try {
      return (await facts.fallback(session, point)) ?? []
    } catch {
      return []
    }
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

  return {
    list: (session) => {
      const first = !tracked.has(session)
      const t = track(session)
      if (first) refresh(session)
      return t.list
    },
    refresh,
    refreshShown: (session, known) => {
      if (tracked.has(session)) refresh(session, known)
    },
    read,
    anchorOf,
    storeShared: () => facts.storeShared(),
    editProblem,
  }
}

/** Registers a host listener; an event type the host does not know leaves the other triggers working. */
export function listen(offs: (() => void)[], register: () => (() => void) | undefined): void {
  try {
    const off = register()
    if (typeof off === "function") offs.push(off)
  } catch {
    // Unknown event type or no event API.
  }
}

/**
 * The revert state a host binding learns from its events, over what the host's session state says
 * (`fromHost`: the session's info, whose `revert` names the point). Events are read directly because
 * the host's own state may apply them after our listener runs.
 */
export function revertMemory(fromHost: (session: string) => unknown) {
  // The newest revert state an event carried (null: not reverted).
  const reverts = new Map<string, Point | null>()
  function revertOf(session: string): Point | undefined {
    const seen = reverts.get(session)
    if (seen !== undefined) return seen ?? undefined
    try {
      return hostRevert(fromHost(session))
    } catch {
      return undefined
    }
  }
  return {
    revertOf,
    /** Records the point an event carried (undefined: not reverted); true when it differs from the last one seen. */
    note(session: string, point: Point | undefined): boolean {
      const before = reverts.get(session)
      reverts.set(session, point ?? null)
      return before === undefined || !samePoint(before, point ?? null)
    },
  }
}

/**
 * The host's facts from what its TUI holds: the revert point, and the session's message ids (oldest first)
 * with, where the host keeps them, a message's parts. A message older than the ones it keeps, or newer
 * than the newest it has heard of, is not known here (the list then stays as stored).
 */
export function heldFacts(
  revert: Point | undefined,
  ids: readonly string[],
  partsOf?: (message: string) => readonly { readonly id?: unknown }[],
): HostFacts {
  const known = new Set(ids)
  const oldest = ids[0]
  const newest = ids[ids.length - 1]
  return {
    revert: revert ?? null,
    holds: (point) => {
      if (known.has(point.message)) {
        if (point.part === undefined) return true
        if (!partsOf) return undefined
        try {
          const parts = partsOf(point.message)
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
