// The `todo` tool the agent calls: its argument schema and its execution against the session's stored list.
// The core executes and formats; this module runs the core once under the session's lock (sessions.ts),
// reports the call to the session and answers.

import type { ToolDefinition } from "@opencode-ai/plugin"
import { z } from "zod"
import { type Config, limitsOf } from "../core/config.ts"
import { recordCall } from "../core/history/placement.ts"
import { todoPartOf } from "../core/history/rewind.ts"
import { CARRIED_LIST_VERSION } from "../core/list/carried.ts"
import { type ExecuteResult, execute } from "../core/list/execute.ts"
import type { TodoList } from "../core/list/types.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import { formatOutcome } from "../core/model/format.ts"
import { TOOL_DESCRIPTION } from "../core/model/prompts.ts"
import { todoRefusal } from "../core/session/session.ts"
import { listToasts } from "../core/session/toasts.ts"
import { historyOf } from "../store/record.ts"
import { type Computed, LIST_BUSY, LIST_FAILED } from "../store/store.ts"
import type { HostPort } from "./host-port.ts"
import type { Sessions } from "./sessions.ts"
import { withinMs } from "./wait.ts"

/** How long a call waits for the host to say which part holds it, when no announcement said so. */
const PART_LOOKUP_MS = 1000

/** The tool part that holds call `callID` of message `messageID`; undefined when the host does not answer in time. */
async function lookupPart(host: HostPort, sessionID: string, messageID: string, callID: string) {
  try {
    return await withinMs(host.partOf(sessionID, messageID, callID), PART_LOOKUP_MS)
  } catch {
    return undefined
  }
}

/** What the call's one run of the core computed, under the lock, on the stored list. */
interface Ran {
  readonly before: TodoList
  readonly result: ExecuteResult
  /** The call changed the list (the stale rule reads it as an update). */
  readonly changed: boolean
  /** What recording the call in the history warned of (a history cut short). */
  readonly warning?: string | undefined
}

const itemsField = z.array(z.string())
// Optional, so the schema spends no "required" on them: the core names a missing phase or items itself.
const phaseSpec = z.object({ phase: z.string().optional(), items: itemsField.optional() })

/**
 * The tool's argument schema, as lean as the model can still use it: it rides on every request.
 * Every field is optional so that a call without `op` reaches the core, which infers the op or
 * explains the accepted shapes; the host does not validate arguments and the core checks them all,
 * so `ops` entries are left open. The tool description says which op takes which field, so no field
 * carries a description of its own (tool-text.test.ts holds the two together).
 */
export const toolArgs = {
  // A string, not an enum of the op names: the description lists them already, on every request.
  op: z.string().optional(),
  task: z.string().optional(),
  phase: z.string().optional(),
  reason: z.string().optional(),
  items: itemsField.optional(),
  after: z.string().optional(),
  to: z.string().optional(),
  list: z.array(phaseSpec).optional(),
  ops: z.array(z.unknown()).optional(),
}

export interface TodoCallDeps {
  readonly host: HostPort
  readonly config: Config
  readonly sessions: Sessions
}

/** Where a call sits in the conversation, as far as the host said. */
export interface CallSite {
  readonly messageID?: string
  readonly callID?: string
}

/** What one call of the tool answers, whichever host asked: the text for the model and the list after it. */
export interface TodoCallResult {
  readonly ok: boolean
  /** The call changed the stored list (the stale rule reads it: core/stale.ts). */
  readonly changed: boolean
  readonly title: string
  readonly output: string
  readonly list: TodoList
  /** The store was busy or the change failed under its lock: the core's answer is not known. */
  readonly unstored?: true
}

/**
 * One call of the `todo` tool on the session's list: checks that the session may call it, runs the core once
 * under the store's lock, records where the call sits, reports it to the session and formats the answer.
 * Never throws for a bad call: a failure is an answer the model can act on.
 */
export async function runTodoCall(
  deps: TodoCallDeps,
  sessionID: string,
  args: unknown,
  site: CallSite,
): Promise<TodoCallResult> {
  const { host, config, sessions } = deps
  const limits = limitsOf(config)
  const s = await sessions.known(sessionID)
  const refusal = todoRefusal(s.state.facts)
  if (refusal !== undefined)
    return { ok: false, changed: false, title: "todo: refused", output: refusal, list: s.list }
  await sessions.open(s)
  // Where the call is in the conversation, so that an undo of its turn (or of its part) takes it back. The host
  // announces the call's part before it runs the call, and the server takes the announcement as it arrives
  // (session.ts `stepsOnArrival`): the host is asked only when the announcement has not come.
  const { callID, messageID } = site
  const call =
    typeof callID === "string" && typeof messageID === "string"
      ? {
          message: messageID,
          callID,
          part:
            todoPartOf(s.state.facts.rewind, callID)?.partID ??
            (await lookupPart(host, s.id, messageID, callID)),
        }
      : undefined
  // One run of the core per call: what it computed comes back with the snapshot it left.
  const { snapshot, value: ran } = await sessions.update(s, (current): Computed<Ran> => {
    const before = current.list
    const result = execute(before, args, limits)
    if (!result.ok || result.list === before) return { value: { before, result, changed: false } }
    const recorded = recordCall(historyOf(current), call ?? { message: "", callID: "" }, result.list, limits)
    const next = { ...current, list: recorded.list, history: recorded.history }
    return { next, value: { before, result, changed: true, warning: recorded.warning } }
  })
  if (ran?.warning) host.log("warn", ran.warning)
  // s.stamp stays the one the sync took before this read; our own write moves the
  // stamp, so the next hook reads the record once more instead of missing another writer.
  if (snapshot.busy || ran === undefined) {
    await sessions.step(s, { type: "todo.finished", ok: false, ops: [] })
    // No value and not busy: the change threw, and the store said why in its warning.
    const error = snapshot.busy ? LIST_BUSY : LIST_FAILED
    const title = snapshot.busy ? "todo: busy" : "todo: error"
    return { ok: false, changed: false, title, output: `Error: ${error}`, list: s.list, unstored: true }
  }
  const { before, result: outcome, changed } = ran
  for (const toast of listToasts(before, s.list, config)) host.toast(toast, s.id)
  // The ops as the core parsed them: a call without "op" has its op inferred from its shape.
  await sessions.step(s, {
    type: "todo.finished",
    ok: outcome.ok,
    ops: outcome.ok ? outcome.ops.map((op) => op.op) : [],
  })
  const output = formatOutcome(before, outcome)
  return {
    ok: outcome.ok,
    changed,
    title: outcome.ok ? output.split("\n")[0]!.slice(0, 80) : "todo: error",
    output,
    list: s.list,
  }
}

/** The tool as OpenCode 1.18 registers it (the `tool` hook): zod arguments, `ctx.ask` for `todo: "ask"`. */
export function todoTool(deps: TodoCallDeps): ToolDefinition {
  return {
    description: TOOL_DESCRIPTION,
    args: toolArgs,
    async execute(args, ctx) {
      const s = await deps.sessions.known(ctx.sessionID)
      const refusal = todoRefusal(s.state.facts)
      if (refusal !== undefined) return refusal
      // The host asks for plugin tools only when they ask: with `todo: "ask"` the user approves the call
      // first. A refusal throws the host's own error, which ends the turn as for any tool.
      if (typeof ctx.ask === "function")
        await ctx.ask({ permission: TODO_TOOL, patterns: ["*"], always: ["*"], metadata: {} })
      // The 1.18 typings omit callID, which the runtime context carries.
      const callID = (ctx as { callID?: unknown }).callID
      const r = await runTodoCall(deps, ctx.sessionID, args, {
        ...(typeof ctx.messageID === "string" ? { messageID: ctx.messageID } : {}),
        ...(typeof callID === "string" ? { callID } : {}),
      })
      return {
        title: r.title,
        output: r.output,
        // The stale rule (core/model/stale.ts) reads `ok` (a success supersedes earlier results) and `changed` (an update).
        metadata: r.unstored
          ? { ok: false, list: r.list, version: CARRIED_LIST_VERSION }
          : { ok: r.ok, changed: r.changed, list: r.list, version: CARRIED_LIST_VERSION },
      } as never
    },
  }
}
