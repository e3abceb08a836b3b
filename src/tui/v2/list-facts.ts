// What the OpenCode 2 TUI tells the list source. The revert point from the session's revert events, the
// session's message ids from the TUI's message cache, the server's answer over RPC when the store is not this
// machine's (or holds no record), and the events after which a shown list is read again; the server's
// `notice` events become toasts. Which events, and where they are defined: docs/design.md.

import { existsSync } from "node:fs"
import { isRecord } from "../../core/list/result.ts"
import { hostRevert } from "../../shared/host-revert.ts"
import {
  decodeChanged,
  decodeListOutput,
  decodeNotice,
  decodeReply,
  decodeRunOutput,
} from "../../shared/v2-rpc.ts"
import {
  heldFacts,
  type ListFacts,
  type ListSource,
  listen,
  revertMemory,
  type Shell,
} from "../list-source.ts"
import type { V2Context, V2RpcClient } from "./context.ts"

/** The session an event is about: host events carry it under `data`. */
function sessionOf(event: unknown): string | undefined {
  const data = isRecord(event) && isRecord(event.data) ? event.data : event
  return isRecord(data) && typeof data.sessionID === "string" && data.sessionID ? data.sessionID : undefined
}

export interface V2Facts {
  readonly facts: ListFacts
  /** Follows the host's session events and the server's RPC events. */
  follow(source: ListSource, toast: Shell["toast"], offs: (() => void)[]): void
  /** Runs `/todo <text>` on the server; undefined when the host offers no RPC or the call fails. */
  run(session: string, text: string): Promise<{ ok: boolean; text: string } | undefined>
}

export function v2Facts(context: V2Context, rpc: V2RpcClient | undefined): V2Facts {
  const reverts = revertMemory((session) => context.data?.session?.get?.(session))

  function messageIds(session: string): string[] {
    try {
      const ids: string[] = []
      for (const message of context.data?.session?.message?.list?.(session) ?? [])
        if (typeof message?.id === "string" && message.id) ids.push(message.id)
      return ids
    } catch {
      return []
    }
  }

  // A TUI attached to a server elsewhere is told a project folder this machine does not have.
  function storeShared(): boolean {
    try {
      const directory = context.location?.directory
      return !directory || existsSync(directory)
    } catch {
      return false
    }
  }

  const facts: ListFacts = {
    revertOf: reverts.revertOf,
    // The TUI's message cache gives the message ids; it keeps no parts here, so a point inside a message is
    // not known (the list then stays as stored for it).
    hostFacts: (session) => heldFacts(reverts.revertOf(session), messageIds(session)),
    newestMessage: (session) => messageIds(session).at(-1),
    // The server answers with the list in effect (it follows reverts itself), so the point is not sent.
    fallback: async (session) => {
      if (typeof rpc?.list !== "function") return undefined
      return decodeListOutput(await rpc.list({ sessionID: session }))
    },
    storeShared,
  }

  function follow(source: ListSource, toast: Shell["toast"], offs: (() => void)[]): void {
    const on = (type: string, handler: (event: unknown) => void) =>
      listen(offs, () => context.data?.on?.(type, handler))
    on("session.revert.staged", (event) => {
      const session = sessionOf(event)
      if (!session) return
      const data = isRecord(event) && isRecord(event.data) ? event.data : event
      if (reverts.note(session, hostRevert(data))) source.refreshShown(session)
    })
    on("session.revert.cleared", (event) => {
      const session = sessionOf(event)
      if (!session) return
      reverts.note(session, undefined)
      source.refreshShown(session)
    })
    on("session.revert.committed", (event) => {
      const session = sessionOf(event)
      if (!session) return
      // The undone messages are gone: the list is worked out again from what the host holds once the TUI's
      // message cache has caught up.
      reverts.note(session, undefined)
      const synced = (async () => context.data?.session?.message?.sync?.(session))()
      synced.then(
        () => source.refreshShown(session),
        () => source.refreshShown(session),
      )
    })
    for (const type of ["session.execution.succeeded", "session.input.admitted"])
      on(type, (event) => {
        const session = sessionOf(event)
        if (session) source.refreshShown(session)
      })

    const events = rpc?.events
    if (typeof events?.on !== "function") return
    listen(offs, () =>
      events.on?.("changed", (event) => {
        const changed = decodeChanged(event)
        if (changed) source.refreshShown(changed.sessionID)
      }),
    )
    listen(offs, () =>
      events.on?.("notice", (event) => {
        const notice = decodeNotice(event)
        if (notice) toast(notice.variant, notice.message, notice.title, notice.sessionID)
      }),
    )
    listen(offs, () =>
      events.on?.("reply", (event) => {
        const reply = decodeReply(event)
        if (!reply) return
        source.refreshShown(reply.sessionID)
        toast(reply.ok ? "success" : "error", reply.text, "Todo", reply.sessionID)
      }),
    )
  }

  async function run(session: string, text: string): Promise<{ ok: boolean; text: string } | undefined> {
    if (typeof rpc?.run !== "function") return undefined
    try {
      const answer = await rpc.run({ sessionID: session, text })
      return decodeRunOutput(answer) ?? decodeRunOutput(isRecord(answer) ? answer.data : undefined)
    } catch {
      return undefined
    }
  }

  return { facts, follow, run }
}
