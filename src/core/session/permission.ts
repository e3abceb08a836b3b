// Whether an agent may call a tool, by the permission rules as the host evaluates them. The ordered rules the
// host serves for the agent (GET /agent: defaults, global config, the agent's own config, `tools` switches
// already turned into deny rules), then the session's own rules (which a prompt's `tools` sets). Pure: rules
// in, "allow" | "ask" | "deny" out.

/*
 * The rules, as OpenCode 1.18 applies them:
 * - A rule is {permission, pattern, action}; the last rule that matches wins.
 * - Wildcards: `*` is any text, `?` any one character, the rest literal, anchored, case-sensitive, `\` read as
 *   `/`; a pattern ending in " *" also matches its bare prefix.
 * - The tool is left out of the request when the last rule whose permission matches the tool's name is a
 *   deny with pattern `*`; a deny with a narrower pattern leaves it in. A prompt whose `tools` map says
 *   `todo: false` leaves it out of that request too.
 * - A call is checked against the pattern `*`: the last rule matching both the name and `*` decides; with no
 *   match the host asks.
 * Rules we could not read (the host did not answer) count as allowing: the plugin then behaves as it always
 * did, rather than falling silent on a guess.
 */

import { isRecord } from "../list/result.ts"

export type Access = "allow" | "ask" | "deny"

export interface Rule {
  readonly permission: string
  readonly pattern: string
  readonly action: Access
}

/** Each agent's rules by agent name, as the host serves them. */
export type AgentRules = ReadonlyMap<string, readonly Rule[]>

// Rules beyond this come from a hostile or broken source; the last ones are kept, since the last match wins.
export const RULES_MAX = 1000

const ACTIONS: ReadonlySet<string> = new Set(["allow", "ask", "deny"])
const compiled = new Map<string, RegExp>()

/** The host's wildcard match: `text` against `pattern`. */
export function wildcardMatch(text: string, pattern: string): boolean {
  let re = compiled.get(pattern)
  if (re === undefined) {
    let source = pattern
      .replaceAll("\\", "/")
      .replace(/[.+^${}()|[\]\\]/g, "\\$&")
      .replace(/\*/g, ".*")
      .replace(/\?/g, ".")
    if (source.endsWith(" .*")) source = `${source.slice(0, -3)}( .*)?`
    re = new RegExp(`^${source}$`, "s")
    if (compiled.size > 500) compiled.clear()
    compiled.set(pattern, re)
  }
  return re.test(text.replaceAll("\\", "/"))
}

/** Rules decoded from what the host sent; undefined when it is not a list. Malformed rules are skipped. */
export function decodeRules(raw: unknown): Rule[] | undefined {
  if (!Array.isArray(raw)) return undefined
  const rules: Rule[] = []
  for (const item of raw.slice(-RULES_MAX))
    if (
      isRecord(item) &&
      typeof item.permission === "string" &&
      typeof item.pattern === "string" &&
      typeof item.action === "string" &&
      ACTIONS.has(item.action)
    )
      rules.push({ permission: item.permission, pattern: item.pattern, action: item.action as Access })
  return rules
}

/** Each agent's rules from GET /agent's answer; agents without a rule list are left out (their rules are unknown). */
export function decodeAgentRules(raw: unknown): Map<string, readonly Rule[]> {
  const agents = new Map<string, readonly Rule[]>()
  if (!Array.isArray(raw)) return agents
  for (const agent of raw) {
    if (!isRecord(agent) || typeof agent.name !== "string") continue
    const rules = decodeRules(agent.permission)
    if (rules !== undefined) agents.set(agent.name, rules)
  }
  return agents
}

function lastMatch(rules: readonly Rule[], test: (rule: Rule) => boolean): Rule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) if (test(rules[i]!)) return rules[i]
  return undefined
}

/**
 * What `agentRules` then `sessionRules` allow for `tool`. `agentRules` undefined: the agent's rules are
 * unknown. `messageTools`: the prompt's own `tools` map, when it had one.
 */
export function toolAccess(
  tool: string,
  agentRules: readonly Rule[] | undefined,
  sessionRules: readonly Rule[],
  messageTools?: Readonly<Record<string, boolean>>,
): Access {
  if (messageTools?.[tool] === false) return "deny"
  const rules = agentRules === undefined ? sessionRules : [...agentRules, ...sessionRules]
  const named = lastMatch(rules, (rule) => wildcardMatch(tool, rule.permission))
  if (named?.pattern === "*" && named.action === "deny") return "deny"
  const decided = lastMatch(
    rules,
    (rule) => wildcardMatch(tool, rule.permission) && wildcardMatch("*", rule.pattern),
  )
  if (decided !== undefined) return decided.action
  return agentRules === undefined ? "allow" : "ask"
}

/** The `permission` settings of a host config, global and per agent, that deny one tool to every agent. */
export interface DeniedSettings {
  readonly permission: unknown
  /** Each agent the config defines, by name: its new `permission` setting. */
  readonly agents: ReadonlyMap<string, unknown>
}

/**
 * A config's `permission` settings with `tool` denied for every agent, the user's own rules kept in their
 * order. 1.18 builds an agent's rules as the defaults, then the global setting, then the agent's own, each
 * object read in key order, and the last match wins: a deny in the global setting alone loses to an agent's
 * `"*": "allow"`, and one written before a catch-all loses to it. So the deny goes last in the global
 * setting and in each agent's, and a rule already naming the tool moves there. A setting that is neither an
 * action nor an object (the host refuses it) is left as it is.
 */
export function toolDeniedEverywhere(
  config: { permission?: unknown; agent?: unknown },
  tool: string,
): DeniedSettings {
  const agents = new Map<string, unknown>()
  if (isRecord(config.agent))
    for (const [name, agent] of Object.entries(config.agent))
      if (isRecord(agent)) agents.set(name, denyLast(agent.permission, tool))
  return { permission: denyLast(config.permission, tool), agents }
}

function denyLast(permission: unknown, tool: string): unknown {
  if (permission === undefined) return { [tool]: "deny" }
  if (typeof permission === "string") return { "*": permission, [tool]: "deny" }
  if (!isRecord(permission)) return permission
  const { [tool]: _named, ...rest } = permission
  return { ...rest, [tool]: "deny" }
}
