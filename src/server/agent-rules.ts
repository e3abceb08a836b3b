// Every agent's permission rules as the host serves them (GET /agent on 1.18, the agent list on 2). Read once
// per load of the plugin: a change of config reloads the plugin, so they are never stale. Until read, agents
// count as allowed.

import { type AgentRules, decodeAgentRules } from "../core/session/permission.ts"
import { withinMs } from "../shared/wait.ts"
import type { Log } from "./output.ts"

// How long a prompt waits for the rules the first time; after that they are read in the background.
const AGENTS_WAIT_MS = 2_000

export interface AgentRulesSource {
  /** The rules read so far; undefined until the host answered. */
  current(): AgentRules | undefined
  /**
   * Waits for the rules at most AGENTS_WAIT_MS, and not at all while an earlier read is still under way:
   * a host slow to answer must not hold up the prompts. A failed read is tried again on the next call.
   */
  awaitBriefly(): Promise<void>
}

/**
 * `read` answers the host's agent list in 1.18's shape (`[{ name, permission: [{ permission, pattern, action }] }]`),
 * or anything else when it cannot say.
 */
export function agentRulesSource(read: () => Promise<unknown>, log: Log): AgentRulesSource {
  let agents: AgentRules | undefined
  let loading: Promise<void> | undefined
  const unreadable = "the host's agent list could not be read"
  const fallback = "the todo tool counts as allowed for every agent"

  function load(): Promise<void> {
    if (agents !== undefined) return Promise.resolve()
    loading ??= (async () => {
      try {
        const answer = await read()
        if (Array.isArray(answer)) agents = decodeAgentRules(answer)
        else log("warn", `${unreadable}; ${fallback}`)
      } catch (error) {
        log("warn", `${unreadable} (${error instanceof Error ? error.message : String(error)}); ${fallback}`)
      } finally {
        loading = undefined
      }
    })()
    return loading
  }

  return {
    current: () => agents,
    awaitBriefly() {
      if (loading !== undefined) return Promise.resolve()
      return withinMs(load(), AGENTS_WAIT_MS).then(() => {})
    },
  }
}
