// What the server runtime (runtime.ts, sessions.ts, todo-tool.ts) asks of the host it runs in, as one small
// interface each host binding fills in: OpenCode 1.18 through its SDK client (v1Port, here), OpenCode 2 through
// its plugin context (v2-host-port.ts). Every call is answered or fails; none throws synchronously into the runtime.

import type { ShownMessages } from "../core/history/effect.ts"
import type { Point } from "../core/history/history.ts"
import { isRecord } from "../core/list/result.ts"
import type { UserRef } from "../core/session/session.ts"
import type { Toast } from "../core/session/toasts.ts"
import { type Client, type Log, showToast } from "./output.ts"

export interface HostPort {
  /** The host's log, each distinct message once. */
  readonly log: Log
  /** Shows a toast to the person at the keyboard; `sessionID` is the session it is about, when there is one. */
  toast(toast: Toast, sessionID?: string): void
  /** Starts a new turn in the session with this hidden message, as `user`'s agent and model where the host needs them. */
  remind(sessionID: string, text: string, user: UserRef | undefined): Promise<void>
  /**
   * The session's info in the shape the decoders read (`id`, `parentID`, `permission`, `revert`), or undefined
   * when the host does not say. The runtime bounds the wait.
   */
  sessionInfo(sessionID: string): Promise<Record<string, unknown> | undefined>
  /** The id of the session's newest message, or undefined. The runtime bounds the wait. */
  newestMessage(sessionID: string): Promise<string | undefined>
  /** Whether the host still has this message (and part); undefined when it does not say for sure. */
  holds(sessionID: string, point: Point): Promise<boolean | undefined>
  /**
   * The messages the host shows for the session (oldest first; on OpenCode 2 only those after its last
   * compaction, which heads them); undefined when it does not say.
   */
  messageIds(sessionID: string): Promise<ShownMessages | undefined>
  /** The id of the part that holds tool call `callID` of message `messageID`, where the host has part ids. */
  partOf(sessionID: string, messageID: string, callID: string): Promise<string | undefined>
  /** The session's list in effect changed (a host whose TUI cannot watch the store is told here). */
  listChanged(sessionID: string): void
}

/** The port on OpenCode 1.18: its SDK client, talking to the same process. */
export function v1Port(client: Client, log: Log): HostPort {
  return {
    log,
    toast: (toast) => showToast(client, toast),
    async remind(id, text, user) {
      const body = { parts: [{ type: "text", text, synthetic: true }], ...(user ?? {}) }
      await client.session.promptAsync({ path: { id }, body: body as never })
    },
    async sessionInfo(id) {
      const info = await client.session.get({ path: { id } })
      return isRecord(info?.data) ? info.data : undefined
    },
    async newestMessage(id) {
      const answer = await client.session.messages({ path: { id }, query: { limit: 1 } })
      const last = Array.isArray(answer?.data) ? answer.data.at(-1) : undefined
      const messageID = isRecord(last) && isRecord(last.info) ? last.info.id : undefined
      return typeof messageID === "string" && messageID !== "" ? messageID : undefined
    },
    async holds(id, point) {
      const answer: unknown = await client.session.message({ path: { id, messageID: point.message } })
      if (!isRecord(answer)) return undefined
      const data = answer.data
      if (isRecord(data) && isRecord(data.info) && data.info.id === point.message) {
        if (point.part === undefined) return true
        const parts = Array.isArray(data.parts) ? data.parts : []
        return parts.some((p) => isRecord(p) && p.id === point.part)
      }
      const status = isRecord(answer.response) ? answer.response.status : undefined
      const error = isRecord(answer.error) ? answer.error : undefined
      return status === 404 || error?.name === "NotFoundError" ? false : undefined
    },
    async messageIds(id) {
      const answer = await client.session.messages({ path: { id } })
      const data = isRecord(answer) ? answer.data : undefined
      if (!Array.isArray(data)) return undefined
      const ids = new Set<string>()
      for (const message of data)
        if (isRecord(message) && isRecord(message.info) && typeof message.info.id === "string")
          ids.add(message.info.id)
      return { ids }
    },
    async partOf(sessionID, messageID, callID) {
      const answer = await client.session.message({ path: { id: sessionID, messageID } })
      const data: unknown = answer?.data
      const parts: unknown[] = isRecord(data) && Array.isArray(data.parts) ? data.parts : []
      const part = parts.find((p) => isRecord(p) && p.callID === callID && typeof p.id === "string")
      return isRecord(part) ? (part.id as string) : undefined
    },
    // The 1.18 TUI watches the store itself.
    listChanged: () => {},
  }
}
