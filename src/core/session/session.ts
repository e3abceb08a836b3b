// One session as the server sees it: its host facts (observe) and the session step (stepSession). The step
// turns each decoded host event into the tracker's event and returns what the server must do. Pure: (session,
// event, list, config) -> { session, actions }; the server hooks decode what the host sends, step this and
// perform the actions, so every decision about when the plugin speaks starts here.

/*
 * The session step, rule by rule. The tracker (tracker.ts) owns the speaking rules proper: prelude, nudge,
 * reminder, one-shot notices and their budgets; this step owns the host facts and which tracker event each
 * host event is.
 * - Facts come from events only: created in this process (session.created), subagent (it has a parent; the
 *   server looks the parent up when no event said), the agent, model and variant of the last real prompt, the
 *   last assistant message and its text, whether the turn was aborted, failed or interrupted (the assistant
 *   ended wanting tool calls: the user rejected a permission or a question), the open permission and question
 *   requests, and whether a compaction is being prepared.
 * - A real prompt (tracker.classifyUserMessage) records its agent, model and variant, and clears aborted,
 *   failed and interrupted. A message that is ours or synthetic changes no fact.
 * - A stored list found when the server first loads the session is a resume, unless the session was created in
 *   this process or the list is empty.
 * - The compacting hook prepares the summarizer's request: the tracker gives it the list as context. The next
 *   model request is the summarizer's own and carries nothing; the one after is a main request again.
 * - The todo tool reports its result with the ops the core parsed (an op inferred from the call's shape
 *   included); the host's generic tool hook also reports it, and that report is skipped.
 * - Idle: nothing before a real prompt was seen in this process. Otherwise the tracker decides from the facts:
 *   aborted or interrupted (the user took over), failed, an open request, a subagent, the last assistant text.
 * - A reminder goes out with the agent, model and variant of the last real prompt, so the host does not switch
 *   the session to its default agent.
 * - The host's undo, redo and commit (rewind.ts) are handed to the server as history actions, the commit
 *   before anything a prompt that commits it attaches. An undo takes back the notices that describe what it
 *   undid (the tracker's "rewound"), and no reminder goes out while it is pending: a new turn would commit it.
 * - A deleted session is forgotten.
 * The state is plain data (it round-trips through JSON) and does not grow with the session: at most
 * OPEN_ASKS_MAX request ids and the text of one assistant message.
 */

import { listFingerprint, sameList } from "../history/history.ts"
import {
  INITIAL_REWIND,
  type Point,
  type RewindAction,
  type RewindEvent,
  type RewindFacts,
  stepRewind,
} from "../history/rewind.ts"
import { diffLists, type EditNote } from "../list/diff.ts"
import type { Op, OpName, TodoList } from "../list/types.ts"
import { TODO_TOOL } from "../list/words.ts"
import { SUBAGENT_REFUSAL } from "../model/prompts.ts"
import { initialStubs, type StubState } from "../model/stale.ts"
import { type Access, type AgentRules, type Rule, toolAccess } from "./permission.ts"
import {
  classifyUserMessage,
  initialTracker,
  type MessagePart,
  stepTracker,
  type TrackerAction,
  type TrackerConfig,
  type TrackerEvent,
  type TrackerState,
} from "./tracker.ts"

export interface ModelRef {
  readonly providerID: string
  readonly modelID: string
}

/** Who the last real prompt went to; a reminder goes to the same. */
export interface UserRef {
  readonly agent?: string
  readonly model?: ModelRef
  readonly variant?: string
}

// Every field is always present (null when unknown): one object shape, so stepping stays cheap on hot events.
export interface SessionFacts {
  /** Created in this process (not resumed from an earlier one). */
  readonly createdHere: boolean
  /** Null until an event or a lookup says whether the session has a parent. */
  readonly subagent: boolean | null
  readonly lastUser: UserRef | null
  readonly lastAssistant: { readonly id: string; readonly text: string | null } | null
  /** The last assistant message ended wanting more tool calls: the user rejected a permission or question. */
  readonly interrupted: boolean
  readonly aborted: boolean
  readonly errored: boolean
  /** Ids of open permission and question requests. */
  readonly openAsks: readonly string[]
  /** Set by the compacting hook: the next model request is the summarizer's. */
  readonly compacting: boolean
  /** The session's own permission rules (a prompt's `tools` sets them), after the agent's. */
  readonly sessionRules: readonly Rule[]
  /** The agent of the latest user message that named one: the agent of the turn under way. */
  readonly turnAgent: string | null
  /** The `tools` map of the latest user message, when it had one. */
  readonly turnTools: Readonly<Record<string, boolean>> | null
  /** The undo in progress, the last commit, the newest message and the todo parts (rewind.ts). */
  readonly rewind: RewindFacts
}

export interface Session {
  readonly facts: SessionFacts
  readonly tracker: TrackerState
  /** Which of the plugin's stored messages are stubbed in requests (stale.ts). */
  readonly stubs: StubState
}

/** A bound on open request ids, so a host that never answers cannot grow the state. */
export const OPEN_ASKS_MAX = 100

/** What the host tells the server about a session, decoded (src/server/host-events.ts), plus the server's own findings. */
export type HostEvent =
  // The host's event bus.
  | { readonly type: "session.created"; readonly parentID?: string; readonly rules?: readonly Rule[] }
  /** The whole session as the host sent it: its rules, and the revert in progress (null: none). */
  | { readonly type: "session.updated"; readonly rules: readonly Rule[]; readonly revert: Point | null }
  /** The host removed a message (no partID) or a part of one: an undo is being committed. */
  | { readonly type: "message.removed"; readonly messageID: string; readonly partID?: string }
  /** The newest message of the session, as the server looked it up. */
  | { readonly type: "message.seen"; readonly messageID: string }
  /**
   * A redo was followed (or a commit made edits made while reverted again): those edits were made on
   * `before`, which left `after` (the same list when there were none); `dropped` of them no longer applied.
   */
  | {
      readonly type: "edits.remade"
      readonly change: "unrevert" | "commit"
      readonly before: TodoList
      readonly after: TodoList
      readonly dropped: number
    }
  /**
   * A /todo command ran on the server: the list before and after it, its mark (its message comes next) and,
   * for a verb, the ops it ran.
   */
  | {
      readonly type: "command.ran"
      readonly before: TodoList
      readonly after: TodoList
      readonly mark?: string
      readonly ops?: readonly Op[]
    }
  /** The host announced the part that holds a todo call. */
  | {
      readonly type: "todo.part"
      readonly callID: string
      readonly messageID: string
      readonly partID: string
    }
  | { readonly type: "session.deleted" }
  | { readonly type: "session.compacted" }
  | { readonly type: "session.error"; readonly aborted: boolean }
  | { readonly type: "session.idle" }
  | {
      readonly type: "assistant.updated"
      readonly messageID: string
      readonly endedOnToolCalls: boolean
      readonly error?: "aborted" | "failed"
    }
  /** A text part of any message was updated; it counts when it belongs to the last assistant message. */
  | { readonly type: "part.text"; readonly messageID: string; readonly text: string }
  | { readonly type: "ask.opened"; readonly id: string }
  | { readonly type: "ask.closed"; readonly id: string }
  // The host's hooks.
  | {
      readonly type: "user.message"
      readonly parts: readonly MessagePart[]
      readonly user: UserRef
      /** The prompt's `tools` map, when it had one. */
      readonly tools?: Readonly<Record<string, boolean>>
      readonly messageID?: string
      /** The mark of the /todo command whose part the message carries (the command's own message). */
      readonly command?: string
      /** The revert point the record holds (the server's own finding): the host committed it before this message. */
      readonly recorded?: Point
    }
  | { readonly type: "model.request" }
  | { readonly type: "compacting" }
  | { readonly type: "tool.finished"; readonly tool: string; readonly ok: boolean }
  /** The todo tool's own report: `ops` as the core parsed them. */
  | { readonly type: "todo.finished"; readonly ok: boolean; readonly ops: readonly OpName[] }
  // The server's own findings.
  | { readonly type: "parent.found"; readonly parentID?: string }
  /** The host's revert point as a lookup answered it (null: none): events this process missed may have set it. */
  | { readonly type: "revert.found"; readonly revert: Point | null }
  /**
   * The server read the session's stored list for the first time in this process, and took the user-edit
   * notes queued in the store with it (edits made through the TUI that no server delivered yet).
   */
  | {
      readonly type: "list.loaded"
      readonly edits?: readonly EditNote[]
      /**
       * Set when the session had no record and the server started its list from elsewhere (a fork's source,
       * its own conversation): what the conversation shows of the list ([] for none, null when unreadable).
       */
      readonly carried?: { readonly shown: TodoList | null }
    }
  /** The user changed the list in another process (the TUI); these are the lines of its note. */
  | ({ readonly type: "list.edited" } & EditNote)

export type SessionAction =
  | (TrackerAction & { readonly type: "attach" | "inject" })
  /** Start a new turn with this hidden message, as `user`'s agent, model and variant. */
  | (TrackerAction & { readonly type: "remind"; readonly user?: UserRef })
  /** Drop everything kept about the session. */
  | { readonly type: "forget" }
  /** Follow the host's undo, redo or commit on the stored history; the list the server uses changes. */
  | { readonly type: "history"; readonly change: RewindAction }

export interface SessionStep {
  readonly session: Session
  readonly actions: readonly SessionAction[]
}

const NO_ACTIONS: readonly SessionAction[] = Object.freeze([])

export function initialSession(): Session {
  return {
    facts: {
      createdHere: false,
      subagent: null,
      lastUser: null,
      lastAssistant: null,
      interrupted: false,
      aborted: false,
      errored: false,
      openAsks: [],
      compacting: false,
      sessionRules: [],
      turnAgent: null,
      turnTools: null,
      rewind: INITIAL_REWIND,
    },
    tracker: initialTracker(),
    stubs: initialStubs(),
  }
}

/**
 * Whether the server steps `event` as it arrives rather than in its turn behind the events before it. A todo part's
 * announcement only records which part holds which call (no action, and no other step depends on its order), and
 * the todo tool, which runs outside that order, reads it: the host announces a call's part before it runs the
 * call, so a slow step queued ahead (an undo's agreement with the host) must not hide the part from the call.
 */
export function stepsOnArrival(event: HostEvent): boolean {
  return event.type === "todo.part"
}

/** True while nothing said whether the session is a subagent: the server then asks the host for its parent. */
export function parentUnknown(facts: SessionFacts): boolean {
  return facts.subagent === null
}

/** The todo tool's answer when the call must not run (a subagent's); undefined when it may. */
export function todoRefusal(facts: SessionFacts): string | undefined {
  return facts.subagent === true ? SUBAGENT_REFUSAL : undefined
}

/** The facts with `patch` applied. Built field by field: a spread of a spread is slow in V8, and this runs per event. */
function patched(facts: SessionFacts, patch: Partial<SessionFacts>): SessionFacts {
  return {
    createdHere: patch.createdHere ?? facts.createdHere,
    subagent: patch.subagent === undefined ? facts.subagent : patch.subagent,
    lastUser: patch.lastUser === undefined ? facts.lastUser : patch.lastUser,
    lastAssistant: patch.lastAssistant === undefined ? facts.lastAssistant : patch.lastAssistant,
    interrupted: patch.interrupted ?? facts.interrupted,
    aborted: patch.aborted ?? facts.aborted,
    errored: patch.errored ?? facts.errored,
    openAsks: patch.openAsks ?? facts.openAsks,
    compacting: patch.compacting ?? facts.compacting,
    sessionRules: patch.sessionRules ?? facts.sessionRules,
    turnAgent: patch.turnAgent === undefined ? facts.turnAgent : patch.turnAgent,
    turnTools: patch.turnTools === undefined ? facts.turnTools : patch.turnTools,
    rewind: patch.rewind ?? facts.rewind,
  }
}

/**
 * Whether the agent may call the todo tool: `agent` over its rules in `agents`, then the session's rules,
 * then the prompt's `tools`. An agent whose rules are unknown counts as allowed.
 */
function accessOf(
  facts: SessionFacts,
  agents: AgentRules | undefined,
  agent: string | null | undefined,
  tools: Readonly<Record<string, boolean>> | null,
): Access {
  const rules = agent ? agents?.get(agent) : undefined
  return toolAccess(TODO_TOOL, rules, facts.sessionRules, tools ?? undefined)
}

/**
 * Whether the agent of the turn under way (the latest user message's agent, the session's rules, that
 * message's `tools`) may call todo: "allow", "ask" (each call waits for the user's approval) or "deny".
 */
export function todoAccess(facts: SessionFacts, agents: AgentRules | undefined): Access {
  return accessOf(facts, agents, facts.turnAgent, facts.turnTools)
}

/** The same for the agent a reminder would go to: the last real prompt's, under the session's rules. */
function reminderAccess(facts: SessionFacts, agents: AgentRules | undefined): Access {
  return accessOf(facts, agents, facts.lastUser?.agent ?? facts.turnAgent, null)
}

/** The facts after `event`; the same object when the event changes none. */
export function observe(facts: SessionFacts, event: HostEvent): SessionFacts {
  return observeStep(facts, event).facts
}

/** The rewind event (rewind.ts) a host event is, if any. */
function rewindEvent(event: HostEvent): RewindEvent | undefined {
  switch (event.type) {
    case "session.updated":
    case "revert.found":
      return { type: "revert", point: event.revert }
    case "message.removed":
      return {
        type: "removed",
        point:
          event.partID === undefined
            ? { message: event.messageID }
            : { message: event.messageID, part: event.partID },
      }
    case "user.message":
      return {
        type: "message",
        user: true,
        ...(event.messageID ? { messageID: event.messageID } : {}),
        ...(event.command === undefined ? {} : { command: event.command }),
        ...(event.recorded === undefined ? {} : { recorded: event.recorded }),
      }
    case "assistant.updated":
    case "message.seen":
      return { type: "message", user: false, messageID: event.messageID }
    case "todo.part":
      return event
    case "command.ran":
      return {
        type: "command",
        made: sameList(event.before, event.after) ? null : listFingerprint(event.after),
        ...(event.mark === undefined ? {} : { mark: event.mark }),
        ...(event.ops === undefined ? {} : { ops: event.ops }),
      }
    default:
      return undefined
  }
}

/** The facts after `event`, and what the host's undo, redo or commit asks of the stored history. */
function observeStep(
  facts: SessionFacts,
  event: HostEvent,
): { facts: SessionFacts; rewind: readonly RewindAction[] } {
  const observed = observeHost(facts, event)
  const input = rewindEvent(event)
  if (input === undefined) return { facts: observed, rewind: [] }
  const step = stepRewind(observed.rewind, input)
  return {
    facts: step.facts === observed.rewind ? observed : patched(observed, { rewind: step.facts }),
    rewind: step.actions,
  }
}

function observeHost(facts: SessionFacts, event: HostEvent): SessionFacts {
  switch (event.type) {
    case "session.created":
      return patched(facts, {
        createdHere: true,
        subagent: event.parentID !== undefined,
        ...(event.rules ? { sessionRules: event.rules } : {}),
      })
    case "session.updated":
      return sameRules(facts.sessionRules, event.rules)
        ? facts
        : patched(facts, { sessionRules: event.rules })
    case "parent.found":
      return facts.subagent === null ? patched(facts, { subagent: event.parentID !== undefined }) : facts
    case "user.message": {
      // Every user message starts or continues a turn as its agent; only a real prompt is the user's.
      const turn = { turnAgent: event.user.agent ?? facts.turnAgent, turnTools: event.tools ?? null }
      if (classifyUserMessage(event.parts) !== "real") return patched(facts, turn)
      return patched(facts, {
        ...turn,
        lastUser: event.user,
        aborted: false,
        errored: false,
        interrupted: false,
      })
    }
    case "session.error":
      return patched(facts, event.aborted ? { aborted: true } : { errored: true })
    case "assistant.updated": {
      const same = facts.lastAssistant !== null && facts.lastAssistant.id === event.messageID
      return patched(facts, {
        lastAssistant: same ? facts.lastAssistant : { id: event.messageID, text: null },
        interrupted: event.endedOnToolCalls,
        aborted: facts.aborted || event.error === "aborted",
        errored: facts.errored || event.error === "failed",
      })
    }
    case "part.text": {
      const last = facts.lastAssistant
      if (last === null || last.id !== event.messageID || event.text === "" || event.text === last.text)
        return facts
      return patched(facts, { lastAssistant: { id: event.messageID, text: event.text } })
    }
    case "ask.opened":
      if (facts.openAsks.includes(event.id)) return facts
      return patched(facts, { openAsks: [...facts.openAsks, event.id].slice(-OPEN_ASKS_MAX) })
    case "ask.closed":
      if (!facts.openAsks.includes(event.id)) return facts
      return patched(facts, { openAsks: facts.openAsks.filter((id) => id !== event.id) })
    case "compacting":
      return patched(facts, { compacting: true })
    case "model.request":
      return facts.compacting ? patched(facts, { compacting: false }) : facts
    default:
      return facts
  }
}

function sameRules(a: readonly Rule[], b: readonly Rule[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!
    const y = b[i]!
    if (x.permission !== y.permission || x.pattern !== y.pattern || x.action !== y.action) return false
  }
  return true
}

/** The tracker's view of an idle session: what the facts say about the turn that just ended. */
export function idleEvent(
  facts: SessionFacts,
  list: TodoList,
  agents?: AgentRules,
): Extract<TrackerEvent, { type: "idle" }> {
  return {
    type: "idle",
    list,
    access: reminderAccess(facts, agents),
    lastAssistantText: facts.lastAssistant?.text ?? undefined,
    userMessageWaiting: false,
    aborted: facts.aborted || facts.interrupted,
    errored: facts.errored,
    openQuestion: facts.openAsks.length > 0,
    isSubagent: facts.subagent === true,
    reverted: facts.rewind.revert !== null,
  }
}

/** The tracker event a host event is, if any. `before` are the facts before the event. */
function trackerEvent(
  event: HostEvent,
  before: SessionFacts,
  facts: SessionFacts,
  tracker: TrackerState,
  list: TodoList,
  agents: AgentRules | undefined,
): TrackerEvent | undefined {
  switch (event.type) {
    case "user.message":
      return {
        type: "userMessage",
        parts: event.parts,
        list,
        isNewSession: facts.createdHere,
        isSubagent: facts.subagent === true,
        access: todoAccess(facts, agents),
        ...(event.user.model ? { model: event.user.model.modelID } : {}),
      }
    case "compacting":
      return { type: "modelRequest", kind: "compaction", list }
    case "model.request":
      // The request right after the compacting hook is the summarizer's; its context went with the hook.
      return before.compacting
        ? undefined
        : { type: "modelRequest", kind: "main", list, access: todoAccess(facts, agents) }
    case "tool.finished":
      return event.tool === TODO_TOOL
        ? undefined
        : { type: "toolResult", tool: event.tool, ok: event.ok, list }
    case "todo.finished":
      return { type: "toolResult", tool: TODO_TOOL, ok: event.ok, todoOps: event.ops, list }
    case "session.compacted":
      return { type: "compacted" }
    case "list.loaded": {
      if (event.carried) return { type: "carried", list, shown: event.carried.shown }
      // A resume notice shows the list as the user left it: queued notes about how it got there are spent.
      if (!facts.createdHere && list.length > 0) return { type: "resumed", list }
      const edits = event.edits ?? []
      if (edits.length === 0) return undefined
      return {
        type: "userEdit",
        lines: edits.flatMap((edit) => edit.lines),
        removed: edits.flatMap((edit) => edit.removed),
      }
    }
    case "edits.remade": {
      // A commit makes the edits again on the list they were made on: their notes stand, unless some dropped.
      if (event.change === "commit" && event.dropped === 0) return undefined
      const net = diffLists(event.before, event.after)
      return {
        type: "remade",
        redo: event.change === "unrevert",
        lines: net.lines,
        removed: net.removed,
        removedPhases: net.removedPhases,
      }
    }
    case "list.edited":
      return {
        type: "userEdit",
        lines: event.lines,
        removed: event.removed,
        ...(event.removedPhases ? { removedPhases: event.removedPhases } : {}),
      }
    case "session.idle":
      return tracker.prompted ? idleEvent(facts, list, agents) : undefined
    default:
      return undefined
  }
}

/**
 * Steps the session by one host event. `list` is the session's list as the server knows it now; `agents` the
 * agents' permission rules as the host served them (undefined while unknown).
 */
export function stepSession(
  session: Session,
  event: HostEvent,
  list: TodoList,
  config: TrackerConfig,
  agents?: AgentRules,
): SessionStep {
  const { facts, rewind } = observeStep(session.facts, event)
  const withFacts = facts === session.facts ? session : { ...session, facts }
  if (event.type === "session.deleted") return { session: withFacts, actions: [{ type: "forget" }] }
  const history: SessionAction[] = rewind.map((change) => ({ type: "history", change }))
  // An undo takes back what pending notices describe; the rest of the event means nothing to the tracker.
  const tracked: TrackerEvent | undefined = rewind.some((change) => change.type === "revert")
    ? { type: "rewound" }
    : trackerEvent(event, session.facts, facts, session.tracker, list, agents)
  if (tracked === undefined) return { session: withFacts, actions: history.length > 0 ? history : NO_ACTIONS }
  const step = stepTracker(session.tracker, tracked, config)
  const user = facts.lastUser
  const actions =
    step.actions.length === 0 && history.length === 0
      ? NO_ACTIONS
      : [
          ...history,
          ...step.actions.map(
            (action): SessionAction =>
              action.type === "remind" && user !== null ? { ...action, type: "remind", user } : action,
          ),
        ]
  return { session: { facts, tracker: step.state, stubs: session.stubs }, actions }
}
