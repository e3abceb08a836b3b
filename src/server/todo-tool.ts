// The `todo` tool the agent calls: its argument schema and the shell of one call. The core decides
// (core/session/todo-call.ts); this asks the host what only the host knows, runs the core once under the
// session's lock (sessions.ts), performs the actions the core returns and answers.

import type { ToolDefinition } from "@opencode-ai/plugin"
import { z } from "zod"
import { type Config, limitsOf } from "../core/config.ts"
import { todoPartOf } from "../core/history/rewind.ts"
import { CARRIED_LIST_VERSION } from "../core/list/carried.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import { TOOL_DESCRIPTION } from "../core/model/prompts.ts"
import {
  answerCall,
  type CallRun,
  refusedCall,
  runCall,
  type TodoCallResult,
} from "../core/session/todo-call.ts"
import { withinMs } from "../shared/wait.ts"
import { historyOf } from "../store/record.ts"
import { type Computed, LIST_BUSY, LIST_FAILED } from "../store/store.ts"
import type { HostPort } from "./host-port.ts"
import type { Sessions, Tracked } from "./sessions.ts"

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

export type { TodoCallResult }

/** Where a call sits in the conversation, as far as the host said. */
export interface CallSite {
  readonly messageID?: string
  readonly callID?: string
}

/**
 * One call of the `todo` tool on the session's list (the steps and their order: core/session/todo-call.ts): the
 * refusal, `ask` (the host's approval, only for a call that may run), the part lookup, the core's run under the
 * store's lock, then the actions it returns and the answer. Never throws for a bad call: a failure is an answer
 * the model can act on.
 */
export async function runTodoCall(
  deps: TodoCallDeps,
  sessionID: string,
  args: unknown,
  site: CallSite,
  ask?: () => Promise<void>,
): Promise<TodoCallResult> {
  const { host, config, sessions } = deps
  const limits = limitsOf(config)
  // The refusal needs only what the session is; its list is read only for a call that runs, after approval.
  const known = await sessions.known(sessionID)
  const refused = refusedCall(known.state.facts, known.list)
  if (refused !== undefined) return refused
  if (ask) await ask()
  const s = await sessions.open(known)
  const call = await callAnchor(host, s, site)
  // One run of the core per call: what it computed comes back with the snapshot it left.
  const { snapshot, value: run } = await sessions.update(s, (current): Computed<CallRun> => {
    const { next, run } = runCall({ list: current.list, history: historyOf(current) }, args, call, limits)
    return next === undefined ? { value: run } : { next: { ...current, ...next }, value: run }
  })
  // s.stamp stays the one the sync took before this read; our own write moves the stamp, so the next hook
  // reads the record once more instead of missing another writer.
  const { actions, output } = answerCall(run, { busy: snapshot.busy === true, list: s.list }, config, {
    busy: LIST_BUSY,
    failed: LIST_FAILED,
  })
  for (const action of actions) {
    if (action.type === "warn") host.log("warn", action.message)
    else if (action.type === "toast") host.toast(action.toast, s.id)
    else await sessions.step(s, action.event)
  }
  return output
}

/**
 * Where the call is in the conversation, so that an undo of its turn (or of its part) takes it back. The host
 * announces the call's part before it runs the call, and the server takes the announcement as it arrives
 * (session.ts `stepsOnArrival`): the host is asked only when the announcement has not come.
 */
async function callAnchor(host: HostPort, s: Tracked, site: CallSite) {
  const { callID, messageID } = site
  if (typeof callID !== "string" || typeof messageID !== "string") return undefined
  return {
    message: messageID,
    callID,
    part:
      todoPartOf(s.state.facts.rewind, callID)?.partID ?? (await lookupPart(host, s.id, messageID, callID)),
  }
}

/** The tool as OpenCode 1.18 registers it (the `tool` hook): zod arguments, `ctx.ask` for `todo: "ask"`. */
export function todoTool(deps: TodoCallDeps): ToolDefinition {
  return {
    description: TOOL_DESCRIPTION,
    args: toolArgs,
    async execute(args, ctx) {
      // The 1.18 typings omit callID, which the runtime context carries.
      const callID = (ctx as { callID?: unknown }).callID
      const site = {
        ...(typeof ctx.messageID === "string" ? { messageID: ctx.messageID } : {}),
        ...(typeof callID === "string" ? { callID } : {}),
      }
      // The host asks for plugin tools only when they ask: with `todo: "ask"` the user approves the call
      // first (never a refused one). A refusal throws the host's own error, which ends the turn as for any tool.
      const ask =
        typeof ctx.ask === "function"
          ? () => ctx.ask({ permission: TODO_TOOL, patterns: ["*"], always: ["*"], metadata: {} })
          : undefined
      const r = await runTodoCall(deps, ctx.sessionID, args, site, ask)
      if (r.refused) return r.output
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
