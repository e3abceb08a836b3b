// What a tracked session asks the host about itself: its parent and its newest message (a part of sessions.ts).
// The parent is asked once, when no event said whether there is one; the newest message tells where a user edit
// belongs. Each lookup is bounded; what the host answers reaches the core as an event.

import { type EditAnchor, editAnchor } from "../core/history/rewind.ts"
import { type HostEvent, parentUnknown, type SessionAction } from "../core/session/session.ts"
import { answerWithin, LATE } from "../shared/wait.ts"
import { decodeSessionInfo } from "./host-events.ts"
import type { HostPort } from "./host-port.ts"
import type { Tracked } from "./sessions.ts"

// How long the one lookup of a session's parent may hold up a hook; a host that has not answered by then
// leaves the session counted as a top-level one (events normally carry the parent, so this is rare).
const PARENT_WAIT_MS = 2_000
// How long a user edit waits for the host to name the newest message, when no event named it yet.
const NEWEST_WAIT_MS = 1_000

export interface LookupDeps {
  readonly host: HostPort
  /** Says once per session and lookup that the host was slow (host-facts.ts slowHostWord). */
  slowHost(session: string, what: string, ms: number): void
  step(s: Tracked, event: HostEvent): Promise<readonly SessionAction[]>
}

/** The session's parent and its newest message, asked of the host. */
export function sessionLookups(deps: LookupDeps) {
  const { host, slowHost, step } = deps

  /** The lookup also says whether the session is reverted: a process started after the undo learns it here. */
  async function resolveParent(s: Tracked): Promise<void> {
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

  async function anchorOf(s: Tracked): Promise<EditAnchor | undefined> {
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

  return { resolveParent, anchorOf }
}
