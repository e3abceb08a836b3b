// The server plugin's binding to OpenCode 1.18: registers the `todo` tool (todo-tool.ts), the /todo command
// and the todo-discipline skill through the `config` hook; decodes each hook and event (host-events.ts) and
// hands it to the host-neutral runtime (runtime.ts), then writes its answers back in 1.18's shapes. No
// decision about when to speak is made here.

import type { Hooks, Plugin } from "@opencode-ai/plugin"
import { limitsOf } from "../core/config.ts"
import { CARRIED_LIST_VERSION, COMMAND_PART_KEY } from "../core/list/carried.ts"
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
import { offersSkill } from "../core/model/mode.ts"
import { commandReplyText } from "../core/model/prompts.ts"
import { toolDeniedEverywhere } from "../core/session/permission.ts"
import { agentRulesSource } from "./agent-rules.ts"
import {
  applyStubs,
  commandMarkOf,
  decodeBusEvent,
  decodeMessages,
  decodeParts,
  decodeTools,
  decodeUser,
} from "./host-events.ts"
import { v1Port } from "./host-port.ts"
import { originFinder, sourceAtFork } from "./origin.ts"
import { makeLogger } from "./output.ts"
import { startRuntime } from "./runtime.ts"
import { SKILLS_DIR } from "./skills-dir.ts"
import { todoTool } from "./todo-tool.ts"

export { toolArgs } from "./todo-tool.ts"

export const server: Plugin = async (input, options) => {
  const log = makeLogger(input.client)
  const host = v1Port(input.client, log)
  const runtime = await startRuntime({
    directory: input.directory,
    options,
    host,
    agents: () =>
      agentRulesSource(async () => ((await input.client.app.agents()) as { data?: unknown })?.data, log),
    findOrigin: (store, config) =>
      originFinder({ client: input.client, store, limits: limitsOf(config), log, sourceAt: sourceAtFork }),
  })
  if (!runtime) return {}
  const { config, sessions, guard } = runtime

  /** Prompt families already warned about (a passage moved in the host's wording): each once per process. */
  const warnedFamilies = new Set<PromptFamily>()

  const hooks: Hooks = {
    tool: { [TODO_TOOL]: todoTool(runtime.toolDeps) },

    config: guard("config", async (cfg) => {
      const c = cfg as Record<string, unknown> & {
        command?: Record<string, unknown>
        skills?: { paths?: string[] }
        permission?: unknown
        agent?: unknown
      }
      c.command = {
        ...(c.command ?? {}),
        todo: {
          template: "$ARGUMENTS",
          description: COMMAND_DESCRIPTION,
        },
      }
      if (offersSkill(config.mode))
        c.skills = { ...(c.skills ?? {}), paths: [...(c.skills?.paths ?? []), SKILLS_DIR] }
      // The host drops a tool whose last matching permission rule is a deny: one last in every agent's rules.
      if (hostTodoToolHidden(config)) {
        const denied = toolDeniedEverywhere(c, HOST_TODO_TOOL)
        c.permission = denied.permission
        const agents = c.agent as Record<string, Record<string, unknown>> | undefined
        for (const [name, permission] of denied.agents)
          if (agents?.[name]) agents[name].permission = permission
      }
    }),

    "chat.message": guard("chat.message", async (hookInput, output) => {
      const user = decodeUser(hookInput as Record<string, unknown>, output.message)
      const tools = decodeTools(output.message)
      const messageID = typeof output.message?.id === "string" ? output.message.id : undefined
      const command = commandMarkOf(output.parts)
      const text = await runtime.prompt(hookInput.sessionID, {
        type: "user.message",
        parts: decodeParts(output.parts),
        user,
        ...(tools ? { tools } : {}),
        ...(messageID ? { messageID } : {}),
        ...(command === undefined ? {} : { command }),
      })
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
      const { stale, inject: text } = await runtime.request(sessionID, decodeMessages(output.messages))
      applyStubs(output.messages, stale)
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
        const s = await sessions.known(hookInput.sessionID)
        callable = sessions.todoCallable(s)
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

    // Asked for every tool on every request, with no session: the description follows the newest prompt's model.
    "tool.definition": guard("tool.definition", async (hookInput, output) => {
      if (hookInput.toolID !== TODO_TOOL) return
      output.description = runtime.toolDescription()
      // The host sends the schema's "$schema" line on every request; the model has no use for it.
      const o = output as { jsonSchema?: unknown }
      if (isRecord(o.jsonSchema) && "$schema" in o.jsonSchema) {
        const { $schema: _, ...schema } = o.jsonSchema
        o.jsonSchema = schema
      }
    }),

    "experimental.session.compacting": guard("session.compacting", async (hookInput, output) => {
      const text = await runtime.compacting(hookInput.sessionID)
      if (text) output.context.push(text)
    }),

    "tool.execute.after": guard("tool.execute.after", async (hookInput) => {
      await runtime.toolFinished(hookInput.sessionID, hookInput.tool, true)
    }),

    "command.execute.before": guard("command.execute.before", async (hookInput, output) => {
      if (hookInput.command !== "todo") return
      const { report, list, mark } = await runtime.command(hookInput.sessionID, hookInput.arguments ?? "")
      // Visible (not synthetic) so the user sees what happened; the marker keeps the tracker
      // from counting it as a new prompt.
      // The list rides in the part's metadata for a sidebar that cannot read the store (attached remotely);
      // the command's mark rides beside it: the host keeps the part's metadata in the message it mints next,
      // and the edit settles on the message with its mark (rewind.ts), however many commands run at once.
      const carried = {
        list,
        version: CARRIED_LIST_VERSION,
        ...(mark === undefined ? {} : { command: mark }),
      }
      output.parts.splice(0, output.parts.length, {
        type: "text",
        text: commandReplyText(report),
        metadata: { [COMMAND_PART_KEY]: carried },
      } as never)
    }),

    event: guard("event", async ({ event }) => {
      const decoded = decodeBusEvent(event)
      if (decoded === undefined) return
      if ("malformed" in decoded) throw new Error(`malformed ${decoded.malformed}`)
      // A session's creation starts tracking it, and so does a removal (an undo committed after a restart
      // must still reach the stored history); the runtime adds a change of a session with a record.
      const { event: hostEvent } = decoded
      const start = hostEvent.type === "session.created" || hostEvent.type === "message.removed"
      await runtime.event(decoded.sessionID, hostEvent, start)
    }),
  }
  return hooks
}
