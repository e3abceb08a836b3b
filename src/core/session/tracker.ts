// Per-session state machine deciding when the plugin speaks to the model: eager prelude, mid-run nudges,
// completion reminders and one-shot notices. Pure: (state, event, config) -> { state, actions }. Lean
// guidance (model/mode.ts) drops the prelude and nudges, nothing else. Host events become these events in
// session.ts; whether the agent's last text asks the user something is asks.ts's.

import type { Config } from "../config.ts"
import { sameList } from "../history/history.ts"
import type { EditNote } from "../list/diff.ts"
import { hasActionableTask, hasOpenTask } from "../list/queries.ts"
import type { OpName, TodoList } from "../list/types.ts"
import { TODO_TOOL } from "../list/words.ts"
import { guidanceOf, plansUnaided } from "../model/mode.ts"
import {
  compactionContextText,
  type EditSummary,
  isPluginText,
  type Notices,
  noticesText,
  preludeText,
  reminderText,
} from "../model/prompts.ts"
import { asksUser, endsInQuestion } from "./asks.ts"
import type { Access } from "./permission.ts"

/**
 * Tools that only look: after a prompt that asked a question, a turn that used nothing else (and todo only to
 * view) was an answer, not a stop with work open.
 */
export const LOOKING_TOOLS: ReadonlySet<string> = new Set(["read", "glob", "grep", "list", "webfetch"])

/** Tools whose successful results count as edits for the mid-run nudge. */
export const MUTATING_TOOLS: ReadonlySet<string> = new Set([
  "bash",
  // OpenCode 2's name for bash.
  "shell",
  "edit",
  "write",
  "patch",
  "apply_patch",
  "multiedit",
])

export type TrackerConfig = Pick<
  Config,
  "reminders" | "remindersMax" | "eager" | "mode" | "nudgeAfter" | "nudgesMax"
> & {
  /** Replaces MUTATING_TOOLS, e.g. when the host names its tools differently. */
  readonly mutatingTools?: ReadonlySet<string>
}

/**
 * Everything the tracker remembers about one session. Plain data (JSON round-trips), bounded in size:
 * counters, flags and at most EDIT_LINES_MAX + 2 × REMOVED_MAX short strings (removed tasks and phases).
 */
export interface TrackerState {
  /** A real user prompt has been seen since this process started tracking the session. */
  readonly prompted: boolean
  /** The prelude was decided: a real prompt to an agent that may call todo was seen. */
  readonly preluded: boolean
  /** The last real prompt asked a question, and the agent has only looked since (LOOKING_TOOLS, todo view). */
  readonly question: boolean
  /** The session's list or history existed before this process saw it. */
  readonly resumed: boolean
  readonly subagent: boolean
  /** Successful mutating tool results since the last successful todo update, the last nudge or the cycle start. */
  readonly edits: number
  /** Nudges queued this cycle. */
  readonly nudges: number
  /** Reminders sent this cycle. */
  readonly reminders: number
  /** Set by a reminder (or an abort or user edit); cleared by progress or a real prompt. */
  readonly paused: boolean
  /** An undo is pending: set by "rewound", cleared by a redo ("remade") or any user message (a commit). */
  readonly undoing: boolean
  /** The newest real prompt that named its model named one that plans unaided (mode.ts). */
  readonly lean: boolean
  readonly pending: {
    readonly resume: boolean
    /** The list differs from what the conversation shows: say so once, with the list. */
    readonly carried: boolean
    readonly compaction: boolean
    /** Edit count to report in a due nudge; 0 when none is due. */
    readonly nudge: number
    readonly edits: EditSummary | null
    /** User-edit notes an undo took back, held for a redo to bring back with the edits. */
    readonly undone: EditSummary | null
  }
}

export type MessageKind = "real" | "plugin" | "synthetic"

export interface MessagePart {
  readonly type: string
  readonly text?: string
  readonly synthetic?: boolean
  readonly ignored?: boolean
}

export type TrackerEvent =
  /** A user message is being sent. `list` is the session's list at that moment. */
  | {
      readonly type: "userMessage"
      readonly parts: readonly MessagePart[]
      readonly list: TodoList
      /** False when the session (its history or list) existed before this process saw it. */
      readonly isNewSession: boolean
      readonly isSubagent: boolean
      /** Whether the message's agent may call todo; absent: "allow". */
      readonly access?: Access
      /** The id of the model the message goes to, when the host said. */
      readonly model?: string
    }
  /** A tool call finished. For the todo tool, `todoOps` names the ops of the call (batch included). */
  | {
      readonly type: "toolResult"
      readonly tool: string
      readonly ok: boolean
      readonly todoOps?: readonly OpName[]
      /** The list after the call. */
      readonly list: TodoList
    }
  /**
   * A model request is about to be made. A "main" request carries the notices that are due; the summarizer's
   * request ("compaction") carries the list as context for the summary, and no notices.
   */
  | {
      readonly type: "modelRequest"
      readonly kind: "main" | "compaction"
      readonly list: TodoList
      /** Whether the request's agent may call todo; absent: "allow". */
      readonly access?: Access
    }
  /** The agent stopped. */
  | {
      readonly type: "idle"
      readonly list: TodoList
      readonly lastAssistantText: string | undefined
      readonly userMessageWaiting: boolean
      readonly aborted: boolean
      readonly errored: boolean
      /** A question or permission request is open. */
      readonly openQuestion: boolean
      readonly isSubagent?: boolean
      /** Whether the agent a reminder would go to may call todo; absent: "allow". */
      readonly access?: Access
      /** The user undid a turn and has not committed it: a new turn would commit the undo. */
      readonly reverted?: boolean
    }
  /** The session existed before this process (its stored list is `list`). */
  | { readonly type: "resumed"; readonly list: TodoList }
  /**
   * A session with no record started from `list` (a fork's source, its own conversation); `shown` is the
   * list its conversation shows the model ([] for none, null when that cannot be read).
   */
  | { readonly type: "carried"; readonly list: TodoList; readonly shown: TodoList | null }
  /** The conversation was compacted. */
  | { readonly type: "compacted" }
  /** The user changed the list (via /todo or the sidebar). */
  | ({ readonly type: "userEdit" } & EditNote)
  /**
   * The user undid part of the conversation: the list went back to an earlier state, and the model's
   * history will lose the undone turns.
   */
  | { readonly type: "rewound" }
  /**
   * The user's edits made while the conversation was undone were made again on the list the model comes back
   * to, on a redo or a commit: what they changed there, net, replaces the notes queued about them.
   */
  | ({ readonly type: "remade"; readonly redo: boolean } & EditNote)

/**
 * What a text says. One delivery may carry several one-shot notices in one text (the list shown once):
 * such a text is "notices"; a text with one notice has that notice's kind.
 */
export type NoticeKind =
  | "prelude"
  | "reminder"
  | "nudge"
  | "resume"
  | "carried"
  | "compaction"
  | "compaction-context"
  | "user-edit"
  | "notices"

export interface TrackerAction {
  /**
   * "attach": add as a hidden part of the user message being sent; "inject": add to the model request being
   * made; "remind": start a new turn with this hidden message.
   */
  readonly type: "attach" | "inject" | "remind"
  readonly kind: NoticeKind
  readonly text: string
  /** Set on a merged text ("notices") that carries a nudge, so a toast can say one went out. */
  readonly nudged?: true
}

export interface Step {
  readonly state: TrackerState
  readonly actions: TrackerAction[]
}

// Caps on merged user-edit notices, so a burst of edits cannot grow the state or the notice.
export const EDIT_LINES_MAX = 20
export const REMOVED_MAX = 50

export function initialTracker(): TrackerState {
  return {
    prompted: false,
    preluded: false,
    question: false,
    resumed: false,
    subagent: false,
    edits: 0,
    nudges: 0,
    reminders: 0,
    paused: false,
    undoing: false,
    lean: false,
    pending: { resume: false, carried: false, compaction: false, nudge: 0, edits: null, undone: null },
  }
}

function realTexts(parts: readonly MessagePart[]): string[] {
  const texts: string[] = []
  for (const part of parts)
    if (
      part.type === "text" &&
      !part.synthetic &&
      !part.ignored &&
      typeof part.text === "string" &&
      part.text.trim() !== "" &&
      !isPluginText(part.text)
    )
      texts.push(part.text)
  return texts
}

/**
 * "real": the user typed something (a non-synthetic, non-ignored, non-empty text part that is not ours).
 * "plugin": no such part, but some text part is ours. "synthetic": anything else, including a message
 * whose only content is a file attachment: it cannot be told apart from automation that sends files, and
 * treating it as real would let such automation reset the reminder budget; at worst a files-only prompt
 * leaves the budgets where they were.
 */
export function classifyUserMessage(parts: readonly MessagePart[]): MessageKind {
  if (realTexts(parts).length > 0) return "real"
  for (const part of parts)
    if (part.type === "text" && typeof part.text === "string" && isPluginText(part.text)) return "plugin"
  return "synthetic"
}

// A prompt ending in a question or an exclamation is a question or a quick remark, not a plan-worthy task.
const PROMPT_NO_PLAN_END = /[?!\uFF1F\uFF01\u061F\u037E\u2E2E]$/u

function mergeEdits(
  prev: EditSummary | null,
  lines: readonly string[],
  removed: readonly string[],
  removedPhases: readonly string[] = [],
): EditSummary {
  const allLines = [...(prev?.lines ?? []), ...lines]
  const keptLines = allLines.slice(-EDIT_LINES_MAX)
  const once = (before: readonly string[], added: readonly string[]) => {
    const all = [...before]
    for (const text of added) if (!all.includes(text)) all.push(text)
    return all.slice(-REMOVED_MAX)
  }
  const phases = once(prev?.removedPhases ?? [], removedPhases)
  return {
    lines: keptLines,
    removed: once(prev?.removed ?? [], removed),
    ...(phases.length > 0 ? { removedPhases: phases } : {}),
    omitted: (prev?.omitted ?? 0) + allLines.length - keptLines.length,
  }
}

const NOTICE_KINDS: Readonly<Record<keyof Notices, NoticeKind>> = {
  resumed: "resume",
  carried: "carried",
  compacted: "compaction",
  edits: "user-edit",
  nudge: "nudge",
}

/**
 * Renders the notices `take` selects from what is pending as one action, and returns what stays pending.
 * Resume and compaction notices about a list with nothing open are dropped: there is nothing to continue.
 */
function deliver(
  type: "attach" | "inject",
  pending: TrackerState["pending"],
  list: TodoList,
  take: { resume: boolean; compaction: boolean; edits: boolean; nudge: boolean },
): { actions: TrackerAction[]; pending: TrackerState["pending"] } {
  const notices: { -readonly [K in keyof Notices]: Notices[K] } = {}
  // Told with edits and with any notice that shows the list; it never waits behind a resume.
  if (pending.carried) notices.carried = true
  if (take.resume && pending.resume && hasOpenTask(list)) notices.resumed = true
  if (take.compaction && pending.compaction && list.length > 0) notices.compacted = true
  if (take.edits && pending.edits) notices.edits = pending.edits
  if (take.nudge && pending.nudge > 0 && hasActionableTask(list)) notices.nudge = pending.nudge
  const text = noticesText(notices, list)
  const kinds = (Object.keys(notices) as (keyof Notices)[]).map((key) => NOTICE_KINDS[key])
  return {
    actions:
      text === undefined
        ? []
        : [
            kinds.length === 1
              ? { type, kind: kinds[0]!, text }
              : { type, kind: "notices", text, ...(notices.nudge ? { nudged: true as const } : {}) },
          ],
    pending: {
      resume: take.resume ? false : pending.resume,
      carried: false,
      compaction: take.compaction ? false : pending.compaction,
      edits: take.edits ? null : pending.edits,
      nudge: take.nudge ? 0 : pending.nudge,
      undone: pending.undone,
    },
  }
}

export function stepTracker(state: TrackerState, event: TrackerEvent, config: TrackerConfig): Step {
  switch (event.type) {
    case "userMessage":
      return onUserMessage(undoCommitted(state), event, config)
    case "toolResult":
      return onToolResult(state, event, config)
    case "modelRequest":
      return onModelRequest(state, event)
    case "idle":
      return onIdle(state, event, config)
    case "resumed":
      // The resume notice shows the list as it is: earlier edit notes are spent.
      return {
        state: {
          ...state,
          resumed: true,
          pending: { ...state.pending, resume: hasOpenTask(event.list), edits: null },
        },
        actions: [],
      }
    case "carried":
      // The conversation existed before this list: no prelude, and the model hears of the list only
      // when it differs from what the conversation shows.
      return {
        state: {
          ...state,
          resumed: true,
          pending: {
            ...state.pending,
            carried: event.shown === null || !sameList(event.list, event.shown),
            resume: false,
          },
        },
        actions: [],
      }
    case "compacted":
      return { state: { ...state, pending: { ...state.pending, compaction: true } }, actions: [] }
    case "rewound":
      return onRewound(state)
    case "remade": {
      // The notes of edits made while undone give way to what those edits did, net; on a redo the notes the
      // undo took back come back with the edits they describe, on a commit those edits are gone for good.
      const held = event.redo ? state.pending.undone : null
      const edits =
        event.lines.length === 0 ? held : mergeEdits(held, event.lines, event.removed, event.removedPhases)
      return {
        state: {
          ...state,
          undoing: false,
          paused: state.paused || edits !== null,
          pending: { ...state.pending, edits, undone: null },
        },
        actions: [],
      }
    }
    case "userEdit":
      // The user is steering: no reminder until the agent makes progress on its own.
      return {
        state: {
          ...state,
          paused: true,
          pending: {
            ...state.pending,
            edits: mergeEdits(state.pending.edits, event.lines, event.removed, event.removedPhases),
          },
        },
        actions: [],
      }
  }
}

/**
 * After an undo no pending notice may describe a state that is gone. A pending user edit was made after the
 * newest message, so after any revert point: it is undone with it (an edit made while reverted arrives after
 * this step), and held for a redo, which brings the edit back. Notes pending at a second undo were made
 * while undone: the redo tells what those edits did, net, in their place. A pending compaction notice belongs to a summary the undo took back (a revert lands on a user
 * message, and no prompt came since the summary). A due nudge counted tool results that may be undone.
 * The resume notice stays: it shows the list as it is when it goes out. The user is steering: no reminder
 * until a prompt or progress.
 */
function onRewound(state: TrackerState): Step {
  const undone = state.undoing ? state.pending.undone : state.pending.edits
  return {
    state: {
      ...state,
      edits: 0,
      paused: true,
      undoing: true,
      pending: { ...state.pending, edits: null, undone, compaction: false, nudge: 0 },
    },
    actions: [],
  }
}

/** Every user message commits a pending undo: the notes it took back describe edits gone for good. */
function undoCommitted(state: TrackerState): TrackerState {
  if (!state.undoing) return state
  return { ...state, undoing: false, pending: { ...state.pending, undone: null } }
}

function onUserMessage(
  state: TrackerState,
  event: Extract<TrackerEvent, { type: "userMessage" }>,
  config: TrackerConfig,
): Step {
  const subagent = state.subagent || event.isSubagent
  if (classifyUserMessage(event.parts) !== "real") return { state: { ...state, subagent }, actions: [] }
  const access = event.access ?? "allow"
  const actions: TrackerAction[] = []
  const prompt = realTexts(event.parts).join("\n").trim()
  const unaided = event.model === undefined ? state.lean : plansUnaided(event.model)
  // The prelude waits for the first prompt to an agent that may call todo freely; lean guidance has none.
  if (
    guidanceOf(config.mode, unaided) === "full" &&
    !state.preluded &&
    access === "allow" &&
    event.isNewSession &&
    !state.resumed &&
    !subagent &&
    event.list.length === 0 &&
    !PROMPT_NO_PLAN_END.test(prompt)
  ) {
    const prelude = preludeText(config.eager)
    if (prelude) actions.push({ type: "attach", kind: "prelude", text: prelude })
  }
  // Notices wait for an agent that may call todo at all.
  // A compaction notice rides along only when a resume notice goes out too, so the list is shown once.
  const both = state.pending.resume && state.pending.compaction
  const out =
    access === "deny"
      ? { actions: [], pending: state.pending }
      : deliver("attach", state.pending, event.list, {
          resume: true,
          compaction: both,
          edits: true,
          nudge: false,
        })
  actions.push(...out.actions)
  return {
    state: {
      ...state,
      subagent,
      lean: unaided,
      prompted: true,
      preluded: state.preluded || access === "allow",
      question: endsInQuestion(prompt),
      resumed: state.resumed || !event.isNewSession,
      // A new cycle gives the agent a fresh window before the next nudge.
      edits: 0,
      nudges: 0,
      reminders: 0,
      paused: false,
      pending: out.pending,
    },
    actions,
  }
}

function onToolResult(
  before: TrackerState,
  event: Extract<TrackerEvent, { type: "toolResult" }>,
  config: TrackerConfig,
): Step {
  // Missing op names are treated as an update: the adapter should always pass them.
  const onlyView = event.todoOps?.every((op) => op === "view") === true
  const looked = LOOKING_TOOLS.has(event.tool) || (event.tool === TODO_TOOL && (!event.ok || onlyView))
  const state = before.question && !looked ? { ...before, question: false } : before
  if (!event.ok) return { state, actions: [] }
  if (event.tool === TODO_TOOL) {
    if (onlyView) return { state, actions: [] }
    // An update makes any queued nudge moot.
    return {
      state: { ...state, edits: 0, paused: false, pending: { ...state.pending, nudge: 0 } },
      actions: [],
    }
  }
  const mutating = (config.mutatingTools ?? MUTATING_TOOLS).has(event.tool)
  if (!mutating) return { state: state.paused ? { ...state, paused: false } : state, actions: [] }
  const edits = state.edits + 1
  // Lean guidance has no nudge: a model that plans unaided updates the list when it gets there.
  const due =
    guidanceOf(config.mode, state.lean) === "full" &&
    edits >= config.nudgeAfter &&
    !state.subagent &&
    state.pending.nudge === 0 &&
    state.nudges < config.nudgesMax &&
    hasActionableTask(event.list)
  if (!due) return { state: { ...state, edits, paused: false }, actions: [] }
  return {
    state: {
      ...state,
      edits: 0,
      nudges: state.nudges + 1,
      paused: false,
      pending: { ...state.pending, nudge: edits },
    },
    actions: [],
  }
}

function onModelRequest(state: TrackerState, event: Extract<TrackerEvent, { type: "modelRequest" }>): Step {
  if (event.kind === "compaction")
    return event.list.length > 0
      ? {
          state,
          actions: [{ type: "inject", kind: "compaction-context", text: compactionContextText(event.list) }],
        }
      : { state, actions: [] }
  const access = event.access ?? "allow"
  // A nudge asks for a todo call: only an agent that may call it freely gets one, and a due one is dropped.
  const pending = access === "allow" ? state.pending : { ...state.pending, nudge: 0 }
  // Other notices wait for an agent that may call todo at all.
  if (access === "deny")
    return { state: pending === state.pending ? state : { ...state, pending }, actions: [] }
  // Resume waits for a real prompt, unless a compaction notice is going out and can carry it.
  const out = deliver("inject", pending, event.list, {
    resume: pending.compaction,
    compaction: true,
    edits: true,
    nudge: true,
  })
  return { state: { ...state, pending: out.pending }, actions: out.actions }
}

function onIdle(
  state: TrackerState,
  event: Extract<TrackerEvent, { type: "idle" }>,
  config: TrackerConfig,
): Step {
  const subagent = state.subagent || event.isSubagent === true
  const base = subagent === state.subagent ? state : { ...state, subagent }
  // An interrupted turn means the user took over: stay quiet until the agent makes progress again.
  if (event.aborted) return { state: { ...base, paused: true }, actions: [] }
  const quiet =
    !config.reminders ||
    (event.access ?? "allow") !== "allow" ||
    base.question ||
    subagent ||
    base.paused ||
    base.reminders >= config.remindersMax ||
    event.userMessageWaiting ||
    event.errored ||
    event.openQuestion ||
    event.reverted === true ||
    !hasActionableTask(event.list) ||
    asksUser(event.lastAssistantText)
  if (quiet) return { state: base, actions: [] }
  return {
    state: { ...base, reminders: base.reminders + 1, paused: true },
    actions: [{ type: "remind", kind: "reminder", text: reminderText(event.list) }],
  }
}
