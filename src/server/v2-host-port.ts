// The server's host port (host-port.ts) over OpenCode 2's session domain: reminders as synthetic messages, the
// session's info and messages from `session.get` and `session.context`, and toasts and list changes told to the
// TUI as RPC events. Messages on 2 have no part ids: a place is known down to its message.

import { type ShownMessages, shownHolds } from "../core/history/effect.ts"
import { isRecord } from "../core/list/result.ts"
import type { HostPort } from "./host-port.ts"
import type { Log } from "./output.ts"
import { fn, messagesOf, type V2Context } from "./v2-context.ts"
import { v2SessionInfo, v2Shown } from "./v2-events.ts"
import type { EmitRpc } from "./v2-registry.ts"

/** What the binding goes without when the host lacks `session.get` or `session.context` (said once each). */
export const WITHOUT_SESSION_GET = [
  "session.get",
  "a session's revert point and parent are read from its events only",
] as const
export const WITHOUT_SESSION_CONTEXT = [
  "session.context",
  "a session first seen is not told new from resumed, and the host's messages are not asked after an undo",
] as const

export function v2HostPort(
  session: NonNullable<V2Context["session"]>,
  deps: {
    readonly log: Log
    /** Says once that the host lacks `what`, and what the plugin does without it. */
    readonly lacks: (what: string, effect: string) => void
    readonly emit: EmitRpc
    /** The parent a fork event named for the session (its info may not say). */
    readonly parentOf: (sessionID: string) => string | undefined
    /** Our synthetic message's id, where the host's answer names it. */
    readonly sent: (sessionID: string, messageID: string) => void
  },
): HostPort {
  return {
    log: deps.log,
    toast: (toast, sessionID) => deps.emit("notice", { ...(sessionID ? { sessionID } : {}), ...toast }),
    async remind(sessionID, text) {
      if (!fn(session.synthetic)) return deps.lacks("session.synthetic", "no completion reminder is sent")
      // A synthetic message that starts a turn; the session keeps its agent and model on 2. A host that admits it
      // through its inbox answers with the item, whose id the message takes (packages/protocol/src/groups/session.ts
      // @01fd0c85, packages/schema/src/session-inbox.ts@1d23a169); one that does not names it by its event instead.
      const answer = await session.synthetic({ sessionID, text, resume: true } as never)
      const item = isRecord(answer) && isRecord(answer.data) ? answer.data : answer
      if (isRecord(item) && typeof item.id === "string" && item.id.startsWith("msg"))
        deps.sent(sessionID, item.id)
    },
    async sessionInfo(sessionID) {
      if (!fn(session.get)) return void deps.lacks(...WITHOUT_SESSION_GET)
      return v2SessionInfo(await session.get({ sessionID } as never), deps.parentOf(sessionID))
    },
    async newestMessage(sessionID) {
      if (!fn(session.context)) return void deps.lacks(...WITHOUT_SESSION_CONTEXT)
      const messages = messagesOf(await session.context({ sessionID } as never)) ?? []
      for (let i = messages.length - 1; i >= 0; i--) {
        const m = messages[i]
        const id = isRecord(m) ? (m.id ?? (isRecord(m.info) ? m.info.id : undefined)) : undefined
        if (typeof id === "string" && id !== "") return id
      }
      return undefined
    },
    async holds(sessionID, point) {
      const shown = await messageIdsOf(sessionID)
      if (shown === undefined) return undefined
      // A part of a message it has: parts are not named on 2, so that is not known.
      return shownHolds(shown, point.message) ? (point.part === undefined ? true : undefined) : false
    },
    messageIds: (sessionID) => messageIdsOf(sessionID),
    // Messages on 2 have no part ids of their own: a call is anchored at its message.
    partOf: async () => undefined,
    listChanged: (sessionID) => deps.emit("changed", { sessionID }),
  }

  /**
   * The session's messages as `session.context` shows them (2.0.15: only those after the last compaction, which
   * heads them); undefined when the host does not say.
   */
  async function messageIdsOf(sessionID: string): Promise<ShownMessages | undefined> {
    if (!fn(session.context)) return void deps.lacks(...WITHOUT_SESSION_CONTEXT)
    const messages = messagesOf(await session.context({ sessionID } as never))
    return messages === undefined ? undefined : v2Shown(messages)
  }
}
