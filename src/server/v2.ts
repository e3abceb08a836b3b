// The server plugin's binding to OpenCode 2 (`setup(ctx)`): the `todo` tool through the tool registry, `/todo`
// through the command registry (no model turn; the person who typed it is answered over RPC), the
// todo-discipline skill through the skill registry, the session's prompt, context and compaction hooks, its
// event stream, and the RPC the TUI plugin talks to (src/shared/v2-rpc.ts). Everything decided is decided by the
// same runtime as on 1.18 (runtime.ts); the list lives in the same shared file store. This module owns the
// registering, the session hooks and the event stream; the context's type and guards are in v2-context.ts, the
// host port over its session domain in v2-host-port.ts, and what is registered (tool, command, skill, RPC
// handlers) in v2-registry.ts.
//
// Every capability is probed before use: one the host lacks is logged once and the rest goes on. A context with
// no tool registry or no session hooks is not OpenCode 2 (1.x hosts that call `setup` pass a partial context of
// that kind): nothing is registered there, so the `server` entry that host also loads is the only one at work.
//
// Host facts (anomalyco/opencode, read, not run; the pinned @opencode-ai/plugin 1.18.33 types lack these domains):
// - Session hooks `prompt { sessionID, messageID, prompt }`, `context { sessionID, agent, model, kind, system,
//   messages, tools }`, `compaction` (the same): packages/plugin/src/promise/session.ts@03545fd3. Other versions:
//   `context` with no `kind` and no `compaction` hook (session.ts@ee2e318e), the per-request hook named `request`
//   (an earlier runner), a `compaction` hook that carries only the summarizer's prompt; each is followed here.
// - A request's `tools` is a record by name; a tool deleted there is not offered, and a call to it is refused
//   (packages/core/src/tool.ts@1001f905 "Preserve session context removal").

import { join } from "node:path"
import { type Config, limitsOf } from "../core/config.ts"
import { matchSource, type Origin, originOf, sourceStateAt } from "../core/history/fork.ts"
import { historyFrom, type ListHistory } from "../core/history/history.ts"
import { listForCopy } from "../core/history/revert.ts"
import { COMMAND_DESCRIPTION } from "../core/list/command.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import {
  HOST_TODO_TOOL,
  hostTodoToolHidden,
  type PromptFamily,
  steeringOn,
  steerSystemPrompt,
} from "../core/model/host-prompt.ts"
import { isPluginText } from "../core/model/prompts.ts"
import { TODO_RPC } from "../shared/v2-rpc.ts"
import { historyOf } from "../store/record.ts"
import type { Store } from "../store/store.ts"
import { agentRulesSource } from "./agent-rules.ts"
import { type Log, onceLogger, stderrLog } from "./output.ts"
import { type Runtime, startRuntime } from "./runtime.ts"
import { SKILLS_DIR } from "./skills-dir.ts"
import {
  type Fn,
  fn,
  messagesOf,
  modelIds,
  type Registration,
  type RpcRegistration,
  type V2Context,
} from "./v2-context.ts"
import {
  applyV2Stubs,
  attachToPromptV2,
  decodeV2Event,
  endedBefore,
  injectV2,
  syntheticMessageId,
  v2AgentRules,
  v2ForkOf,
  v2History,
  v2RequestRole,
  v2Transcript,
} from "./v2-events.ts"
import { v2HostPort, WITHOUT_SESSION_CONTEXT } from "./v2-host-port.ts"
import { type EmitRpc, readSkill, rpcHandlers, todoCommand, todoToolInfo } from "./v2-registry.ts"
import { withinMs } from "./wait.ts"

/** How long the first sight of a session may wait for the host to say whether it is new. */
const FIRST_SIGHT_MS = 2_000
/** The first pause before subscribing again to an event stream that stopped, and the longest. */
const RESUBSCRIBE_FIRST_MS = 50
const RESUBSCRIBE_MAX_MS = 5_000
/** Our synthetic messages remembered per session. */
const MAX_OURS = 512

/** The OpenCode 2 entry: `setup(ctx)`. Resolves to a cleanup, or to nothing when the host is not OpenCode 2. */
export async function setupV2(context: unknown, log: Log = onceLogger(stderrLog)) {
  const ctx: V2Context = isRecord(context) ? (context as V2Context) : {}
  if (!fn(ctx.tool?.transform) || !fn(ctx.session?.hook)) {
    log(
      "info",
      "this host's plugin context has no tool registry or session hooks (not OpenCode 2): the OpenCode 2 entry registers nothing",
    )
    return undefined
  }
  const lacks = (what: string, effect: string) => log("warn", `OpenCode 2 host without ${what}: ${effect}`)
  const registrations: Registration[] = []
  const stop = new AbortController()
  let rpc: RpcRegistration | undefined
  /** Fork events by fork id: where each fork starts from. */
  const forks = new Map<string, { parentID: string; from?: string }>()
  /** The agent each session was last seen with (its prompt carries none). */
  const agentOf = new Map<string, string>()
  /** The text the core attached to each session's prompt (and that prompt's message), told with every request of that turn. */
  const attached = new Map<string, { text: string; messageID?: string }>()
  /** The ids of our synthetic messages (reminders) by session, from the host's `session.synthetic` events. */
  const ours = new Map<string, Set<string>>()
  /** Sessions between the host's `session.compaction.started` and its end: a request then is the summarizer's. */
  const compacting = new Set<string>()

  const emit: EmitRpc = (name, data) => {
    const send = rpc?.events?.emit
    if (!fn(send)) {
      lacks("plugin RPC", `the ${name} events for the TUI are not sent`)
      return
    }
    try {
      Promise.resolve(send(name as never, data as never)).catch((error: unknown) =>
        log("warn", `RPC event ${name} failed: ${error instanceof Error ? error.message : String(error)}`),
      )
    } catch (error) {
      log("warn", `RPC event ${name} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  /** One of our synthetic messages (a reminder), by its message id. */
  function markOurs(sessionID: string, messageID: string): void {
    const set = ours.get(sessionID) ?? new Set<string>()
    set.add(messageID)
    // Bounded: the oldest go first (their messages have long been stubbed or compacted away).
    if (set.size > MAX_OURS) set.delete(set.values().next().value as string)
    ours.set(sessionID, set)
  }

  const session = ctx.session ?? {}
  const host = v2HostPort(session, {
    log,
    lacks,
    emit,
    parentOf: (id) => forks.get(id)?.parentID,
    sent: markOurs,
  })

  const started = await startRuntime({
    directory: ctx.location?.directory ?? process.cwd(),
    options: ctx.options,
    host,
    agents: () =>
      agentRulesSource(async () => {
        const list = ctx.agent?.list
        return fn(list) ? v2AgentRules(await list()) : undefined
      }, log),
    findOrigin: (store, config) => (id) => forkOrigin(store, config, id),
  })
  if (!started) return undefined

  const runtime: Runtime = started
  const { config, sessions } = runtime

  async function register(what: string, effect: string, make: () => unknown): Promise<void> {
    try {
      const registration = await make()
      if (isRecord(registration)) registrations.push(registration as Registration)
    } catch (error) {
      lacks(what, `${effect} (${error instanceof Error ? error.message : String(error)})`)
    }
  }

  /**
   * A registry callback. The host replays it on every rebuild and disables the whole plugin when one throws
   * (2.0.15: "disabled plugin after transform failure"), so a refusal of what we add costs only that registry.
   */
  const editing =
    <E>(what: string, effect: string, body: (editor: E) => void) =>
    (editor: E): void => {
      try {
        body(editor)
      } catch (error) {
        log(
          "warn",
          `the host's ${what} refused the plugin's entry: ${effect} (${error instanceof Error ? error.message : String(error)})`,
        )
      }
    }

  // RPC first: the other registrations may speak through it.
  const rpcRegister = ctx.rpc?.register
  if (fn(rpcRegister))
    await register("plugin RPC", "the TUI cannot reach the server", async () => {
      rpc = (await rpcRegister(TODO_RPC as never, rpcHandlers(runtime) as never)) as RpcRegistration
      return rpc
    })
  else lacks("plugin RPC", "the TUI gets no toasts or replies from the server")

  await register("a tool registry", "no todo tool", () =>
    (ctx.tool!.transform as Fn)(
      editing("tool registry", "no todo tool", (editor: { add?: Fn; get?: Fn; list?: Fn; remove?: Fn }) => {
        if (!fn(editor?.add)) return lacks("a tool editor with add()", "no todo tool")
        editor.add(todoToolInfo(runtime) as never)
        if (hostTodoToolHidden(config)) hideHostTodoToolIn(editor)
      }) as never,
    ),
  )

  /**
   * Some builds register the host's own `todowrite` as a core tool plugin (packages/core/src/tool/todowrite.ts
   * @1b57c71e, listed in packages/core/src/plugin/internal.ts before any user plugin; 2.x releases have none). The
   * editor sees the tools registered before ours (transforms replay in order, packages/core/src/state.ts@0ffa6d72),
   * so it goes here; one registered later leaves each request in the per-request hook instead.
   */
  function hideHostTodoToolIn(editor: { get?: Fn; list?: Fn; remove?: Fn }): void {
    const listed = fn(editor.list) ? editor.list() : undefined
    const present = fn(editor.get)
      ? editor.get(HOST_TODO_TOOL as never) !== undefined
      : Array.isArray(listed) && listed.some((t) => isRecord(t) && (t.id ?? t.name) === HOST_TODO_TOOL)
    if (!present) return
    if (fn(editor.remove)) editor.remove(HOST_TODO_TOOL as never)
    else lacks("a tool editor with remove()", `its ${HOST_TODO_TOOL} is taken out of each request instead`)
  }

  const toolHook = ctx.tool?.hook
  if (fn(toolHook))
    await register("tool hooks", "the mid-run nudge counts no tool calls", () =>
      toolHook(
        "execute.after" as never,
        (async (event: unknown) => {
          if (!isRecord(event) || typeof event.sessionID !== "string" || typeof event.tool !== "string")
            return
          // The hook's event carries the result (tool/hooks.ts@2bd7bfe4: `result: ToolResultValue`), no status.
          const failed = event.status === "error" || (isRecord(event.result) && event.result.type === "error")
          await runtime.guard("tool.execute.after", () =>
            runtime.toolFinished(event.sessionID as string, event.tool as string, !failed),
          )()
        }) as never,
      ),
    )
  else lacks("tool hooks", "the mid-run nudge counts no tool calls")

  const commandTransform = ctx.command?.transform
  if (fn(commandTransform))
    await register("a command registry", "no /todo command", () =>
      commandTransform(
        editing("command registry", "no /todo command", (editor: { add?: Fn }) => {
          if (!fn(editor?.add)) return lacks("a command editor with add()", "no /todo command")
          editor.add({
            name: "todo",
            description: COMMAND_DESCRIPTION,
            execute: todoCommand(runtime, emit),
          } as never)
        }) as never,
      ),
    )
  else lacks("a command registry", "no /todo command")

  const skill = readSkill()
  const skillTransform = ctx.skill?.transform
  if (!skill) log("warn", "the todo-discipline skill could not be read from the package; it is not offered")
  else if (fn(skillTransform))
    await register("a skill registry", "no todo-discipline skill", () =>
      skillTransform(
        editing("skill registry", "no todo-discipline skill", (editor: { add?: Fn }) => {
          if (!fn(editor?.add)) return lacks("a skill editor with add()", "no todo-discipline skill")
          editor.add({
            id: skill.name,
            name: skill.name,
            description: skill.description,
            path: join(SKILLS_DIR, "todo-discipline", "SKILL.md"),
            content: skill.content,
          } as never)
        }) as never,
      ),
    )
  else lacks("a skill registry", "no todo-discipline skill")

  /** A session this process has not seen: whether it is new, and its agent (the host's info). */
  async function firstSight(sessionID: string): Promise<void> {
    if (sessions.find(sessionID)) return
    const [info, context] = await Promise.all([
      withinMs(
        host.sessionInfo(sessionID).catch(() => undefined),
        FIRST_SIGHT_MS,
      ),
      fn(session.context)
        ? withinMs(
            Promise.resolve(session.context({ sessionID } as never)).catch(() => undefined),
            FIRST_SIGHT_MS,
          )
        : lacks(...WITHOUT_SESSION_CONTEXT),
    ])
    if (typeof info?.agent === "string" && !agentOf.has(sessionID)) agentOf.set(sessionID, info.agent)
    const messages = messagesOf(context)
    // Nothing before this prompt: the session was created now (the host sends no creation event to plugins).
    if (messages !== undefined && messages.length <= 1 && info !== undefined) {
      const parentID = typeof info.parentID === "string" ? info.parentID : undefined
      await runtime.event(sessionID, { type: "session.created", ...(parentID ? { parentID } : {}) }, true)
    }
  }

  const hook = session.hook as Fn
  await register("session hooks", "no prelude, notices or stubs", () =>
    hook(
      "prompt" as never,
      (async (event: unknown) => {
        if (!isRecord(event) || typeof event.sessionID !== "string") return
        const sessionID = event.sessionID
        await runtime.guard("prompt", async () => {
          await firstSight(sessionID)
          const prompt = isRecord(event.prompt) ? event.prompt : {}
          const agent = agentOf.get(sessionID)
          const text = await runtime.prompt(sessionID, {
            type: "user.message",
            parts: [{ type: "text", ...(typeof prompt.text === "string" ? { text: prompt.text } : {}) }],
            user: agent ? { agent } : {},
            ...(typeof event.messageID === "string" ? { messageID: event.messageID } : {}),
          })
          const messageID = typeof event.messageID === "string" ? event.messageID : undefined
          if (text) attached.set(sessionID, { text, ...(messageID ? { messageID } : {}) })
          else attached.delete(sessionID)
        })()
      }) as never,
    ),
  )

  /** Prompt families already warned about: each once per process. */
  const warnedFamilies = new Set<PromptFamily>()

  // The per-request hook: `context` on the 2.x line (packages/plugin/src/promise/session.ts@03545fd3, @ee2e318e),
  // `request` in an earlier runner (`hooks.trigger("session", "request", { sessionID, agent, model, system,
  // messages, tools })`), where a later `request` is the raw HTTP request instead (no messages: not ours). Both are
  // registered; the first to deliver a request-shaped event is the one followed, so no request is handled twice.
  let requestHook: string | undefined
  let requestHooked = 0
  for (const name of ["context", "request"] as const) {
    const registered = await registerOptional(name, () =>
      hook(
        name as never,
        (async (event: unknown) => {
          if (!isRecord(event) || typeof event.sessionID !== "string" || !Array.isArray(event.messages))
            return
          requestHook ??= name
          if (requestHook !== name) return
          await runtime.guard(name, () => onRequest(event, event.sessionID as string))()
        }) as never,
      ),
    )
    if (registered) requestHooked++
  }
  if (requestHooked === 0) lacks("a per-request session hook", "no notices or stubs in requests")

  /**
   * A session hook only some versions have. The hosts read keep a name they lack and never call it
   * (packages/core/src/plugin/hooks.ts@0f2daeba); one that refused it is said once, as information.
   */
  async function registerOptional(name: string, make: () => unknown): Promise<boolean> {
    try {
      const registration = await make()
      if (isRecord(registration)) registrations.push(registration as Registration)
      return true
    } catch (error) {
      log(
        "info",
        `this host has no \`${name}\` session hook (${error instanceof Error ? error.message : String(error)})`,
      )
      return false
    }
  }

  /** Sessions whose summarizer the compaction hook already served: a summarizer's request after it gets nothing more. */
  const summarized = new Set<string>()

  async function onRequest(event: Record<string, unknown>, sessionID: string): Promise<void> {
    hideHostTodoTool(event.tools)
    const role = v2RequestRole(event, compacting.has(sessionID))
    if (role === "aside") return
    // The agent of the session's own turn (the host's hidden summarizer agent is not it).
    if (role === "primary" && typeof event.agent === "string") agentOf.set(sessionID, event.agent)
    const messages = event.messages as unknown[]
    if (role === "summarizer") {
      // The compaction hook served the summarizer already: nothing more for it.
      if (summarized.delete(sessionID)) return
      // Without a compaction hook before it, this request is where the summarizer learns the list.
      addForSummarizer(event, await runtime.compacting(sessionID))
      applyV2Stubs(
        messages,
        (await runtime.request(sessionID, v2History(messages, ours.get(sessionID)))).stale,
      )
      return
    }
    summarized.delete(sessionID)
    // The host leaves out a tool the agent may not call: the notices wait for a request that offers todo.
    const offered = !isRecord(event.tools) || TODO_TOOL in event.tools
    steer(event, sessionID, offered)
    if (!offered) return
    const { stale, inject } = await runtime.request(sessionID, v2History(messages, ours.get(sessionID)))
    applyV2Stubs(messages, stale)
    // What was said with the prompt stays on the prompt; only what is new goes last.
    const said = attached.get(sessionID)
    const onPrompt = said !== undefined && attachToPromptV2(messages, said.text, said.messageID)
    const text = [onPrompt ? undefined : said?.text, inject].filter(Boolean).join("\n\n")
    if (text) injectV2(messages, text)
  }

  /** The host's own todo tool, where a build still has one, leaves this request unless keepTodowrite keeps it. */
  function hideHostTodoTool(tools: unknown): void {
    if (hostTodoToolHidden(config) && isRecord(tools) && HOST_TODO_TOOL in tools) delete tools[HOST_TODO_TOOL]
  }

  /**
   * The list for the summarizer: a system part where the event has a system, else the end of its prompt. A hook that
   * carries only the prompt (`{ sessionID, reason, context: string[], prompt }`) has its `context` built into the
   * prompt already, and the request is the prompt alone as one user message (packages/core/src/session/compaction.ts,
   * the version with that hook: `messages: [Message.user(hooked.prompt)]`), so text added to `context` is lost.
   */
  function addForSummarizer(event: Record<string, unknown>, text: string): void {
    if (!text) return
    if (Array.isArray(event.system)) event.system.push({ type: "text", text })
    else if (typeof event.prompt === "string") event.prompt = `${event.prompt}\n\n${text}`
    else if (Array.isArray(event.context)) event.context.push(text)
  }

  /** The host's own todo passages in its system prompt (core/host-prompt.ts, OpenCode 2's table): the first part only. */
  function steer(event: Record<string, unknown>, sessionID: string, offered: boolean): void {
    if (!steeringOn(config) || !Array.isArray(event.system)) return
    const first = event.system[0]
    if (!isRecord(first) || typeof first.text !== "string") return
    const s = sessions.get(sessionID)
    const result = steerSystemPrompt({
      system: [first.text],
      ...modelIds(event.model),
      todoCallable: offered && sessions.todoCallable(s),
      warned: warnedFamilies,
      host: "2",
    })
    if (result.system[0] !== undefined && result.system[0] !== first.text) first.text = result.system[0]
    if (result.warning) {
      warnedFamilies.add(result.family)
      log("warn", result.warning)
    }
  }

  // The compaction hook: the summarizer's whole request (`{ ...context, result? }`, session.ts@03545fd3), or only
  // its prompt (`{ sessionID, reason, context: string[], prompt }` in another version, whose request no `context`
  // hook sees: `contextHooks: false` in that compaction.ts).
  // Without it (session.ts@ee2e318e has none) the summarizer's request is known in the per-request hook instead.
  await registerOptional("compaction", () =>
    hook(
      "compaction" as never,
      (async (event: unknown) => {
        if (!isRecord(event) || typeof event.sessionID !== "string") return
        const sessionID = event.sessionID
        await runtime.guard("compaction", async () => {
          hideHostTodoTool(event.tools)
          addForSummarizer(event, await runtime.compacting(sessionID))
          // The summarizer's request, which the core expects right after the compacting step and which carries
          // nothing else: this event (its stubs put in place), or, for a hook with the prompt only, none of ours
          // to see (no per-request hook sees it there), so the step is taken here and the next request is a main one.
          const messages = Array.isArray(event.messages) ? (event.messages as unknown[]) : []
          applyV2Stubs(
            messages,
            (await runtime.request(sessionID, v2History(messages, ours.get(sessionID)))).stale,
          )
          summarized.add(sessionID)
        })()
      }) as never,
    ),
  )

  const subscribe = ctx.event?.subscribe
  if (fn(subscribe)) void follow(subscribe)
  else lacks("an event stream", "no completion reminder, undo, redo or fork is followed")

  /**
   * Follows the host's events for as long as the plugin is loaded. The adapter's subscription fails for good when one
   * event cannot be encoded (2.0.15: `event.subscribe` pipes the bus through the protocol's encoder into one async
   * iterator), and an iterator may also just end: either way a new subscription is made, after a pause that grows
   * to RESUBSCRIBE_MAX_MS while the host keeps failing and starts over once an event came through. Said once.
   */
  async function follow(open: Fn): Promise<void> {
    let pause = RESUBSCRIBE_FIRST_MS
    let said = false
    while (!stop.signal.aborted) {
      let why = "it ended"
      try {
        const stream = open({ signal: stop.signal } as never) as AsyncIterable<unknown>
        for await (const raw of stream) {
          if (stop.signal.aborted) return
          pause = RESUBSCRIBE_FIRST_MS
          await runtime.guard("event", () => followEvent(raw))()
        }
      } catch (error) {
        why = error instanceof Error ? error.message : String(error)
      }
      if (stop.signal.aborted) return
      if (!said)
        log(
          "warn",
          `the host's event stream stopped (${JSON.stringify(why.slice(0, 200))}); subscribing again whenever it stops, so reminders, undo and forks keep being followed`,
        )
      said = true
      await sleepUnlessStopped(pause)
      pause = Math.min(pause * 2, RESUBSCRIBE_MAX_MS)
    }
  }

  function sleepUnlessStopped(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms)
      timer.unref?.()
      stop.signal.addEventListener("abort", done, { once: true })
      function done() {
        clearTimeout(timer)
        stop.signal.removeEventListener("abort", done)
        resolve()
      }
    })
  }

  async function followEvent(raw: unknown): Promise<void> {
    if (isRecord(raw) && typeof raw.type === "string" && raw.type.startsWith("session.compaction.")) {
      const sessionID = isRecord(raw.data) ? raw.data.sessionID : undefined
      if (typeof sessionID === "string")
        if (raw.type === "session.compaction.started") compacting.add(sessionID)
        else if (raw.type === "session.compaction.ended" || raw.type === "session.compaction.failed")
          compacting.delete(sessionID)
    }
    // 2.0.15 publishes `session.created` with the session's agent: a session this event makes known skips the first
    // sight that would have read the agent, so it is learnt here (an agent that asks for todo gets no prelude).
    if (isRecord(raw) && raw.type === "session.created" && isRecord(raw.data)) {
      const { sessionID, agent } = raw.data
      if (typeof sessionID === "string" && typeof agent === "string" && !agentOf.has(sessionID))
        agentOf.set(sessionID, agent)
    }
    if (isRecord(raw) && raw.type === "session.agent.selected" && isRecord(raw.data)) {
      const { sessionID, agent } = raw.data
      if (typeof sessionID === "string" && typeof agent === "string") agentOf.set(sessionID, agent)
      return
    }
    if (isRecord(raw) && raw.type === "session.synthetic" && isRecord(raw.data)) {
      const { sessionID, text } = raw.data
      const id = syntheticMessageId(raw)
      if (typeof sessionID === "string" && typeof text === "string" && isPluginText(text) && id)
        markOurs(sessionID, id)
      return
    }
    const decoded = decodeV2Event(raw, (id) => {
      const s = sessions.find(id)
      return s ? [{ type: "session.updated", rules: s.state.facts.sessionRules, revert: null }] : []
    })
    if (decoded === undefined) return
    if (decoded.kind === "forked") {
      const from = decoded.through ? await afterMessage(decoded.parentID, decoded.through) : decoded.from
      forks.set(decoded.sessionID, { parentID: decoded.parentID, ...(from ? { from } : {}) })
      // A fork is a new top-level session whose list starts from its source's (forkOrigin).
      await runtime.event(decoded.sessionID, { type: "session.created" }, true)
      return
    }
    for (const hostEvent of decoded.events) {
      // The turn's end takes back what its prompt said; an execution that ended before the prompt does not.
      if (hostEvent.type === "session.idle" && !endedBefore(raw, attached.get(decoded.sessionID)?.messageID))
        attached.delete(decoded.sessionID)
      if (hostEvent.type === "session.deleted") {
        attached.delete(decoded.sessionID)
        agentOf.delete(decoded.sessionID)
        forks.delete(decoded.sessionID)
        ours.delete(decoded.sessionID)
        compacting.delete(decoded.sessionID)
      }
      const start = hostEvent.type === "session.created" || hostEvent.type === "message.removed"
      await runtime.event(decoded.sessionID, hostEvent, start)
    }
  }

  /**
   * The first message of the source after `through` (a fork "through" a message holds it and the ones before),
   * from the host's messages; none when it is the last one (the fork holds all). When the host does not say, the
   * fork starts from the source's whole list, and the log says so.
   */
  async function afterMessage(sessionID: string, through: string): Promise<string | undefined> {
    const ids = [...((await host.messageIds(sessionID).catch(() => undefined))?.ids ?? [])]
    const at = ids.indexOf(through)
    if (at < 0)
      log(
        "warn",
        "a fork's boundary message is not among its source's messages: the fork starts from the whole list",
      )
    return at < 0 ? undefined : ids[at + 1]
  }

  /**
   * Where a fork starts: its source's list at the fork point (edits made while the source was undone included).
   * The fork is known from its event, or, before that event reaches this server (or when it started after it),
   * from the fork's info. Its history is anchored at its own copies of the source's turns, so an undo inside them
   * takes back what they did (core/history/fork.ts, as on 1.18); when the two conversations cannot be lined up
   * (the source compacted past the fork point, a copy that differs) it starts from the list alone.
   */
  async function forkOrigin(store: Store, config: Config, id: string): Promise<Origin | undefined> {
    const fork = forks.get(id) ?? (await forkFromInfo(id))
    if (fork === undefined) return undefined
    const source = await store.read(fork.parentID)
    if (source.revision === 0) return undefined
    const history = historyOf(source)
    const anchored = await anchoredAtCopies(history, fork.parentID, id, fork.from).catch(() => undefined)
    if (anchored !== undefined) return anchored
    const at = listForCopy(history, fork.from ? { message: fork.from } : undefined, limitsOf(config))
    const notes = at.warning ? [at.warning] : []
    return { list: at.list, history: historyFrom(at.list), shown: at.list, from: "source", notes }
  }

  /** The fork the session's info names, remembered as its event would be; undefined for no fork. */
  async function forkFromInfo(id: string): Promise<{ parentID: string; from?: string } | undefined> {
    const get = session.get
    if (!fn(get)) return undefined
    const raw = await withinMs(
      Promise.resolve(get({ sessionID: id } as never)).catch(() => undefined),
      FIRST_SIGHT_MS,
    )
    const named = v2ForkOf(raw)
    if (named === undefined) return undefined
    const from = named.through ? await afterMessage(named.parentID, named.through) : named.from
    const fork = { parentID: named.parentID, ...(from ? { from } : {}) }
    forks.set(id, fork)
    return fork
  }

  async function anchoredAtCopies(
    history: ListHistory,
    parentID: string,
    id: string,
    from: string | undefined,
  ): Promise<Origin | undefined> {
    const context = session.context
    if (!fn(context)) return undefined
    const ask = (sessionID: string) =>
      withinMs(Promise.resolve(context({ sessionID } as never)), FIRST_SIGHT_MS)
    const [sourceAnswer, forkAnswer] = await Promise.all([ask(parentID), ask(id)])
    const sourceMessages = messagesOf(sourceAnswer)
    const forkMessages = messagesOf(forkAnswer)
    if (sourceMessages === undefined || forkMessages === undefined) return undefined
    const sourceT = v2Transcript(sourceMessages)
    const forkT = v2Transcript(forkMessages)
    const copied = from === undefined ? sourceT.length : sourceT.findIndex((m) => m.id === from)
    // The fork point is not among the messages the source shows (compacted away since): nothing to line up.
    if (copied < 0) return undefined
    const match = matchSource(forkT, copied, [{ id: parentID, messages: sourceT }])
    if (match.kind !== "found") return undefined
    const origin = originOf({ kind: "none" }, match, sourceStateAt(history, sourceT, forkT, copied))
    return origin?.from === "source" ? origin : undefined
  }

  return async () => {
    stop.abort()
    for (const registration of registrations.splice(0))
      try {
        await registration.dispose?.()
      } catch {
        // Unloading: nothing to report to.
      }
  }
}
