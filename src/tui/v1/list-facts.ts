// What the OpenCode 1.18 TUI tells the list source. The revert point from the host's session state (or the
// newer one a `session.updated` event carried), the last todo tool result in the parts the host keeps (for a
// TUI that cannot read the store), whether the server's state folder is this machine's, and the host events
// after which a shown list is read again.

import { existsSync } from "node:fs"
import { resolve } from "node:path"
import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { STORED_LIMITS } from "../../core/config.ts"
import type { Point } from "../../core/history/history.ts"
import { latestToolList, toolPartList } from "../../core/list/carried.ts"
import { parseSnapshot } from "../../core/list/parse.ts"
import type { TodoList } from "../../core/list/types.ts"
import { hostRevert, partsBefore } from "../../shared/host-revert.ts"
import { stateDir } from "../../shared/paths.ts"
import { heldFacts, type ListFacts, type ListSource, listen, revertMemory } from "../list-source.ts"

export interface V1Facts {
  readonly facts: ListFacts
  /** Follows the host events that can change a shown list. */
  follow(source: ListSource, offs: (() => void)[]): void
}

export function v1Facts(api: TuiPluginApi): V1Facts {
  const reverts = revertMemory((session) => api.state.session.get(session))

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

  /**
   * The newest list a completed todo tool call reported in this session before `point` (the host keeps
   * the parts of its last 100 messages, reverted ones included until the next prompt removes them).
   */
  async function fallback(session: string, point: Point | undefined): Promise<TodoList | undefined> {
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

  const facts: ListFacts = {
    revertOf: reverts.revertOf,
    hostFacts: (session) => {
      let ids: string[] = []
      try {
        ids = api.state.session.messages(session).map((m) => m.id)
      } catch {
        ids = []
      }
      return heldFacts(reverts.revertOf(session), ids, (message) => api.state.part(message))
    },
    newestMessage: (session) => {
      try {
        return api.state.session.messages(session).at(-1)?.id
      } catch {
        return undefined
      }
    },
    fallback,
    storeShared,
  }

  function follow(source: ListSource, offs: (() => void)[]): void {
    listen(offs, () =>
      api.event.on("message.part.updated", (event) => {
        const part = event.properties.part
        const raw = toolPartList(part)
        if (raw === undefined) return
        const parsed = parseSnapshot(raw, STORED_LIMITS)
        source.refreshShown(part.sessionID, parsed.ok ? parsed.value : undefined)
      }),
    )
    // A typed `/todo <verb>` runs in the server before its user message is stored, and ends with command.executed.
    listen(offs, () =>
      api.event.on("command.executed", (event) => {
        if (event.properties.name === "todo") source.refreshShown(event.properties.sessionID)
      }),
    )
    listen(offs, () =>
      api.event.on("message.updated", (event) => {
        const { sessionID, info } = event.properties
        if (info.role === "user") source.refreshShown(sessionID)
      }),
    )
    // Undo and redo: the host sets or clears `revert` on the session and says so with session.updated. A
    // commit (the next prompt) first removes the reverted messages, then clears `revert` the same way.
    listen(offs, () =>
      api.event.on("session.updated", (event) => {
        const session = event.properties.info?.id
        if (!session) return
        if (reverts.note(session, hostRevert(event.properties.info))) source.refreshShown(session)
      }),
    )
    listen(offs, () =>
      // A commit (the next prompt) removes the undone messages: the list is worked out again from what is left.
      api.event.on("message.removed", (event) => {
        source.refreshShown(event.properties.sessionID)
      }),
    )
    listen(offs, () =>
      api.event.on("session.idle", (event) => {
        source.refreshShown(event.properties.sessionID)
      }),
    )
  }

  return { facts, follow }
}

/** The session shown, read from the route (the slot gets no session id); reactive in the host. */
export function routeSession(api: TuiPluginApi): string | undefined {
  const route = api.route.current
  if (route.name !== "session") return undefined
  const id = (route.params as { sessionID?: unknown } | undefined)?.sessionID
  return typeof id === "string" && id ? id : undefined
}
