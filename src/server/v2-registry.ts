// What the OpenCode 2 binding (v2.ts) puts in the host's registries: the `todo` tool's info (JSON Schema input,
// errors returned as results), the `/todo` command (no model turn), the todo-discipline skill and the server's
// side of the RPC the TUI talks to. Host facts: docs/opencode-2.md, "The binding".

import { readFileSync } from "node:fs"
import { join } from "node:path"
import { z } from "zod"
import { CARRIED_LIST_VERSION } from "../core/list/carried.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import { commandOutcomeText } from "../core/view/dialog.ts"
import type { TodoRpcEvents } from "../shared/v2-rpc.ts"
import type { Runtime } from "./runtime.ts"
import { SKILLS_DIR } from "./skills-dir.ts"
import { toolArgs } from "./todo-tool.ts"

/** Sends an RPC event to the TUI; never throws (a host without RPC is said once). */
export type EmitRpc = <K extends keyof TodoRpcEvents>(name: K, data: TodoRpcEvents[K]) => void

/** The tool's input, as JSON Schema: the same schema the 1.18 tool declares, converted once. */
export const TOOL_INPUT_SCHEMA: Record<string, unknown> = (() => {
  const { $schema: _, ...schema } = z.toJSONSchema(z.object(toolArgs)) as Record<string, unknown>
  return schema
})()

/**
 * The input the tool registry is given: the JSON Schema, also readable as a Standard Schema. OpenCode 2 builds
 * differ: 2.0.15 takes raw JSON Schema or anything with `~standard` (it then reads `~standard.jsonSchema.input` and
 * validates with `~standard.validate`), and another build reads `schema["~standard"].jsonSchema` of every tool, so a
 * bare JSON Schema broke each of its turns. The key is not enumerable: a host that sends the object as it is sends
 * plain JSON Schema. `validate` lets every call through, so a malformed call reaches the tool, whose errors say
 * what to send instead (the host's own "Invalid arguments" does not).
 */
export const TOOL_INPUT: Record<string, unknown> = (() => {
  const input = { ...TOOL_INPUT_SCHEMA }
  Object.defineProperty(input, "~standard", {
    enumerable: false,
    value: {
      version: 1,
      vendor: "opencode-todo",
      validate: (value: unknown) => ({ value }),
      jsonSchema: { input: () => TOOL_INPUT_SCHEMA, output: () => TOOL_INPUT_SCHEMA },
    },
  })
  return input
})()

/** The skill's name, description and body from its SKILL.md (the host has no skills-path hook on 2). */
export function readSkill(
  dir = SKILLS_DIR,
): { name: string; description: string; content: string } | undefined {
  try {
    const raw = readFileSync(join(dir, "todo-discipline", "SKILL.md"), "utf8")
    const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(raw)
    if (!match) return undefined
    const field = (name: string) => new RegExp(`^${name}:\\s*(.+)$`, "m").exec(match[1]!)?.[1]?.trim()
    const name = field("name")
    const description = field("description")
    if (!name || !description) return undefined
    return { name, description, content: match[2]!.trim() }
  } catch {
    return undefined
  }
}

/** The tool as the registry takes it: JSON Schema input, shown directly (not in code mode), its own permission. */
export function todoToolInfo(runtime: Runtime) {
  return {
    name: TODO_TOOL,
    // Registered once: `mode: "lean"` gives the lean text; `auto` cannot follow the model here (no per-request hook used).
    description: runtime.toolDescription(),
    input: TOOL_INPUT,
    options: { codemode: false, permission: TODO_TOOL },
    async execute(input: unknown, context: unknown) {
      const c = isRecord(context) ? context : {}
      if (typeof c.sessionID !== "string")
        return { content: "Error: the host gave no session for this call; nothing changed." }
      try {
        const r = await runtime.todoCall(c.sessionID, input, {
          ...(typeof c.messageID === "string" ? { messageID: c.messageID } : {}),
          ...(typeof c.id === "string" ? { callID: c.id } : {}),
        })
        return {
          content: r.output,
          // The stale rule reads `ok` and `changed`; the TUI reads `list`. There is no title field on 2.
          metadata: {
            title: r.title,
            ok: r.ok,
            changed: r.changed,
            list: r.list,
            version: CARRIED_LIST_VERSION,
          },
        }
      } catch (error) {
        // A throw would be a defect in the host: the model gets an error it can act on instead.
        return {
          content: `Error: the todo tool failed (${error instanceof Error ? error.message : String(error)}); nothing changed. Try the call again.`,
          metadata: { title: "todo: error", ok: false },
        }
      }
    },
  }
}

/** `/todo <verb> …` as a command: no model turn; the person is answered over RPC, the model on its next request. */
export function todoCommand(runtime: Runtime, emit: EmitRpc) {
  return async (invocation: unknown) => {
    const i = isRecord(invocation) ? invocation : {}
    if (typeof i.sessionID !== "string") return undefined
    const sessionID = i.sessionID
    const text = isRecord(i.prompt) && typeof i.prompt.text === "string" ? i.prompt.text : ""
    const reply = await runCommandForUser(runtime, sessionID, text)
    emit("reply", { sessionID, ...reply })
    return undefined
  }
}

/** Runs the command and words its outcome for the person who typed it; never throws. */
async function runCommandForUser(runtime: Runtime, sessionID: string, text: string) {
  try {
    const { report, list } = await runtime.command(sessionID, text, { ownMessage: false })
    return { ok: report.error === undefined, text: commandOutcomeText(report, list).message }
  } catch (error) {
    return { ok: false, text: `/todo failed: ${error instanceof Error ? error.message : String(error)}` }
  }
}

/** The server's side of the RPC (src/shared/v2-rpc.ts). */
export function rpcHandlers(runtime: Runtime) {
  return {
    async list(input: unknown) {
      const sessionID = isRecord(input) && typeof input.sessionID === "string" ? input.sessionID : ""
      if (!sessionID) return { list: [] }
      const s = runtime.sessions.get(sessionID)
      await runtime.sessions.open(s, { listOnly: true })
      return { list: s.list }
    },
    async run(input: unknown) {
      const i = isRecord(input) ? input : {}
      const sessionID = typeof i.sessionID === "string" ? i.sessionID : ""
      if (!sessionID) return { ok: false, text: "Open a session first: each session has its own todo list." }
      return runCommandForUser(runtime, sessionID, typeof i.text === "string" ? i.text : "")
    },
  }
}
