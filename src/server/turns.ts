// What a session's turns carry that the core does not keep, for a host that tells the model per request (OpenCode
// 2): each session's agent, the text said with its prompt (told again with every request of that turn), the ids
// of our synthetic messages, whether a compaction runs or its summarizer was served, and where each fork starts.
// The runtime owns these maps and every decision over them; a binding only decodes and writes back.

import type { History, PartRef } from "../core/model/stale.ts"
import type { HostEvent } from "../core/session/session.ts"
import type { SteerRequest } from "./steering.ts"

/** Our synthetic messages remembered per session. */
const MAX_OURS = 512

/** Where a fork starts: its source, and the first of the source's messages it does not hold. */
export interface Fork {
  readonly parentID: string
  readonly from?: string
}

/** A fact from the host's event stream about a session's turns (no core event of its own). */
export type TurnNote =
  | { readonly type: "compaction"; readonly sessionID: string; readonly running: boolean }
  /** `selected`: the user chose it (it replaces the one known); else it is the session's first. */
  | { readonly type: "agent"; readonly sessionID: string; readonly agent: string; readonly selected: boolean }
  /** One of our synthetic messages (a reminder), by its message id. */
  | { readonly type: "ours"; readonly sessionID: string; readonly messageID: string }

/** A request-shaped hook event, decoded. */
export interface TurnRequest {
  /**
   * The agent's own turn, the summarizer's request, or an aside (a title: nothing of ours goes in), given
   * whether the host said a compaction of the session runs.
   */
  readonly role: (compacting: boolean) => "primary" | "summarizer" | "aside"
  readonly agent?: string
  /** Whether the request offers `todo` (the host leaves out a tool the agent may not call). */
  readonly offered: boolean
  /** The request's messages as the stale rule reads them, given the ids of our synthetic messages. */
  readonly history: (ours: ReadonlySet<string> | undefined) => History
  /** The host's prompt to steer, where the request has one. */
  readonly system?: Omit<SteerRequest, "sessionID" | "offered">
}

/** What to write into the request; each part only where it is set. */
export interface TurnAnswer {
  readonly stale: readonly PartRef[]
  /** The steered system texts (the same strings where nothing changed). */
  readonly system?: readonly string[]
  /** The context for the summarizer. */
  readonly summarizer?: string
  /** What the turn's prompt said, to stay on that prompt (its message) in every request of the turn. */
  readonly said?: { readonly text: string; readonly messageID?: string }
  /** What is new for this request only, as its newest user content. */
  readonly inject?: string
}

export interface Turns {
  /** A prompt whose host names no agent with it: the core's step, and what it said kept for the turn's requests. */
  prompt(sessionID: string, prompt: { readonly text?: string; readonly messageID?: string }): Promise<void>
  /** A model request of the session: what to stub, steer, tell the summarizer, keep on the prompt and add. */
  request(sessionID: string, request: TurnRequest): Promise<TurnAnswer | undefined>
  /** The compaction hook: the summarizer's request, served here so the per-request hook adds nothing after. */
  compaction(
    sessionID: string,
    history: TurnRequest["history"],
  ): Promise<{ context: string; stale: readonly PartRef[] }>
  /** A host event about the session; `endedBefore` says whether an execution's end is older than a prompt. */
  event(
    sessionID: string,
    event: HostEvent,
    endedBefore: (messageID: string | undefined) => boolean,
  ): Promise<void>
  note(note: TurnNote): void
  /** A fork the host announced: remembered, and the fork tracked as a new session starting from its source. */
  forked(sessionID: string, fork: Fork): Promise<void>
  /** A fork learnt from its info (its event not heard), remembered as the event would be. */
  rememberFork(sessionID: string, fork: Fork): void
  fork(sessionID: string): Fork | undefined
  /** The core's last known rules of a tracked session, as a session.updated (a revert event says none). */
  rulesOf(sessionID: string): HostEvent[]
}

/** The runtime calls the turns are made of. */
export interface TurnDeps {
  prompt(sessionID: string, message: Extract<HostEvent, { type: "user.message" }>): Promise<string>
  request(sessionID: string, history: History): Promise<{ stale: readonly PartRef[]; inject: string }>
  compacting(sessionID: string): Promise<string>
  event(sessionID: string, event: HostEvent): Promise<void>
  steer(request: SteerRequest): Promise<readonly string[] | undefined>
  /** The session's rules as the core last knew them, for a session this process tracks. */
  knownRules(sessionID: string): HostEvent[]
}

export function createTurns(deps: TurnDeps): Turns {
  /** The agent each session was last seen with (its prompt carries none). */
  const agentOf = new Map<string, string>()
  /** The text the core attached to each session's prompt (and that prompt's message). */
  const attached = new Map<string, { text: string; messageID?: string }>()
  /** The ids of our synthetic messages (reminders) by session. */
  const ours = new Map<string, Set<string>>()
  /** Sessions between a compaction's start and its end: a request then is the summarizer's. */
  const compacting = new Set<string>()
  /** Sessions whose summarizer the compaction hook already served: a summarizer's request after it gets nothing. */
  const summarized = new Set<string>()
  /** Fork events by fork id: where each fork starts from. */
  const forks = new Map<string, Fork>()

  function markOurs(sessionID: string, messageID: string): void {
    const set = ours.get(sessionID) ?? new Set<string>()
    set.add(messageID)
    // Bounded: the oldest go first (their messages have long been stubbed or compacted away).
    if (set.size > MAX_OURS) set.delete(set.values().next().value as string)
    ours.set(sessionID, set)
  }

  async function summarizer(sessionID: string, history: TurnRequest["history"]) {
    const context = await deps.compacting(sessionID)
    const { stale } = await deps.request(sessionID, history(ours.get(sessionID)))
    return { context, stale }
  }

  return {
    async prompt(sessionID, prompt) {
      const agent = agentOf.get(sessionID)
      const text = await deps.prompt(sessionID, {
        type: "user.message",
        parts: [{ type: "text", ...(prompt.text === undefined ? {} : { text: prompt.text }) }],
        user: agent ? { agent } : {},
        ...(prompt.messageID === undefined ? {} : { messageID: prompt.messageID }),
      })
      const { messageID } = prompt
      if (text) attached.set(sessionID, { text, ...(messageID ? { messageID } : {}) })
      else attached.delete(sessionID)
    },

    async request(sessionID, request) {
      const role = request.role(compacting.has(sessionID))
      if (role === "aside") return undefined
      // The agent of the session's own turn (the host's hidden summarizer agent is not it).
      if (role === "primary" && request.agent !== undefined) agentOf.set(sessionID, request.agent)
      if (role === "summarizer") {
        // The compaction hook served the summarizer already: nothing more for it.
        if (summarized.delete(sessionID)) return undefined
        // Without a compaction hook before it, this request is where the summarizer learns the list.
        const { context, stale } = await summarizer(sessionID, request.history)
        return { stale, summarizer: context }
      }
      summarized.delete(sessionID)
      const system = request.system
        ? await deps.steer({ ...request.system, sessionID, offered: request.offered })
        : undefined
      const steered = system === undefined ? {} : { system }
      // The notices wait for a request that offers todo.
      if (!request.offered) return { stale: [], ...steered }
      const { stale, inject } = await deps.request(sessionID, request.history(ours.get(sessionID)))
      const said = attached.get(sessionID)
      return { stale, ...steered, ...(said ? { said } : {}), ...(inject ? { inject } : {}) }
    },

    async compaction(sessionID, history) {
      const served = await summarizer(sessionID, history)
      summarized.add(sessionID)
      return served
    },

    async event(sessionID, event, endedBefore) {
      // The turn's end takes back what its prompt said; an execution that ended before the prompt does not.
      if (event.type === "session.idle" && !endedBefore(attached.get(sessionID)?.messageID))
        attached.delete(sessionID)
      if (event.type === "session.deleted") {
        attached.delete(sessionID)
        agentOf.delete(sessionID)
        forks.delete(sessionID)
        ours.delete(sessionID)
        compacting.delete(sessionID)
      }
      await deps.event(sessionID, event)
    },

    note(note) {
      if (note.type === "compaction") {
        if (note.running) compacting.add(note.sessionID)
        else compacting.delete(note.sessionID)
      } else if (note.type === "agent") {
        if (note.selected || !agentOf.has(note.sessionID)) agentOf.set(note.sessionID, note.agent)
      } else markOurs(note.sessionID, note.messageID)
    },

    async forked(sessionID, fork) {
      forks.set(sessionID, fork)
      // A fork is a new top-level session whose list starts from its source's.
      await deps.event(sessionID, { type: "session.created" })
    },

    rememberFork: (sessionID, fork) => void forks.set(sessionID, fork),
    fork: (sessionID) => forks.get(sessionID),
    rulesOf: (sessionID) => deps.knownRules(sessionID),
  }
}
