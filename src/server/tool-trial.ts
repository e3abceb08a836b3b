// The `todo` tool as the model meets it, for scripts/try-tool.mjs. Its description, its parameters as the
// host sends them, and one call run on a list and answered with the result text the model reads. A build
// entry of its own (dist/tool-trial.mjs, left out of the package), so the plugin entry exports only the
// plugin.

import { z } from "zod"
import { execute } from "../core/list/execute.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import type { TodoList } from "../core/list/types.ts"
import { formatOutcome } from "../core/model/format.ts"
import { LEAN_TOOL_DESCRIPTION, TOOL_DESCRIPTION } from "../core/model/prompts.ts"
import { toolArgs } from "./todo-tool.ts"

export { LEAN_TOOL_DESCRIPTION, TOOL_DESCRIPTION }

/** The tool's parameters as compact JSON, as the host writes them into a request (1.18: without "$schema"). */
export function toolParameters(): string {
  const { $schema: _, ...schema } = z.toJSONSchema(z.object(toolArgs), { io: "input" })
  return JSON.stringify(schema)
}

/** One call on a stored list (`null` for none): the text the model reads, and the list to store after it. */
export function tryCall(stored: unknown, args: unknown): { text: string; list: TodoList; ok: boolean } {
  const parsed =
    stored === null || stored === undefined ? { ok: true as const, value: [] } : parseSnapshot(stored)
  if (!parsed.ok) throw new Error(`the stored list does not read back: ${parsed.error}`)
  const outcome = execute(parsed.value, args)
  return { text: formatOutcome(parsed.value, outcome), list: outcome.list, ok: outcome.ok }
}
