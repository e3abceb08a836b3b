// The todo tool's permission as the host evaluates it: wildcards, last match wins, what removes the tool
// from a request, what a call is checked against, and rules decoded from what the host sends.
import { describe, expect, it } from "vitest"
import {
  decodeAgentRules,
  decodeRules,
  RULES_MAX,
  type Rule,
  toolAccess,
  toolDeniedEverywhere,
  wildcardMatch,
} from "../../src/core/session/permission.ts"

const rule = (permission: string, action: Rule["action"], pattern = "*"): Rule => ({
  permission,
  pattern,
  action,
})
const ALLOW_ALL = rule("*", "allow")

describe("wildcardMatch", () => {
  it.each([
    ["todo", "*", true],
    ["todo", "todo", true],
    ["todowrite", "todo*", true],
    ["todo", "todo*", true],
    ["todo", "tod?", true],
    ["todo", "to", false],
    ["todo", "Todo", false],
    ["todo", "t.do", false],
    ["a/b", "a\\b", true],
    ["git", "git *", true],
    ["git status", "git *", true],
    ["gitx", "git *", false],
    ["(x)", "(x)", true],
  ])("%j against %j: %s", (text, pattern, matches) => {
    expect(wildcardMatch(text, pattern)).toBe(matches)
  })
})

describe("toolAccess", () => {
  it.each<[string, Rule[] | undefined, Rule[], Record<string, boolean> | undefined, string]>([
    ["host defaults", [ALLOW_ALL, rule("todowrite", "deny")], [], undefined, "allow"],
    ["todo denied", [ALLOW_ALL, rule("todo", "deny")], [], undefined, "deny"],
    ["todo* denied", [ALLOW_ALL, rule("todo*", "deny")], [], undefined, "deny"],
    ["a narrower deny keeps it", [ALLOW_ALL, rule("todo", "deny", "foo/*")], [], undefined, "allow"],
    ["the last match wins", [rule("todo", "deny"), ALLOW_ALL], [], undefined, "allow"],
    [
      "everything denied, todo allowed",
      [ALLOW_ALL, rule("*", "deny"), rule("todo", "allow")],
      [],
      undefined,
      "allow",
    ],
    ["ask", [ALLOW_ALL, rule("todo", "ask")], [], undefined, "ask"],
    ["everything asks", [rule("*", "ask")], [], undefined, "ask"],
    ["no rule matches: the host asks", [rule("bash", "allow")], [], undefined, "ask"],
    [
      "session rules come last",
      [ALLOW_ALL, rule("todo", "deny")],
      [rule("todo", "allow")],
      undefined,
      "allow",
    ],
    ["a session deny", [ALLOW_ALL], [rule("todo", "deny")], undefined, "deny"],
    ["a prompt's tools", [ALLOW_ALL], [], { todo: false }, "deny"],
    ["a prompt's tools naming another tool", [ALLOW_ALL], [], { bash: false }, "allow"],
    ["unknown agent rules allow", undefined, [], undefined, "allow"],
    ["unknown agent rules, a session deny", undefined, [rule("todo", "deny")], undefined, "deny"],
    [
      "a one-character pattern decides the call",
      [ALLOW_ALL, rule("todo", "deny", "?")],
      [],
      undefined,
      "deny",
    ],
  ])("%s", (_name, agent, session, tools, access) => {
    expect(toolAccess("todo", agent, session, tools)).toBe(access)
  })
})

describe("decoding", () => {
  it("keeps well-formed rules in order and skips the rest", () => {
    expect(
      decodeRules([
        ALLOW_ALL,
        { permission: "todo", pattern: "*", action: "maybe" },
        null,
        rule("todo", "deny"),
      ]),
    ).toEqual([ALLOW_ALL, rule("todo", "deny")])
    expect(decodeRules({ edit: "allow" })).toBeUndefined()
  })

  it("keeps the last RULES_MAX rules of a runaway list", () => {
    const many = Array.from({ length: RULES_MAX + 5 }, (_, i) => rule(`t${i}`, "allow"))
    const decoded = decodeRules(many)!
    expect(decoded).toHaveLength(RULES_MAX)
    expect(decoded.at(-1)).toEqual(many.at(-1))
  })

  it("reads each agent's rules from GET /agent, leaving out agents in an older shape", () => {
    const agents = decodeAgentRules([
      { name: "build", permission: [ALLOW_ALL] },
      { name: "old", permission: { edit: "allow", bash: {} } },
      { permission: [] },
    ])
    expect([...agents.keys()]).toEqual(["build"])
    expect(decodeAgentRules({ data: [] }).size).toBe(0)
  })
})

describe("toolDeniedEverywhere", () => {
  it("denies the tool last, globally and in each agent's own setting, keeping every other rule in its order", () => {
    const denied = toolDeniedEverywhere(
      {
        permission: "ask",
        agent: {
          open: { permission: { "*": "allow" } },
          keen: { permission: { todowrite: "allow", bash: { "git *": "allow" }, "*": "allow" } },
          plain: { mode: "subagent" },
          odd: "not an agent",
        },
      },
      "todowrite",
    )
    expect(denied.permission).toEqual({ "*": "ask", todowrite: "deny" })
    expect([...denied.agents.keys()]).toEqual(["open", "keen", "plain"])
    expect(denied.agents.get("open")).toEqual({ "*": "allow", todowrite: "deny" })
    expect(Object.entries(denied.agents.get("keen") as object)).toEqual([
      ["bash", { "git *": "allow" }],
      ["*", "allow"],
      ["todowrite", "deny"],
    ])
    expect(denied.agents.get("plain")).toEqual({ todowrite: "deny" })
  })
  it("leaves a setting the host would refuse as it is", () => {
    expect(toolDeniedEverywhere({ permission: ["deny"], agent: { x: { permission: 3 } } }, "t")).toEqual({
      permission: ["deny"],
      agents: new Map([["x", 3]]),
    })
  })
})
