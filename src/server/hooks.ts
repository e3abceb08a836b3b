// The server plugin's binding to OpenCode 1.18: a table from each of its hooks to one runtime call (runtime.ts),
// with the hook's input decoded (host-events.ts) and the answer written back in 1.18's shapes. The `config` hook
// registers the /todo command and the todo-discipline skill; the `todo` tool is todo-tool.ts.

import type { Hooks, Plugin } from "@opencode-ai/plugin"
import { limitsOf } from "../core/config.ts"
import { CARRIED_LIST_VERSION, COMMAND_PART_KEY } from "../core/list/carried.ts"
import { COMMAND_DESCRIPTION } from "../core/list/command.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import { commandReplyText } from "../core/model/prompts.ts"
import { originFinder, sourceAtFork } from "../shared/origin.ts"
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
import { makeLogger } from "./output.ts"
import { type Runtime, startRuntime } from "./runtime.ts"
import { SKILLS_DIR } from "./skills-dir.ts"
import { todoTool } from "./todo-tool.ts"

export { toolArgs } from "./todo-tool.ts"

type Hook<K extends keyof Hooks> = NonNullable<Hooks[K]>
type Args<K extends keyof Hooks> = Hook<K> extends (...args: infer A) => unknown ? A : never
type In<K extends keyof Hooks> = Args<K>[0]
type Out<K extends keyof Hooks> = Args<K>[1]

export const server: Plugin = async (input, options) => {
  const log = makeLogger(input.client)
  const runtime = await startRuntime({
    directory: input.directory,
    options,
    host: v1Port(input.client, log),
    agents: () =>
      agentRulesSource(async () => ((await input.client.app.agents()) as { data?: unknown })?.data, log),
    findOrigin: (store, config) =>
      originFinder({ client: input.client, store, limits: limitsOf(config), log, sourceAt: sourceAtFork }),
  })
  if (!runtime) return {}
  const { guard } = runtime
  const on = <K extends keyof Hooks>(
    name: string,
    body: (runtime: Runtime, i: In<K>, o: Out<K>) => Promise<void>,
  ) => guard(name, (i: In<K>, o: Out<K>) => body(runtime, i, o)) as unknown as Hook<K>
  const hooks: Hooks = {
    tool: { [TODO_TOOL]: todoTool(runtime.toolDeps) },
    config: guard("config", async (cfg) => configure(runtime, cfg)),
    "chat.message": on<"chat.message">("chat.message", chatMessage),
    "experimental.chat.messages.transform": on<"experimental.chat.messages.transform">(
      "messages.transform",
      messagesTransform,
    ),
    // Title and compaction requests pass here too; they carry none of the passages and stay as they are.
    "experimental.chat.system.transform": on<"experimental.chat.system.transform">(
      "system.transform",
      systemTransform,
    ),
    "tool.definition": on<"tool.definition">("tool.definition", toolDefinition),
    "experimental.session.compacting": on<"experimental.session.compacting">(
      "session.compacting",
      async (rt, i, o) => {
        const text = await rt.compacting(i.sessionID)
        if (text) o.context.push(text)
      },
    ),
    "tool.execute.after": on<"tool.execute.after">("tool.execute.after", async (rt, i) =>
      rt.toolFinished(i.sessionID, i.tool, true),
    ),
    "command.execute.before": on<"command.execute.before">("command.execute.before", commandBefore),
    event: guard("event", async ({ event }) => {
      const decoded = decodeBusEvent(event)
      if (decoded === undefined) return
      if ("malformed" in decoded) throw new Error(`malformed ${decoded.malformed}`)
      await runtime.event(decoded.sessionID, decoded.event)
    }),
  }
  return hooks
}

/** `config`: the /todo command, the skill's path where the mode offers it, the host's todo tool denied. */
function configure(runtime: Runtime, cfg: unknown): void {
  const c = cfg as Record<string, unknown> & {
    command?: Record<string, unknown>
    skills?: { paths?: string[] }
    permission?: unknown
    agent?: unknown
  }
  c.command = { ...(c.command ?? {}), todo: { template: "$ARGUMENTS", description: COMMAND_DESCRIPTION } }
  if (runtime.offersSkill) c.skills = { ...(c.skills ?? {}), paths: [...(c.skills?.paths ?? []), SKILLS_DIR] }
  // The host drops a tool whose last matching permission rule is a deny: one last in every agent's rules.
  runtime.hostTodoTool.hideFromConfig(c)
}

/** `chat.message`: the prompt decoded; what the runtime attaches goes in as a synthetic part of it. */
async function chatMessage(runtime: Runtime, i: In<"chat.message">, output: Out<"chat.message">) {
  const user = decodeUser(i as Record<string, unknown>, output.message)
  const tools = decodeTools(output.message)
  const messageID = typeof output.message?.id === "string" ? output.message.id : undefined
  const command = commandMarkOf(output.parts)
  const text = await runtime.prompt(i.sessionID, {
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
    sessionID: i.sessionID,
    messageID: output.message.id,
    type: "text",
    text,
    synthetic: true,
  } as never)
}

/** `experimental.chat.messages.transform`: a model request's stubs and notice, in this request only. */
async function messagesTransform(
  runtime: Runtime,
  _input: unknown,
  output: Out<"experimental.chat.messages.transform">,
) {
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
}

/** `experimental.chat.system.transform`: the host's todo passages steered, in place (a new array is ignored). */
async function systemTransform(
  runtime: Runtime,
  i: In<"experimental.chat.system.transform">,
  output: Out<"experimental.chat.system.transform">,
) {
  const model = i.model as { id?: string; providerID?: string; api?: { id?: string } }
  const system = await runtime.steer({
    host: "1.18",
    system: output.system,
    modelId: model.api?.id ?? model.id ?? "",
    providerId: model.providerID ?? "",
    ...(i.sessionID ? { sessionID: i.sessionID } : {}),
  })
  system?.forEach((text, n) => {
    if (output.system[n] !== text) output.system[n] = text
  })
}

/** `tool.definition`, asked for every tool on every request with no session: the newest prompt's description. */
async function toolDefinition(runtime: Runtime, i: In<"tool.definition">, output: Out<"tool.definition">) {
  if (i.toolID !== TODO_TOOL) return
  output.description = runtime.toolDescription()
  // The host sends the schema's "$schema" line on every request; the model has no use for it.
  const o = output as { jsonSchema?: unknown }
  if (isRecord(o.jsonSchema) && "$schema" in o.jsonSchema) {
    const { $schema: _, ...schema } = o.jsonSchema
    o.jsonSchema = schema
  }
}

/** `command.execute.before`: /todo runs here; its reply replaces the command's parts. */
async function commandBefore(
  runtime: Runtime,
  i: In<"command.execute.before">,
  output: Out<"command.execute.before">,
) {
  if (i.command !== "todo") return
  const { report, list, mark } = await runtime.command(i.sessionID, i.arguments ?? "")
  // Visible (not synthetic) so the user sees what happened; the marker keeps the tracker from counting it as a
  // new prompt. The list rides in the part's metadata for a sidebar that cannot read the store (attached
  // remotely); the command's mark rides beside it: the host keeps the part's metadata in the message it mints
  // next, and the edit settles on the message with its mark (rewind.ts), however many commands run at once.
  const carried = { list, version: CARRIED_LIST_VERSION, ...(mark === undefined ? {} : { command: mark }) }
  output.parts.splice(0, output.parts.length, {
    type: "text",
    text: commandReplyText(report),
    metadata: { [COMMAND_PART_KEY]: carried },
  } as never)
}
