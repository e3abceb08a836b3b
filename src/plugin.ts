// The server plugin's hooks for OpenCode 1.18: registers the `todo` tool, the /todo command and
// the todo-discipline skill, and feeds the host's hooks and events to the core tracker.
// It translates between the host and the core; every decision is made in src/core.

import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Hooks, Plugin, PluginInput } from "@opencode-ai/plugin"
import { z } from "zod"
import {
  type EditNote,
  exportList,
  isEditNote,
  readImport,
  replaceFromMarkdown,
  runUserOps,
} from "./actions.ts"
import { COMMAND_USAGE, parseCommand } from "./core/command.ts"
import { type Config, limitsOf, STORED_LIMITS } from "./core/config.ts"
import { execute } from "./core/execute.ts"
import { formatList, formatOutcome } from "./core/format.ts"
import { renderMarkdown } from "./core/markdown.ts"
import { parseSnapshot } from "./core/parse.ts"
import {
  ARG_DESCRIPTIONS,
  type CommandReport,
  commandReplyText,
  compactionContextText,
  TOOL_DESCRIPTION,
} from "./core/prompts.ts"
import {
  classifyUserMessage,
  initialTracker,
  type MessagePart,
  stepTracker,
  type TrackerEvent,
  type TrackerState,
} from "./core/tracker.ts"
import { COMMAND_PART_KEY } from "./core/tui-protocol.ts"
import { OP_NAMES, type OpName, type TodoList } from "./core/types.ts"
import { PLUGIN_ID } from "./core/words.ts"
import { todoDir } from "./paths.ts"
import { loadSettings } from "./settings.ts"
import { createStore, type Store } from "./store/store.ts"

const SKILLS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "skills")

type Client = PluginInput["client"]
type ModelRef = { providerID: string; modelID: string }

/** What the adapter remembers per session: the tracker's state plus the host facts it needs. */
interface SessionState {
  readonly id: string
  tracker: TrackerState
  list: TodoList
  /** The store's change marker when `list` was read; a different stamp means another process wrote. */
  stamp: string | undefined
  loaded: Promise<void> | undefined
  /** Created in this process (not resumed from an earlier one). */
  createdHere: boolean
  subagent: boolean | undefined
  lastUser: { agent?: string; model?: ModelRef; variant?: string } | undefined
  lastAssistantID: string | undefined
  lastAssistantText: string | undefined
  /** The last assistant message ended wanting more tool calls: the user rejected a permission or question. */
  interrupted: boolean
  aborted: boolean
  errored: boolean
  openAsks: Set<string>
  /** Set by the compacting hook: the next messages transform belongs to the summarizer request. */
  compacting: boolean
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

const opField = z.enum(OP_NAMES as [OpName, ...OpName[]])
const itemsField = z.array(z.string())
const phaseSpec = z.object({ phase: z.string(), items: itemsField })
const opObject = z.object({
  op: opField.optional(),
  task: z.string().optional(),
  phase: z.string().optional(),
  reason: z.string().optional(),
  items: itemsField.optional(),
  list: z.array(phaseSpec).optional(),
})

/**
 * The tool's argument schema. Every field is optional so that a call without `op` reaches the
 * core, which infers the op or explains the accepted shapes (the host does not validate args).
 */
export const toolArgs = {
  op: opField.optional().describe(ARG_DESCRIPTIONS.op),
  task: z.string().optional().describe(ARG_DESCRIPTIONS.task),
  phase: z.string().optional().describe(ARG_DESCRIPTIONS.phase),
  reason: z.string().optional().describe(ARG_DESCRIPTIONS.reason),
  items: itemsField.optional().describe(ARG_DESCRIPTIONS.items),
  list: z.array(phaseSpec).optional().describe(ARG_DESCRIPTIONS.list),
  ops: z.array(opObject).optional().describe(ARG_DESCRIPTIONS.ops),
}

function partText(parts: readonly unknown[]): MessagePart[] {
  return parts.map((part) => {
    const p = part as { type?: unknown; text?: unknown; synthetic?: unknown; ignored?: unknown }
    return {
      type: typeof p.type === "string" ? p.type : "unknown",
      ...(typeof p.text === "string" ? { text: p.text } : {}),
      ...(p.synthetic === true ? { synthetic: true } : {}),
      ...(p.ignored === true ? { ignored: true } : {}),
    }
  })
}

export const server: Plugin = async (input, options) => {
  const log = makeLogger(input.client)
  const settings = loadSettings({ directory: input.directory, options })
  for (const warning of settings.warnings) log("warn", warning)
  const config: Config = settings.config
  if (!config.enabled) return {}
  const limits = limitsOf(config)
  const store: Store = createStore({
    dir: todoDir(),
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: (message) => log("warn", message),
  })
  const sessions = new Map<string, SessionState>()

  function session(id: string): SessionState {
    let s = sessions.get(id)
    if (!s) {
      s = {
        id,
        tracker: initialTracker(),
        list: [],
        stamp: undefined,
        loaded: undefined,
        createdHere: false,
        subagent: undefined,
        lastUser: undefined,
        lastAssistantID: undefined,
        lastAssistantText: undefined,
        interrupted: false,
        aborted: false,
        errored: false,
        openAsks: new Set(),
        compacting: false,
      }
      sessions.set(id, s)
    }
    return s
  }

  function step(s: SessionState, event: TrackerEvent) {
    const result = stepTracker(s.tracker, event, config)
    s.tracker = result.state
    return result.actions
  }

  /** Reads the stored list once per session; a list stored by an earlier process is a resume. */
  function ensureLoaded(s: SessionState): Promise<void> {
    s.loaded ??= (async () => {
      // The stamp is taken before the read: a write in between makes the next stamp differ, so it is read then.
      const stamp = await store.stamp(s.id)
      const snapshot = await store.read(s.id)
      s.list = snapshot.list
      s.stamp = stamp
      if (!s.createdHere && snapshot.list.length > 0) step(s, { type: "resumed", list: s.list })
    })()
    return s.loaded
  }

  /**
   * Picks up changes another process (the TUI) made: one stat per call, a read only when the
   * stamp moved. Pending user-edit notes are handed to the tracker and cleared from the store.
   */
  async function syncFromStore(s: SessionState): Promise<void> {
    await ensureLoaded(s)
    const stamp = await store.stamp(s.id)
    if (stamp === s.stamp) return
    let notes: EditNote[] = []
    const snapshot = await store.update(s.id, (current) => {
      notes = current.edits.filter(isEditNote)
      return current.edits.length > 0 ? { ...current, edits: [] } : undefined
    })
    s.list = snapshot.list
    // Not a fresh stat: a write landing after the read would carry that stat's stamp and be missed.
    s.stamp = stamp
    for (const note of notes) step(s, { type: "userEdit", lines: note.lines, removed: note.removed })
  }

  async function isSubagent(s: SessionState): Promise<boolean> {
    if (s.subagent !== undefined) return s.subagent
    try {
      const info = await input.client.session.get({ path: { id: s.id } })
      s.subagent = Boolean((info.data as { parentID?: string } | undefined)?.parentID)
    } catch {
      s.subagent = false
    }
    return s.subagent
  }

  async function remind(s: SessionState, text: string) {
    const body: Record<string, unknown> = { parts: [{ type: "text", text, synthetic: true }] }
    if (s.lastUser?.agent) body.agent = s.lastUser.agent
    if (s.lastUser?.model) body.model = s.lastUser.model
    if (s.lastUser?.variant) body.variant = s.lastUser.variant
    await input.client.session.promptAsync({ path: { id: s.id }, body: body as never })
  }

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

  async function runCommand(s: SessionState, argumentsText: string): Promise<CommandReport> {
    await syncFromStore(s)
    const parsed = parseCommand(argumentsText, s.list)
    if (!parsed.ok) return { error: parsed.error }
    const plan = parsed.value
    switch (plan.kind) {
      case "show":
        return { shown: "the todo list", output: formatList(s.list) }
      case "help":
        return { shown: "the /todo usage", output: COMMAND_USAGE }
      case "copy":
        return { shown: "the list as Markdown", output: renderMarkdown(s.list) }
      case "edit":
        return {
          error:
            "Editing in $EDITOR needs the opencode-todo TUI plugin (choose Edit in the /todo dialog). Here, use /todo export, edit TODO.md, then /todo import.",
        }
      case "export": {
        const out = exportList(s.list, input.directory, plan.path, plan.force)
        return out.ok
          ? {
              action: "exported the todo list",
              output: `Wrote ${out.value.tasks} tasks (${out.value.bytes} bytes) to ${out.value.path}.`,
            }
          : { error: out.error }
      }
      case "import": {
        const file = readImport(input.directory, plan.path)
        if (!file.ok) return { error: file.error }
        const { path, text } = file.value
        const out = await replaceFromMarkdown(store, s.id, text, limits, "none")
        s.list = out.list
        return out.ok
          ? { lines: [`imported ${path}`, ...out.diff.lines], removed: out.diff.removed, list: out.list }
          : { error: `${path}: ${out.error}` }
      }
      case "ops": {
        const out = await runUserOps(store, s.id, plan.ops, limits, "none")
        s.list = out.list
        return out.ok
          ? { lines: out.diff.lines, removed: out.diff.removed, list: out.list }
          : { error: out.error }
      }
    }
  }

  const hooks: Hooks = {
    tool: {
      todo: {
        description: TOOL_DESCRIPTION,
        args: toolArgs,
        async execute(args, ctx) {
          const s = session(ctx.sessionID)
          if (await isSubagent(s))
            return "Error: the todo list belongs to the main session; a subagent reports its progress in its final answer instead. Nothing was changed."
          await syncFromStore(s)
          let before: TodoList = s.list
          let result: ReturnType<typeof execute> | undefined
          const snapshot = await store.update(s.id, (current) => {
            before = current.list
            result = execute(current.list, args, limits)
            return result.ok && result.list !== current.list ? { ...current, list: result.list } : undefined
          })
          // s.stamp stays the one syncFromStore took before this read; our own write moves the
          // stamp, so the next hook reads the record once more instead of missing another writer.
          s.list = snapshot.list
          const outcome = result ?? execute(s.list, args, limits)
          // The ops as the core parsed them: a call without "op" has its op inferred from its shape.
          const todoOps = outcome.ok ? outcome.ops.map((op) => op.op) : []
          step(s, { type: "toolResult", tool: "todo", ok: outcome.ok, todoOps, list: s.list })
          const output = formatOutcome(before, outcome)
          return {
            title: outcome.ok ? output.split("\n")[0]!.slice(0, 80) : "todo: error",
            output,
            metadata: { ok: outcome.ok, list: s.list },
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
          description:
            "Show or change the todo list: /todo [show|done|start|drop|rm|append|export|import|copy|help] …",
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
      const parts = partText(output.parts)
      await syncFromStore(s)
      const subagent = await isSubagent(s)
      const actions = step(s, {
        type: "userMessage",
        parts,
        list: s.list,
        isNewSession: s.createdHere,
        isSubagent: subagent,
      })
      if (classifyUserMessage(parts) === "real") {
        const message = output.message as { agent?: string; model?: ModelRef; variant?: string }
        s.lastUser = {
          agent: hookInput.agent ?? message.agent,
          model: hookInput.model ?? message.model,
          variant: hookInput.variant ?? message.variant,
        }
        s.aborted = false
        s.errored = false
        s.interrupted = false
      }
      const text = actions
        .filter((a) => a.type === "attach")
        .map((a) => a.text)
        .join("\n\n")
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
      if (s.compacting) {
        // This request is the summarizer's: its context came through the compacting hook.
        s.compacting = false
        return
      }
      await syncFromStore(s)
      const actions = step(s, { type: "modelRequest", kind: "main", list: s.list })
      const text = actions
        .filter((a) => a.type === "inject")
        .map((a) => a.text)
        .join("\n\n")
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

    "experimental.session.compacting": guard("session.compacting", async (hookInput, output) => {
      const s = session(hookInput.sessionID)
      await syncFromStore(s)
      s.compacting = true
      if (s.list.length > 0) output.context.push(compactionContextText(s.list))
    }),

    "tool.execute.after": guard("tool.execute.after", async (hookInput) => {
      if (hookInput.tool === "todo") return
      const s = session(hookInput.sessionID)
      step(s, { type: "toolResult", tool: hookInput.tool, ok: true, list: s.list })
    }),

    "command.execute.before": guard("command.execute.before", async (hookInput, output) => {
      if (hookInput.command !== "todo") return
      const s = session(hookInput.sessionID)
      const report = await runCommand(s, hookInput.arguments ?? "")
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
      const e = event as { type: string; properties: Record<string, unknown> }
      const props = e.properties ?? {}
      switch (e.type) {
        case "session.created": {
          const info = props.info as { id: string; parentID?: string }
          const s = session(info.id)
          s.createdHere = true
          s.subagent = Boolean(info.parentID)
          return
        }
        case "session.deleted": {
          const info = props.info as { id: string }
          sessions.delete(info.id)
          return
        }
        case "session.compacted": {
          const s = sessions.get(props.sessionID as string)
          if (s) step(s, { type: "compacted" })
          return
        }
        case "session.error": {
          const s = sessions.get(props.sessionID as string)
          const name = (props.error as { name?: string } | undefined)?.name
          if (s) {
            if (name === "MessageAbortedError") s.aborted = true
            else s.errored = true
          }
          return
        }
        case "message.updated": {
          const info = props.info as {
            id: string
            sessionID: string
            role: string
            finish?: string
            error?: unknown
          }
          if (info.role !== "assistant") return
          const s = sessions.get(info.sessionID)
          if (!s) return
          if (s.lastAssistantID !== info.id) {
            s.lastAssistantID = info.id
            s.lastAssistantText = undefined
          }
          s.interrupted = info.finish === "tool-calls"
          if (info.error) {
            const name = (info.error as { name?: string }).name
            if (name === "MessageAbortedError") s.aborted = true
            else s.errored = true
          }
          return
        }
        case "message.part.updated": {
          const part = props.part as { type: string; messageID: string; sessionID: string; text?: string }
          if (part.type !== "text") return
          const s = sessions.get(part.sessionID)
          if (s && part.messageID === s.lastAssistantID && part.text) s.lastAssistantText = part.text
          return
        }
        case "permission.asked":
        case "question.asked": {
          const s = sessions.get(props.sessionID as string)
          s?.openAsks.add(String(props.id))
          return
        }
        case "permission.replied":
        case "question.replied":
        case "question.rejected": {
          const s = sessions.get(props.sessionID as string)
          s?.openAsks.delete(String(props.requestID ?? props.id))
          return
        }
        case "session.idle": {
          const s = sessions.get(props.sessionID as string)
          if (!s?.tracker.prompted) return
          await syncFromStore(s)
          const actions = step(s, {
            type: "idle",
            list: s.list,
            lastAssistantText: s.lastAssistantText,
            userMessageWaiting: false,
            aborted: s.aborted || s.interrupted,
            errored: s.errored,
            openQuestion: s.openAsks.size > 0,
            isSubagent: await isSubagent(s),
          })
          for (const action of actions) if (action.type === "remind") await remind(s, action.text)
          return
        }
      }
    }),
  }
  return hooks
}
