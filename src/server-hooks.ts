// The server plugin's hooks for OpenCode 1.18: registers the `todo` tool, the /todo command and the
// todo-discipline skill; decodes each hook and event (host-events.ts), steps the core session
// (core/session.ts) and performs the actions it returns. No decision about when to speak is made here.

import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin"
import { z } from "zod"
import { type EditNote, isEditNote } from "./actions.ts"
import { runCommand } from "./command-runner.ts"
import { COMMAND_DESCRIPTION } from "./core/command.ts"
import { type Config, limitsOf, STORED_LIMITS } from "./core/config.ts"
import { type ExecuteResult, execute } from "./core/execute.ts"
import { formatOutcome } from "./core/format.ts"
import { type PromptFamily, steeringOn, steerSystemPrompt } from "./core/host-prompt.ts"
import { parseSnapshot } from "./core/parse.ts"
import { type Access, type AgentRules, decodeAgentRules, decodeRules } from "./core/permission.ts"
import { ARG_DESCRIPTIONS, commandReplyText, TOOL_DESCRIPTION } from "./core/prompts.ts"
import {
  type HostEvent,
  initialSession,
  parentUnknown,
  type Session,
  type SessionAction,
  stepSession,
  todoAccess,
  todoRefusal,
} from "./core/session.ts"
import { stepStubs } from "./core/stale.ts"
import { listToasts, spokenToasts, type Toast } from "./core/toasts.ts"
import { COMMAND_PART_KEY } from "./core/tui-protocol.ts"
import { OP_NAMES, type OpName, type TodoList } from "./core/types.ts"
import { PLUGIN_ID, TODO_TOOL } from "./core/words.ts"
import { applyStubs, decodeBusEvent, decodeParts, decodeTools, decodeUser, historyOf } from "./host-events.ts"
import { todoDir } from "./paths.ts"
import { loadSettings } from "./settings.ts"
import { createStore, LIST_BUSY, type Store } from "./store/store.ts"

const SKILLS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "skills")

type Client = PluginInput["client"]

// How long a prompt waits for the agents' rules the first time; after that they are read in the background.
const AGENTS_WAIT_MS = 2_000

/** What the server keeps per session: the core's session state, and the list as last read from the store. */
interface Tracked {
  readonly id: string
  state: Session
  list: TodoList
  /** The store's change marker when `list` was read; a different stamp means another process wrote. */
  stamp: string | undefined
  loaded: Promise<void> | undefined
}

/** Logs through the host (never stdout), each distinct message once. */
function makeLogger(client: Client) {
  const seen = new Set<string>()
  return (level: "warn" | "error" | "info", message: string) => {
    const key = `${level}:${message}`
    if (seen.has(key)) return
    if (seen.size > 500) seen.clear()
    seen.add(key)
    const fallback = () => process.stderr.write(`[${PLUGIN_ID}] ${level}: ${message}\n`)
    try {
      const pending = client.app.log({ body: { service: PLUGIN_ID, level, message } })
      Promise.resolve(pending).catch(fallback)
    } catch {
      fallback()
    }
  }
}

/**
 * Shows a toast in the TUI attached to this server (a no-op without one); never throws, never waits.
 * Session toasts and storage warnings both go through it.
 */
function showToast(client: Client, toast: Toast): void {
  try {
    const body = { ...toast, duration: toast.variant === "warning" ? 8000 : 5000 }
    Promise.resolve(client.tui.showToast({ body })).catch(() => {})
  } catch {
    // An older client without the TUI routes: nothing to show it on.
  }
}
const itemsField = z.array(z.string())
const phaseSpec = z.object({ phase: z.string(), items: itemsField })

/**
 * The tool's argument schema, as lean as the model can still use it: it rides on every request.
 * Every field is optional so that a call without `op` reaches the core, which infers the op or
 * explains the accepted shapes; the host does not validate arguments and the core checks them all,
 * so `ops` entries are left open (the tool description names their fields) and fields the
 * description explains carry no description of their own.
 */
export const toolArgs = {
  op: z.enum(OP_NAMES as [OpName, ...OpName[]]).optional(),
  task: z.string().optional(),
  phase: z.string().optional(),
  reason: z.string().optional().describe(ARG_DESCRIPTIONS.reason),
  items: itemsField.optional(),
  list: z.array(phaseSpec).optional().describe(ARG_DESCRIPTIONS.list),
  ops: z.array(z.unknown()).optional().describe(ARG_DESCRIPTIONS.ops),
}

/** The texts of the actions of one type, as one text (each carries the marker). */
function joined(actions: readonly SessionAction[], type: "attach" | "inject"): string {
  const texts: string[] = []
  for (const action of actions) if (action.type === type) texts.push(action.text)
  return texts.join("\n\n")
}

export const server: Plugin = async (input, options) => {
  const log = makeLogger(input.client)
  const settings = await loadSettings({ directory: input.directory, options })
  for (const warning of settings.warnings) log("warn", warning)
  const config: Config = settings.config
  if (!config.enabled) {
    if (settings.disabled) log("info", settings.disabled)
    return {}
  }
  const limits = limitsOf(config)
  const store: Store = createStore({
    dir: todoDir(),
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (message) => {
      log("warn", message)
      // The store reports each problem once, and storage toasts show even with `toasts` off.
      showToast(input.client, { title: "Todo storage", message, variant: "warning" })
    },
  })
  const sessions = new Map<string, Tracked>()
  // Every agent's permission rules as the host serves them (GET /agent), read once per load of the plugin: a
  // change of config reloads the plugin, so they are never stale. Undefined until read (agents count as allowed).
  let agents: AgentRules | undefined
  let agentsLoading: Promise<void> | undefined

  /** Reads the agents' rules once; after a failure, again on the next prompt. */
  function loadAgents(): Promise<void> {
    if (agents !== undefined) return Promise.resolve()
    agentsLoading ??= (async () => {
      try {
        const answer = (await input.client.app.agents()) as { data?: unknown }
        if (Array.isArray(answer?.data)) agents = decodeAgentRules(answer.data)
        else
          log(
            "warn",
            "the host's agent list could not be read; the todo tool counts as allowed for every agent",
          )
      } catch (error) {
        log(
          "warn",
          `the host's agent list could not be read (${error instanceof Error ? error.message : String(error)}); the todo tool counts as allowed for every agent`,
        )
      } finally {
        agentsLoading = undefined
      }
    })()
    return agentsLoading
  }

  /**
   * Waits for the agents' rules at most AGENTS_WAIT_MS, and not at all while an earlier read is still under way:
   * a host slow to answer must not hold up the prompts.
   */
  function agentsOrTimeout(): Promise<void> {
    if (agentsLoading !== undefined) return Promise.resolve()
    let timer: ReturnType<typeof setTimeout> | undefined
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, AGENTS_WAIT_MS)
      timer.unref?.()
    })
    return Promise.race([loadAgents(), waited]).finally(() => clearTimeout(timer))
  }

  /**
   * Whether the agent of the session's turn under way may call todo ("allow", "ask" or "deny"), by the core's
   * rule over the host's rules. For hooks that must not push a tool the agent cannot call.
   */
  function todoAccessOf(sessionID: string): Access {
    return todoAccess((sessions.get(sessionID)?.state ?? initialSession()).facts, agents)
  }

  function session(id: string): Tracked {
    let s = sessions.get(id)
    if (!s) {
      s = { id, state: initialSession(), list: [], stamp: undefined, loaded: undefined }
      sessions.set(id, s)
    }
    return s
  }

  /** Steps the core; the actions that need no hook output (reminders, forgetting) are performed here. */
  async function step(s: Tracked, event: HostEvent): Promise<readonly SessionAction[]> {
    const result = stepSession(s.state, event, s.list, config, agents)
    s.state = result.session
    for (const toast of spokenToasts(result.actions, s.list, config)) showToast(input.client, toast)
    for (const action of result.actions) {
      if (action.type === "forget") sessions.delete(s.id)
      else if (action.type === "remind") await remind(s.id, action)
    }
    return result.actions
  }

  async function remind(id: string, action: Extract<SessionAction, { type: "remind" }>) {
    const user = action.user ?? {}
    const body = { parts: [{ type: "text", text: action.text, synthetic: true }], ...user }
    await input.client.session.promptAsync({ path: { id }, body: body as never })
  }

  /** Reads the stored list once per session and tells the core it was loaded (a resume, when it was stored earlier). */
  function ensureLoaded(s: Tracked): Promise<void> {
    s.loaded ??= (async () => {
      // The stamp is taken before the read: a write in between makes the next stamp differ, so it is read then.
      const stamp = await store.stamp(s.id)
      let snapshot = await store.read(s.id)
      // Notes the TUI queued and no server delivered are handed to the core with the list: a resume notice
      // spends them, so they cannot come back after the next todo update.
      let notes: EditNote[] = []
      if (snapshot.edits.length > 0)
        snapshot = await store.update(s.id, (current) => {
          notes = current.edits.filter(isEditNote)
          return current.edits.length > 0 ? { ...current, edits: [] } : undefined
        })
      s.list = snapshot.list
      s.stamp = stamp
      await step(s, { type: "list.loaded", edits: notes })
    })()
    return s.loaded
  }

  /**
   * Picks up changes another process (the TUI) made: one stat per call, a read only when the
   * stamp moved. Pending user-edit notes are handed to the core and cleared from the store.
   */
  async function syncFromStore(s: Tracked): Promise<void> {
    await ensureLoaded(s)
    const stamp = await store.stamp(s.id)
    if (stamp === s.stamp) return
    let notes: EditNote[] = []
    // Only pending notes need the lock (to clear them); a plain change of the list is read without it.
    const read = await store.read(s.id)
    const snapshot =
      read.edits.length === 0
        ? read
        : await store.update(s.id, (current) => {
            notes = current.edits.filter(isEditNote)
            return current.edits.length > 0 ? { ...current, edits: [] } : undefined
          })
    s.list = snapshot.list
    // Busy: the notes stay stored and the stamp old, so the next hook delivers them.
    if (snapshot.busy) return
    // Not a fresh stat: a write landing after the read would carry that stat's stamp and be missed.
    s.stamp = stamp
    for (const note of notes)
      await step(s, {
        type: "list.edited",
        lines: note.lines,
        removed: note.removed,
        ...(note.removedPhases ? { removedPhases: note.removedPhases } : {}),
      })
  }

  /** Asks the host for the session's parent once, when no event said whether it has one. */
  async function resolveParent(s: Tracked): Promise<void> {
    if (!parentUnknown(s.state.facts)) return
    let parentID: string | undefined
    let permission: unknown
    try {
      const info = await input.client.session.get({ path: { id: s.id } })
      const data = info.data as { parentID?: string; permission?: unknown } | undefined
      parentID = data?.parentID || undefined
      permission = data?.permission
    } catch {
      parentID = undefined
    }
    await step(s, parentID === undefined ? { type: "parent.found" } : { type: "parent.found", parentID })
    const rules = decodeRules(permission)
    if (rules !== undefined) await step(s, { type: "session.rules", rules })
  }

  /**
   * Whether the system prompt may point this session's agent at `todo`: the one place the steering
   * asks. A subagent's calls are refused; an agent whose rules deny or ask for todo is never pushed.
   */
  function todoCallable(s: Tracked): boolean {
    return todoRefusal(s.state.facts) === undefined && todoAccessOf(s.id) === "allow"
  }

  /** Prompt families already warned about (a passage moved in the host's wording): each once per process. */
  const warnedFamilies = new Set<PromptFamily>()

  /** Wraps a hook so that nothing it throws reaches the host; each distinct failure is logged once. */
  function guard<A extends unknown[]>(name: string, fn: (...args: A) => Promise<void>) {
    return async (...args: A) => {
      try {
        await fn(...args)
      } catch (error) {
        log("error", `${name} failed: ${error instanceof Error ? error.message : String(error)}`)
      }
    }
  }

  const hooks: Hooks = {
    tool: {
      [TODO_TOOL]: {
        description: TOOL_DESCRIPTION,
        args: toolArgs,
        async execute(args, ctx) {
          const s = session(ctx.sessionID)
          await resolveParent(s)
          const refusal = todoRefusal(s.state.facts)
          if (refusal !== undefined) return refusal
          // The host asks for plugin tools only when they ask: with `todo: "ask"` the user approves the call
          // first. A refusal throws the host's own error, which ends the turn as for any tool.
          if (typeof ctx.ask === "function")
            await ctx.ask({ permission: TODO_TOOL, patterns: ["*"], always: ["*"], metadata: {} })
          await syncFromStore(s)
          let before: TodoList = s.list
          let result: ExecuteResult | undefined
          let changed = false
          const snapshot = await store.update(s.id, (current) => {
            before = current.list
            result = execute(current.list, args, limits)
            changed = result.ok && result.list !== current.list
            return changed && result.ok ? { ...current, list: result.list } : undefined
          })
          // s.stamp stays the one syncFromStore took before this read; our own write moves the
          // stamp, so the next hook reads the record once more instead of missing another writer.
          s.list = snapshot.list
          if (snapshot.busy) {
            await step(s, { type: "todo.finished", ok: false, ops: [] })
            return {
              title: "todo: busy",
              output: `Error: ${LIST_BUSY}`,
              metadata: { ok: false, list: s.list },
            } as never
          }
          for (const toast of listToasts(before, s.list, config)) showToast(input.client, toast)
          const outcome = result ?? execute(s.list, args, limits)
          // The ops as the core parsed them: a call without "op" has its op inferred from its shape.
          await step(s, {
            type: "todo.finished",
            ok: outcome.ok,
            ops: outcome.ok ? outcome.ops.map((op) => op.op) : [],
          })
          const output = formatOutcome(before, outcome)
          return {
            title: outcome.ok ? output.split("\n")[0]!.slice(0, 80) : "todo: error",
            output,
            // `changed` tells the stale rule (core/stale.ts) that this call updated the list.
            metadata: { ok: outcome.ok, changed, list: s.list },
          } as never
        },
      },
    },

    config: guard("config", async (cfg) => {
      const c = cfg as Record<string, unknown> & {
        command?: Record<string, unknown>
        skills?: { paths?: string[] }
        permission?: unknown
      }
      c.command = {
        ...(c.command ?? {}),
        todo: {
          template: "$ARGUMENTS",
          description: COMMAND_DESCRIPTION,
        },
      }
      c.skills = { ...(c.skills ?? {}), paths: [...(c.skills?.paths ?? []), SKILLS_DIR] }
      // The host drops a tool whose last matching permission rule is a deny.
      if (!config.keepTodowrite) {
        const permission = c.permission
        if (permission === undefined || (typeof permission === "object" && permission !== null))
          c.permission = { ...((permission as object) ?? {}), todowrite: "deny" }
        else if (typeof permission === "string") c.permission = { "*": permission, todowrite: "deny" }
      }
    }),

    "chat.message": guard("chat.message", async (hookInput, output) => {
      const s = session(hookInput.sessionID)
      await syncFromStore(s)
      await resolveParent(s)
      await agentsOrTimeout()
      const parts = decodeParts(output.parts)
      const user = decodeUser(hookInput as Record<string, unknown>, output.message)
      const tools = decodeTools(output.message)
      const message: HostEvent = { type: "user.message", parts, user, ...(tools ? { tools } : {}) }
      const text = joined(await step(s, message), "attach")
      if (!text) return
      const last = output.parts.at(-1) as { id?: string } | undefined
      output.parts.push({
        // Part ids sort in creation order; extending the last id places ours right after the user's text.
        id: `${last?.id ?? "prt_todo"}z`,
        sessionID: hookInput.sessionID,
        messageID: output.message.id,
        type: "text",
        text,
        synthetic: true,
      } as never)
    }),

    "experimental.chat.messages.transform": guard("messages.transform", async (_input, output) => {
      const lastMessage = output.messages.at(-1)
      const sessionID = (lastMessage?.info as { sessionID?: string } | undefined)?.sessionID
      if (!lastMessage || !sessionID) return
      const s = session(sessionID)
      await syncFromStore(s)
      // Our stale notices and superseded todo results go out as a one-line stub (request only).
      const stubs = stepStubs(s.state.stubs, historyOf(output.messages))
      if (stubs !== s.state.stubs) s.state = { ...s.state, stubs }
      applyStubs(output.messages, stubs.stale)
      const text = joined(await step(s, { type: "model.request" }), "inject")
      if (!text) return
      const info = lastMessage.info as { id: string; role: string }
      const part = {
        id: `prt_todo_${Date.now()}`,
        sessionID,
        messageID: info.id,
        type: "text",
        text,
        synthetic: true,
      }
      if (info.role === "user") lastMessage.parts.push(part as never)
      else {
        // Mid-turn (after tool results): the notice goes out as the newest user content of this request only.
        const messageID = `${info.id}z`
        output.messages.push({
          info: { ...(lastMessage.info as object), id: messageID, role: "user" } as never,
          parts: [{ ...part, messageID } as never],
        })
      }
    }),

    // Title and compaction requests pass here too; they carry none of the passages and stay as they are.
    "experimental.chat.system.transform": guard("system.transform", async (hookInput, output) => {
      if (!steeringOn(config)) return
      const model = hookInput.model as { id?: string; providerID?: string; api?: { id?: string } }
      let callable = true
      if (hookInput.sessionID) {
        const s = session(hookInput.sessionID)
        await resolveParent(s)
        callable = todoCallable(s)
      }
      const result = steerSystemPrompt({
        system: output.system,
        modelId: model.api?.id ?? model.id ?? "",
        providerId: model.providerID ?? "",
        todoCallable: callable,
        warned: warnedFamilies,
      })
      // In place: the host ignores a new array.
      result.system.forEach((text, i) => {
        if (output.system[i] !== text) output.system[i] = text
      })
      if (result.warning) {
        warnedFamilies.add(result.family)
        log("warn", result.warning)
      }
    }),

    "experimental.session.compacting": guard("session.compacting", async (hookInput, output) => {
      const s = session(hookInput.sessionID)
      await syncFromStore(s)
      const text = joined(await step(s, { type: "compacting" }), "inject")
      if (text) output.context.push(text)
    }),

    "tool.execute.after": guard("tool.execute.after", async (hookInput) => {
      await step(session(hookInput.sessionID), { type: "tool.finished", tool: hookInput.tool, ok: true })
    }),

    "command.execute.before": guard("command.execute.before", async (hookInput, output) => {
      if (hookInput.command !== "todo") return
      const s = session(hookInput.sessionID)
      await syncFromStore(s)
      const { report, list } = await runCommand(
        { store, directory: input.directory, limits },
        s.id,
        s.list,
        hookInput.arguments ?? "",
      )
      s.list = list
      // Visible (not synthetic) so the user sees what happened; the marker keeps the tracker
      // from counting it as a new prompt.
      // The list rides in the part's metadata for a sidebar that cannot read the store (attached remotely).
      output.parts.splice(0, output.parts.length, {
        type: "text",
        text: commandReplyText(report),
        metadata: { [COMMAND_PART_KEY]: { list: s.list } },
      } as never)
    }),

    event: guard("event", async ({ event }) => {
      const decoded = decodeBusEvent(event)
      if (decoded === undefined) return
      if ("malformed" in decoded) throw new Error(`malformed ${decoded.malformed}`)
      // Only a session's creation starts tracking it; other events about unknown sessions are not ours to keep.
      const s =
        decoded.event.type === "session.created"
          ? session(decoded.sessionID)
          : sessions.get(decoded.sessionID)
      if (!s) return
      if (decoded.event.type === "session.idle") {
        await syncFromStore(s)
        await resolveParent(s)
      }
      await step(s, decoded.event)
    }),
  }
  return hooks
}
