// The server plugin's runtime, the same for every host: settings, the store, the tracked sessions, and one
// function per thing a host tells the plugin (a prompt, a model request, a compaction, a tool that finished, a
// /todo command, a decoded event, a todo call, a system prompt). Each binding (hooks.ts, v2.ts) only decodes its
// host's shapes, calls these and writes the answers back; see docs/design.md "runtime.ts".

import { type Config, limitsOf, STORED_LIMITS } from "../core/config.ts"
import { samePoint, undoToConfirm } from "../core/history/rewind.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import type { TodoList } from "../core/list/types.ts"
import { guidanceOf, offersSkill } from "../core/model/mode.ts"
import { type CommandReport, toolDescription } from "../core/model/prompts.ts"
import type { History, PartRef } from "../core/model/stale.ts"
import { type HostEvent, type SessionAction, stepsOnArrival } from "../core/session/session.ts"
import type { FindOrigin } from "../shared/origin.ts"
import { todoDir } from "../shared/paths.ts"
import { loadSettings } from "../shared/settings.ts"
import { createStore, type Store } from "../store/store.ts"
import type { AgentRulesSource } from "./agent-rules.ts"
import { runCommand } from "./command-runner.ts"
import { sawRemoved } from "./host-facts.ts"
import type { HostPort } from "./host-port.ts"
import type { Log } from "./output.ts"
import { type Sessions, type Tracked, trackSessions } from "./sessions.ts"
import { createSteering, type Steering, type SteerRequest } from "./steering.ts"
import { type CallSite, runTodoCall, type TodoCallDeps, type TodoCallResult } from "./todo-tool.ts"
import { createTurns, type Turns } from "./turns.ts"

export interface Runtime {
  readonly config: Config
  readonly store: Store
  readonly sessions: Sessions
  readonly agents: AgentRulesSource
  /** What the tool needs, for a binding that registers it. */
  readonly toolDeps: TodoCallDeps
  /**
   * The tool description for the next request: the guidance (core/model/mode.ts) of the newest real prompt to
   * a main session, for a host that asks per request without saying for which session (1.18's tool.definition).
   */
  toolDescription(): string
  /** A user message reached the session (a prompt, a command's, or ours): the text to attach to it, if any. */
  prompt(sessionID: string, message: Extract<HostEvent, { type: "user.message" }>): Promise<string>
  /**
   * A model request is about to go out with `history`: the parts to stub (core/stale.ts) and the text to add as
   * the newest user content of this request only, if any.
   */
  request(sessionID: string, history: History): Promise<{ stale: readonly PartRef[]; inject: string }>
  /** The summarizer's request is being prepared: the context to give it, if any. */
  compacting(sessionID: string): Promise<string>
  /** A tool finished (any tool: the nudge counts them). */
  toolFinished(sessionID: string, tool: string, ok: boolean): Promise<void>
  /**
   * Runs `/todo <text>` on the session's list in effect; the report and the list after it. `ownMessage`: the host
   * mints a message for the command right after it (1.18), on which its edit settles and whose reply tells the
   * model; without one (OpenCode 2 runs it with no turn) the edit is placed like a TUI edit and the model is told
   * on its next request, as for one.
   */
  command(sessionID: string, text: string, options?: { readonly ownMessage?: boolean }): Promise<CommandRun>
  /** One decoded host event about `sessionID`. */
  event(sessionID: string, event: HostEvent): Promise<void>
  /** One call of the todo tool. */
  todoCall(sessionID: string, args: unknown, site: CallSite): Promise<TodoCallResult>
  /** A request's system texts with the host's todo passages steered; undefined when steering is off. */
  steer(request: SteerRequest): Promise<readonly string[] | undefined>
  /** The host's own todo tool, kept out of what the model is offered (unless the settings keep it). */
  readonly hostTodoTool: Omit<Steering, "steer">
  /** Whether the todo-discipline skill is offered where the host takes a skills path (the mode says). */
  readonly offersSkill: boolean
  /** The per-session turn state of a host that tells the model per request (OpenCode 2). */
  readonly turns: Turns
  /** Wraps a hook so that nothing it throws reaches the host; each distinct failure is logged once. */
  guard<A extends unknown[]>(name: string, fn: (...args: A) => Promise<void>): (...args: A) => Promise<void>
}

/** What a /todo command did, and the mark its own message must carry (with `ownMessage`) to settle its edit. */
export interface CommandRun {
  readonly report: CommandReport
  readonly list: TodoList
  readonly mark?: string
}

/**
 * Marks for /todo commands: unique in this process (a counter), and across processes sharing a session as far
 * as a random prefix goes. Word characters only, within placement.ts COMMAND_MARK_CHARS.
 */
function commandMarks(): () => string {
  const prefix = Math.random().toString(36).slice(2, 8).padEnd(6, "0")
  let count = 0
  return () => `${prefix}${(++count).toString(36)}`
}

/** The texts of the actions of one type, as one text (each carries the marker). */
function joined(actions: readonly SessionAction[], type: "attach" | "inject"): string {
  const texts: string[] = []
  for (const action of actions) if (action.type === type) texts.push(action.text)
  return texts.join("\n\n")
}

/** Wraps a hook so that nothing it throws reaches the host; each distinct failure is logged once (by `log`). */
function guarded(log: Log) {
  return <A extends unknown[]>(name: string, fn: (...args: A) => Promise<void>) =>
    async (...args: A) => {
      try {
        await fn(...args)
      } catch (error) {
        log("error", `${name} failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
}

/** One host event, in its turn (`inOrder`). */
async function follow(sessions: Sessions, s: Tracked, hostEvent: HostEvent): Promise<void> {
  const { step } = sessions
  if (hostEvent.type === "session.idle") await sessions.open(s)
  // What the host says is kept first: the list in effect is worked out from it (core/history/effect.ts).
  if (hostEvent.type === "session.updated") s.host.revert = hostEvent.revert
  if (hostEvent.type === "message.removed")
    sawRemoved(
      s.host,
      hostEvent.partID === undefined
        ? { message: hostEvent.messageID }
        : { message: hostEvent.messageID, part: hostEvent.partID },
    )
  // Notes queued before an undo describe what it takes back: they are read before it is followed. The
  // record is read (a stat when unchanged) before the revert it holds is compared with the host's.
  const rewinding = hostEvent.type === "message.removed" || hostEvent.type === "session.updated"
  if (rewinding) await sessions.open(s, { listOnly: true })
  await step(s, hostEvent)
  // The record may hold a revert this process never saw (another window's undo, one made before a restart):
  // the event is the moment to bring it to what the host says, whatever this process saw before.
  if (rewinding && !samePoint(s.storedRevert ?? null, s.host.revert ?? null)) await sessions.agree(s)
}

/** Runs `/todo <text>` on the session, in its turn; `mark` undefined: no message of its own (OpenCode 2). */
async function commandIn(
  deps: { sessions: Sessions; store: Store; directory: string; config: Config },
  s: Tracked,
  text: string,
  mark: string | undefined,
): Promise<CommandRun> {
  const { sessions, store, directory } = deps
  const limits = limitsOf(deps.config)
  let out: CommandRun = { report: {}, list: s.list }
  await sessions.inOrder(s, async () => {
    await sessions.open(s, { listOnly: true })
    // The host runs the command before it commits a pending undo: the command sees the reverted list.
    const before = s.list
    const at = await sessions.editAnchor(s)
    const request = { store, directory, limits, session: s.id, list: before, text, at, mark }
    const { ops, ...ran } = await runCommand(request)
    out = mark === undefined ? ran : { ...ran, mark }
    const { report } = out
    // Without a message of its own (OpenCode 2) the change is told as a user edit; else it settles on
    // the command's message, which the host mints after this (rewind.ts).
    const note =
      mark === undefined
        ? {
            lines: report.lines ?? [],
            removed: report.removed ?? [],
            ...(report.removedPhases ? { removedPhases: report.removedPhases } : {}),
          }
        : undefined
    await sessions.commandRan(s, before, out.list, note, mark, ops)
  })
  return out
}

/** The store at the user's todo directory; its problems are logged and toasted (each once). */
function openStore(host: HostPort): Store {
  return createStore({
    dir: todoDir(),
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (message) => {
      host.log("warn", message)
      // The store reports each problem once, and storage toasts show even with `toasts` off.
      host.toast({ title: "Todo storage", message, variant: "warning" })
    },
  })
}

/** Starts the runtime for one project; undefined when the settings turn the plugin off (logged). */
export async function startRuntime(deps: {
  directory: string
  options: Record<string, unknown> | undefined
  host: HostPort
  /** Each agent's rules, read from the host. */
  agents: (store: Store) => AgentRulesSource
  /** Where a session with no record starts (origin.ts on 1.18, the fork event on 2). */
  findOrigin?: (store: Store, config: Config) => FindOrigin | undefined
}): Promise<Runtime | undefined> {
  const { host, directory } = deps
  const { log } = host
  const settings = await loadSettings({ directory, options: deps.options })
  for (const warning of settings.warnings) log("warn", warning)
  const config: Config = settings.config
  if (!config.enabled) {
    if (settings.disabled) log("info", settings.disabled)
    return undefined
  }
  const store = openStore(host)
  const agents = deps.agents(store)
  const findOrigin = deps.findOrigin?.(store, config)
  const sessions = trackSessions({ host, store, config, agents, ...(findOrigin ? { findOrigin } : {}) })
  const { step } = sessions
  const toolDeps: TodoCallDeps = { host, config, sessions }
  const nextMark = commandMarks()
  const { steer, ...hostTodoTool } = createSteering({ config, sessions, log })

  /** Whether the newest real prompt to a main session went to a model that plans unaided (tracker.ts `lean`). */
  let newestUnaided = false

  const runtime: Omit<Runtime, "turns"> = {
    config,
    store,
    sessions,
    agents,
    toolDeps,
    guard: guarded(log),
    steer,
    hostTodoTool,
    offersSkill: offersSkill(config.mode),

    toolDescription: () => toolDescription(guidanceOf(config.mode, newestUnaided)),

    async prompt(sessionID, message) {
      const s = sessions.get(sessionID)
      let text = ""
      await sessions.inOrder(s, async () => {
        await sessions.open(s)
        await agents.awaitBriefly()
        // What the host says now decides whether this prompt commits an undo: a redo whose event has not come
        // yet is followed first (its notes come back before this message takes the pending ones).
        if (undoToConfirm(s.state.facts.rewind, s.storedRevert)) await sessions.agree(s, { ask: true })
        // A revert the record holds that this process never heard of is committed by this message too.
        const recorded = s.storedRevert
        text = joined(await step(s, recorded === undefined ? message : { ...message, recorded }), "attach")
        // A subagent's prompt (often another model) says nothing of what the main session's model needs.
        if (s.state.facts.subagent !== true) newestUnaided = s.state.tracker.lean
      })
      return text
    },

    async request(sessionID, history) {
      const s = sessions.get(sessionID)
      await sessions.open(s, { listOnly: true })
      // Our stale notices and superseded todo results go out as a one-line stub (request only).
      const stubs = sessions.stubs(s, history)
      return { stale: stubs.stale, inject: joined(await step(s, { type: "model.request" }), "inject") }
    },

    async compacting(sessionID) {
      const s = sessions.get(sessionID)
      await sessions.open(s, { listOnly: true })
      return joined(await step(s, { type: "compacting" }), "inject")
    },

    async toolFinished(sessionID, tool, ok) {
      await step(sessions.get(sessionID), { type: "tool.finished", tool, ok })
    },

    // The command's message carries the mark; its edit settles there, even with other commands under way.
    command: (sessionID, text, options) =>
      commandIn(
        { sessions, store, directory, config },
        sessions.get(sessionID),
        text,
        options?.ownMessage === false ? undefined : nextMark(),
      ),

    async event(sessionID, hostEvent) {
      // A session's creation starts tracking it, and so does a removal (an undo committed after a restart must
      // still reach the stored history) or a change of a session with a record (a redo after a restart); other
      // events about unknown sessions are not ours.
      const tracks =
        hostEvent.type === "session.created" ||
        hostEvent.type === "message.removed" ||
        (hostEvent.type === "session.updated" && (await store.stamp(sessionID)) !== undefined)
      const s = tracks ? sessions.get(sessionID) : sessions.find(sessionID)
      if (!s) return
      if (stepsOnArrival(hostEvent)) await step(s, hostEvent)
      else await sessions.inOrder(s, () => follow(sessions, s, hostEvent))
    },

    todoCall: (sessionID, args, site) => runTodoCall(toolDeps, sessionID, args, site),
  }
  const knownRules = (id: string): HostEvent[] => {
    const s = sessions.find(id)
    return s ? [{ type: "session.updated", rules: s.state.facts.sessionRules, revert: null }] : []
  }
  return { ...runtime, turns: createTurns({ ...runtime, knownRules }) }
}
