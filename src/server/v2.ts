// The server plugin's binding to OpenCode 2 (`setup(ctx)`): a table from each registry and session hook to one
// runtime call (runtime.ts), the same runtime as on 1.18. Every capability is probed before use; one the host
// lacks is said once and the rest goes on. A context with no tool registry or no session hooks is not OpenCode
// 2: nothing is registered there. See docs/opencode-2.md "The binding" for the host facts it rests on.

import { join } from "node:path"
import { COMMAND_DESCRIPTION } from "../core/list/command.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import { TODO_RPC } from "../shared/v2-rpc.ts"
import { agentRulesSource } from "./agent-rules.ts"
import { type Log, onceLogger, stderrLog } from "./output.ts"
import { type Runtime, startRuntime } from "./runtime.ts"
import { SKILLS_DIR } from "./skills-dir.ts"
import type { ToolEditor } from "./steering.ts"
import { type Fn, fn, modelIds, type RpcRegistration, type V2Context } from "./v2-context.ts"
import { v2AgentRules } from "./v2-events.ts"
import { followStream, followV2Event } from "./v2-follow.ts"
import { type V2Lookups, v2Lookups } from "./v2-forks.ts"
import { v2HostPort } from "./v2-host-port.ts"
import { type Registrar, registrar } from "./v2-register.ts"
import { readSkill, rpcHandlers, todoCommand, todoToolInfo } from "./v2-registry.ts"
import { firstSystemText, v2History, v2RequestRole, writeTurnAnswer } from "./v2-request.ts"

/** A hook's event that names its session. */
type SessionEvent = Record<string, unknown> & { sessionID: string }

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
  const reg = registrar(log)
  const stop = new AbortController()
  const session = ctx.session ?? {}
  let started: Runtime | undefined
  const runtimeNow = () => started as Runtime
  const host = v2HostPort(session, {
    log,
    lacks: reg.lacks,
    emit: reg.emit,
    parentOf: (id) => started?.turns.fork(id)?.parentID,
    sent: (sessionID, messageID) => started?.turns.note({ type: "ours", sessionID, messageID }),
  })
  const lookups = v2Lookups({ session, host, log, lacks: reg.lacks, runtime: runtimeNow })
  started = await startRuntime({
    directory: ctx.location?.directory ?? process.cwd(),
    options: ctx.options,
    host,
    agents: () =>
      agentRulesSource(async () => {
        const list = ctx.agent?.list
        return fn(list) ? v2AgentRules(await list()) : undefined
      }, log),
    findOrigin: (store, config) => (id) => lookups.forkOrigin(store, config, id),
  })
  if (!started) return undefined
  const runtime: Runtime = started
  await registerRegistries(ctx, runtime, reg, log)
  await registerSessionHooks(session.hook as Fn, runtime, reg, lookups)
  const subscribe = ctx.event?.subscribe
  if (fn(subscribe))
    void followStream(subscribe, stop.signal, log, (raw) =>
      runtime.guard("event", () => followV2Event(runtime, raw, lookups.afterMessage))(),
    )
  else reg.lacks("an event stream", "no completion reminder, undo, redo or fork is followed")
  return async () => {
    stop.abort()
    await reg.dispose()
  }
}

/** The RPC (first: the others may speak through it), the tool, its hook, the command and the skill. */
async function registerRegistries(ctx: V2Context, runtime: Runtime, reg: Registrar, log: Log): Promise<void> {
  const { lacks, register, editing } = reg
  const rpcRegister = ctx.rpc?.register
  if (fn(rpcRegister))
    await register("plugin RPC", "the TUI cannot reach the server", async () => {
      const rpc = (await rpcRegister(TODO_RPC as never, rpcHandlers(runtime) as never)) as RpcRegistration
      reg.rpcRegistered(rpc)
      return rpc
    })
  else lacks("plugin RPC", "the TUI gets no toasts or replies from the server")

  // The host's own todowrite, where a build registers one before ours, leaves through the editor (steering.ts).
  await register("a tool registry", "no todo tool", () =>
    (ctx.tool!.transform as Fn)(
      editing("tool registry", "no todo tool", (editor: ToolEditor & { add?: Fn }) => {
        if (!fn(editor?.add)) return lacks("a tool editor with add()", "no todo tool")
        editor.add(todoToolInfo(runtime) as never)
        runtime.hostTodoTool.hideFromEditor(editor, lacks)
      }) as never,
    ),
  )

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
            execute: todoCommand(runtime, reg.emit),
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
}

/** A hook's event as the binding takes it: a record with the session's id, else nothing to do. */
function sessionEvent(event: unknown): SessionEvent | undefined {
  return isRecord(event) && typeof event.sessionID === "string" ? (event as SessionEvent) : undefined
}

/** The session hooks: the prompt, the per-request hook (`context`, or `request` in an earlier runner), compaction. */
async function registerSessionHooks(hook: Fn, runtime: Runtime, reg: Registrar, lookups: V2Lookups) {
  const on = (name: string, body: (event: SessionEvent) => Promise<void>) =>
    (async (raw: unknown) => {
      const event = sessionEvent(raw)
      if (event) await runtime.guard(name, () => body(event))()
    }) as never

  await reg.register("session hooks", "no prelude, notices or stubs", () =>
    hook(
      "prompt" as never,
      on("prompt", async (event) => {
        await lookups.firstSight(event.sessionID)
        const prompt = isRecord(event.prompt) ? event.prompt : {}
        await runtime.turns.prompt(event.sessionID, {
          ...(typeof prompt.text === "string" ? { text: prompt.text } : {}),
          ...(typeof event.messageID === "string" ? { messageID: event.messageID } : {}),
        })
      }),
    ),
  )

  // The per-request hook: `context` on the 2.x line, `request` in an earlier runner (where a later `request` is
  // the raw HTTP request instead: no messages, not ours). Both are registered; the first to deliver a
  // request-shaped event is the one followed, so no request is handled twice.
  let requestHook: string | undefined
  let requestHooked = 0
  for (const name of ["context", "request"] as const) {
    const registered = await reg.registerOptional(name, () =>
      hook(
        name as never,
        (async (raw: unknown) => {
          const event = sessionEvent(raw)
          if (!event || !Array.isArray(event.messages)) return
          requestHook ??= name
          if (requestHook !== name) return
          await runtime.guard(name, () => onRequest(runtime, event))()
        }) as never,
      ),
    )
    if (registered) requestHooked++
  }
  if (requestHooked === 0) reg.lacks("a per-request session hook", "no notices or stubs in requests")

  // The compaction hook: the summarizer's whole request, or only its prompt (whose request no per-request hook
  // sees); without it the summarizer's request is known in the per-request hook instead.
  await reg.registerOptional("compaction", () =>
    hook(
      "compaction" as never,
      on("compaction", async (event) => {
        runtime.hostTodoTool.hideFromRequest(event.tools)
        const messages = Array.isArray(event.messages) ? (event.messages as unknown[]) : []
        const served = await runtime.turns.compaction(event.sessionID, (ours) => v2History(messages, ours))
        writeTurnAnswer(event, { stale: served.stale, summarizer: served.context })
      }),
    ),
  )
}

/** One model request: decoded, answered by the runtime, the answer written into this request only. */
async function onRequest(runtime: Runtime, event: SessionEvent): Promise<void> {
  runtime.hostTodoTool.hideFromRequest(event.tools)
  const messages = event.messages as unknown[]
  const system = firstSystemText(event)
  const answer = await runtime.turns.request(event.sessionID, {
    role: (compacting) => v2RequestRole(event, compacting),
    ...(typeof event.agent === "string" ? { agent: event.agent } : {}),
    // The host leaves out a tool the agent may not call.
    offered: !isRecord(event.tools) || TODO_TOOL in event.tools,
    history: (ours) => v2History(messages, ours),
    ...(system === undefined ? {} : { system: { host: "2", system: [system], ...modelIds(event.model) } }),
  })
  if (answer) writeTurnAnswer(event, answer)
}
