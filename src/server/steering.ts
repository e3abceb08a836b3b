// The host's own todo tool and prompt passages, for both hosts: the passages of the host's system prompt about
// todos steered to the `todo` tool (core/model/host-prompt.ts), each family whose wording moved warned about once
// per process, and the host's `todowrite` kept out of a request's tools, a tool editor and 1.18's permissions.

import type { Config } from "../core/config.ts"
import { isRecord } from "../core/list/result.ts"
import {
  HOST_TODO_TOOL,
  hostTodoToolHidden,
  type PromptFamily,
  type PromptHost,
  steeringOn,
  steerSystemPrompt,
} from "../core/model/host-prompt.ts"
import { toolDeniedEverywhere } from "../core/session/permission.ts"
import type { Log } from "./output.ts"
import type { Sessions } from "./sessions.ts"

/** One request's system texts, as the host hands them over, and what decides how they are steered. */
export interface SteerRequest {
  readonly host: PromptHost
  /** The texts the host's own prompt may open (1.18: every system text; 2: the first system part). */
  readonly system: readonly string[]
  readonly modelId: string
  readonly providerId?: string
  /** The session the request is for; without one (a request outside any session) `todo` counts as callable. */
  readonly sessionID?: string
  /** Whether the request offers `todo` at all (false: the passages are removed, not pointed at it). */
  readonly offered?: boolean
}

/** A tool editor as OpenCode 2 hands it to a registry callback; every member probed. */
export interface ToolEditor {
  readonly get?: (name: never) => unknown
  readonly list?: () => unknown
  readonly remove?: (name: never) => unknown
}

export interface Steering {
  /** The system texts after steering; undefined when steering is off (the texts stay as they are). */
  steer(request: SteerRequest): Promise<readonly string[] | undefined>
  /** Takes the host's todo tool out of a request's tools (a record by name), unless the settings keep it. */
  hideFromRequest(tools: unknown): void
  /** Takes it out of a tool editor where it is registered; `lacks` says once when the editor cannot remove it. */
  hideFromEditor(editor: ToolEditor, lacks: (what: string, effect: string) => void): void
  /** 1.18's config: a deny for it last in every agent's rules (the host then drops the tool). */
  hideFromConfig(config: { permission?: unknown; agent?: unknown }): void
}

export function createSteering(deps: { config: Config; sessions: Sessions; log: Log }): Steering {
  const { config, sessions, log } = deps
  /** Prompt families already warned about (a passage moved in the host's wording): each once per process. */
  const warnedFamilies = new Set<PromptFamily>()
  const hidden = hostTodoToolHidden(config)

  return {
    async steer(request) {
      if (!steeringOn(config)) return undefined
      let callable = true
      if (request.sessionID !== undefined) {
        // On 1.18 the parent is looked up before the session is judged; OpenCode 2's prompt hook has done so.
        const s =
          request.host === "1.18" ? await sessions.known(request.sessionID) : sessions.get(request.sessionID)
        callable = request.offered !== false && sessions.todoCallable(s)
      }
      const result = steerSystemPrompt({
        system: request.system,
        modelId: request.modelId,
        providerId: request.providerId ?? "",
        todoCallable: callable,
        warned: warnedFamilies,
        ...(request.host === "2" ? { host: "2" as const } : {}),
      })
      if (result.warning) {
        warnedFamilies.add(result.family)
        log("warn", result.warning)
      }
      return result.system
    },

    hideFromRequest(tools) {
      if (hidden && isRecord(tools) && HOST_TODO_TOOL in tools) delete tools[HOST_TODO_TOOL]
    },

    hideFromEditor(editor, lacks) {
      if (!hidden) return
      const listed = typeof editor.list === "function" ? editor.list() : undefined
      const present =
        typeof editor.get === "function"
          ? editor.get(HOST_TODO_TOOL as never) !== undefined
          : Array.isArray(listed) && listed.some((t) => isRecord(t) && (t.id ?? t.name) === HOST_TODO_TOOL)
      if (!present) return
      if (typeof editor.remove === "function") editor.remove(HOST_TODO_TOOL as never)
      else lacks("a tool editor with remove()", `its ${HOST_TODO_TOOL} is taken out of each request instead`)
    },

    hideFromConfig(c) {
      if (!hidden) return
      const denied = toolDeniedEverywhere(c, HOST_TODO_TOOL)
      c.permission = denied.permission
      const agents = c.agent as Record<string, Record<string, unknown>> | undefined
      for (const [name, permission] of denied.agents) if (agents?.[name]) agents[name].permission = permission
    },
  }
}
