// The server plugin's hooks for OpenCode 1.18: registers the `todo` tool (todo-tool.ts), the /todo command
// and the todo-discipline skill; decodes each hook and event (host-events.ts), steps the core session
// (sessions.ts, core/session/session.ts) and performs the actions it returns. No decision about when to
// speak is made here.

import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Hooks, Plugin } from "@opencode-ai/plugin"
import { type Config, limitsOf, STORED_LIMITS } from "../core/config.ts"
import { samePoint } from "../core/history/rewind.ts"
import { CARRIED_LIST_VERSION, COMMAND_PART_KEY } from "../core/list/carried.ts"
import { COMMAND_DESCRIPTION } from "../core/list/command.ts"
import { parseSnapshot } from "../core/list/parse.ts"
import { TODO_TOOL } from "../core/list/words.ts"
import { type PromptFamily, steeringOn, steerSystemPrompt } from "../core/model/host-prompt.ts"
import { commandReplyText } from "../core/model/prompts.ts"
import type { HostEvent, SessionAction } from "../core/session/session.ts"
import { todoDir } from "../shared/paths.ts"
import { loadSettings } from "../shared/settings.ts"
import { createStore, type Store } from "../store/store.ts"
import { agentRulesSource } from "./agent-rules.ts"
import { runCommand } from "./command-runner.ts"
import {
  applyStubs,
  decodeBusEvent,
  decodeMessages,
  decodeParts,
  decodeTools,
  decodeUser,
} from "./host-events.ts"
import { sawRemoved } from "./host-facts.ts"
import { originFinder, sourceAtFork } from "./origin.ts"
import { makeLogger, showToast } from "./output.ts"
import { type Tracked, trackSessions } from "./sessions.ts"
import { todoTool } from "./todo-tool.ts"

// The package's skills folder: beside dist/ when built (dist/server.mjs), two levels up when the source
// runs directly (src/server/hooks.ts, in tests).
const HERE = dirname(fileURLToPath(import.meta.url))
const SKILLS_DIR =
  [join(HERE, "..", "skills"), join(HERE, "..", "..", "skills")].find((dir) =>
    existsSync(join(dir, "todo-discipline")),
  ) ?? join(HERE, "..", "skills")

export { toolArgs } from "./todo-tool.ts"

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
  const agents = agentRulesSource(input.client, log)
  const findOrigin = originFinder({ client: input.client, store, limits, log, sourceAt: sourceAtFork })
  const sessions = trackSessions({ client: input.client, store, config, agents, log, findOrigin })
  const { step, syncFromStore, resolveParent } = sessions

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
    tool: { [TODO_TOOL]: todoTool({ client: input.client, config, sessions, log }) },

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
      const s = sessions.get(hookInput.sessionID)
      await sessions.inOrder(s, async () => {
        await syncFromStore(s)
        await resolveParent(s)
        await agents.awaitBriefly()
        const parts = decodeParts(output.parts)
        const user = decodeUser(hookInput as Record<string, unknown>, output.message)
        const tools = decodeTools(output.message)
        const messageID = typeof output.message?.id === "string" ? output.message.id : undefined
        const message: HostEvent = {
          type: "user.message",
          parts,
          user,
          ...(tools ? { tools } : {}),
          ...(messageID ? { messageID } : {}),
        }
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
      })
    }),

    "experimental.chat.messages.transform": guard("messages.transform", async (_input, output) => {
      const lastMessage = output.messages.at(-1)
      const sessionID = (lastMessage?.info as { sessionID?: string } | undefined)?.sessionID
      if (!lastMessage || !sessionID) return
      const s = sessions.get(sessionID)
      await syncFromStore(s)
      // Our stale notices and superseded todo results go out as a one-line stub (request only).
      const stubs = sessions.stubs(s, decodeMessages(output.messages))
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
        const s = sessions.get(hookInput.sessionID)
        await resolveParent(s)
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

    "experimental.session.compacting": guard("session.compacting", async (hookInput, output) => {
      const s = sessions.get(hookInput.sessionID)
      await syncFromStore(s)
      const text = joined(await step(s, { type: "compacting" }), "inject")
      if (text) output.context.push(text)
    }),

    "tool.execute.after": guard("tool.execute.after", async (hookInput) => {
      await step(sessions.get(hookInput.sessionID), { type: "tool.finished", tool: hookInput.tool, ok: true })
    }),

    "command.execute.before": guard("command.execute.before", async (hookInput, output) => {
      if (hookInput.command !== "todo") return
      const s = sessions.get(hookInput.sessionID)
      await sessions.inOrder(s, async () => {
        await syncFromStore(s)
        // The host runs this hook before it commits a pending undo: the command sees the reverted list.
        const before = s.list
        const { report, list } = await runCommand(
          { store, directory: input.directory, limits },
          s.id,
          before,
          hookInput.arguments ?? "",
          await sessions.editAnchor(s),
        )
        await sessions.commandRan(s, before, list)
        // Visible (not synthetic) so the user sees what happened; the marker keeps the tracker
        // from counting it as a new prompt.
        // The list rides in the part's metadata for a sidebar that cannot read the store (attached remotely).
        output.parts.splice(0, output.parts.length, {
          type: "text",
          text: commandReplyText(report),
          metadata: { [COMMAND_PART_KEY]: { list: s.list, version: CARRIED_LIST_VERSION } },
        } as never)
      })
    }),

    event: guard("event", async ({ event }) => {
      const decoded = decodeBusEvent(event)
      if (decoded === undefined) return
      if ("malformed" in decoded) throw new Error(`malformed ${decoded.malformed}`)
      // A session's creation starts tracking it, and so does a removal (an undo committed after a restart
      // must still reach the stored history), and a change of a session with a record (a redo after a restart);
      // other events about unknown sessions are not ours to keep.
      const { event: hostEvent } = decoded
      const tracks =
        hostEvent.type === "session.created" ||
        hostEvent.type === "message.removed" ||
        (hostEvent.type === "session.updated" && (await store.stamp(decoded.sessionID)) !== undefined)
      const s = tracks ? sessions.get(decoded.sessionID) : sessions.find(decoded.sessionID)
      if (!s) return
      await sessions.inOrder(s, () => followEvent(s, hostEvent))
    }),
  }

  /** One host event, in its turn (`inOrder`). */
  async function followEvent(s: Tracked, hostEvent: HostEvent): Promise<void> {
    if (hostEvent.type === "session.idle") {
      await syncFromStore(s)
      await resolveParent(s)
    }
    // What the host says is kept first: the list in effect is worked out from it (core/history/effect.ts).
    if (hostEvent.type === "session.updated") s.host.revert = hostEvent.revert
    if (hostEvent.type === "message.removed")
      sawRemoved(
        s.host,
        hostEvent.partID === undefined
          ? { message: hostEvent.messageID }
          : { message: hostEvent.messageID, part: hostEvent.partID },
      )
    // Notes queued before an undo describe what it takes back: they are read before it is followed. The
    // record is read (a stat when unchanged) before the revert it holds is compared with the host's.
    const rewinding = hostEvent.type === "message.removed" || hostEvent.type === "session.updated"
    if (rewinding) await syncFromStore(s)
    await step(s, hostEvent)
    // The record may hold a revert this process never saw (another window's undo, one made before a restart):
    // the event is the moment to bring it to what the host says, whatever this process saw before.
    if (rewinding && !samePoint(s.storedRevert ?? null, s.host.revert ?? null)) await sessions.agree(s)
  }
  return hooks
}
