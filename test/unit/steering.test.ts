// server/steering.ts on its own: which session facts a request's steering reads on each host, the warned
// families kept per process, and the host's todowrite taken out of a request, a tool editor and 1.18's config.
import { describe, expect, test } from "vitest"
import { type Config, DEFAULT_CONFIG } from "../../src/core/config.ts"
import type { Sessions, Tracked } from "../../src/server/sessions.ts"
import { createSteering, type SteerRequest } from "../../src/server/steering.ts"
import { ANTHROPIC_2 } from "../fixtures/v2-prompts.ts"

/** The opening of the host's anthropic prompt, with none of the anchors steering looks for. */
const MOVED = "You are OpenCode, the best coding agent on the planet.\n\n# Planning\nCall TodoWrite often."
const PLAIN = "You review code. Be strict."

/** Sessions as steering reads them: which are subagents (refused), and which were asked through which door. */
function sessionsOf(subagents: readonly string[]) {
  const asked: string[] = []
  const sessions = {
    get: (id: string) => {
      asked.push(`get ${id}`)
      return { id } as Tracked
    },
    known: async (s: string | Tracked) => {
      asked.push(`known ${typeof s === "string" ? s : s.id}`)
      return { id: typeof s === "string" ? s : s.id } as Tracked
    },
    todoCallable: (s: Tracked) => !subagents.includes(s.id),
  } as unknown as Sessions
  return { sessions, asked }
}

function steeringWith(config: Partial<Config> = {}, subagents: readonly string[] = []) {
  const logged: string[] = []
  const { sessions, asked } = sessionsOf(subagents)
  const steering = createSteering({
    config: { ...DEFAULT_CONFIG, ...config },
    sessions,
    log: (level, message) => logged.push(`${level}: ${message}`),
  })
  return { steering, logged, asked }
}

const request = (over: Partial<SteerRequest> = {}): SteerRequest => ({
  host: "1.18",
  system: [PLAIN],
  modelId: "claude-sonnet-4",
  ...over,
})

describe("steering a request", () => {
  test("is off while the host's todowrite is kept or the setting says so: the texts stay as they are", async () => {
    for (const config of [{ keepTodowrite: true }, { steerHostPrompt: false }]) {
      const { steering, asked } = steeringWith(config)
      expect(await steering.steer(request({ sessionID: "s" }))).toBeUndefined()
      expect(asked).toEqual([])
    }
  })

  test("on 1.18 the session's parent is looked up first; on OpenCode 2 the session is read as tracked", async () => {
    const { steering, asked } = steeringWith()
    await steering.steer(request({ sessionID: "a" }))
    await steering.steer(request({ host: "2", sessionID: "b" }))
    await steering.steer(request())
    expect(asked).toEqual(["known a", "get b"])
  })

  test("points the host's passages at todo only for a request that offers it in a session that may call it", async () => {
    const { steering } = steeringWith({}, ["sub"])
    const steer = async (over: Partial<SteerRequest>) =>
      (await steering.steer(request({ host: "2", system: [ANTHROPIC_2], ...over })))?.[0] ?? ""
    const TODO = /`todo`|todo tool/
    for (const steered of [await steer({ sessionID: "main" }), await steer({})]) {
      expect(steered).not.toMatch(/TodoWrite/)
      expect(steered).toMatch(TODO)
    }
    for (const steered of [
      await steer({ sessionID: "sub" }),
      await steer({ sessionID: "main", offered: false }),
    ]) {
      expect(steered).not.toMatch(/TodoWrite/)
      expect(steered).not.toMatch(TODO)
    }
  })

  test("a family whose wording moved is warned about once per process, whichever session", async () => {
    const { steering, logged } = steeringWith()
    const first = await steering.steer(request({ system: [MOVED], sessionID: "a" }))
    await steering.steer(request({ system: [MOVED], sessionID: "b" }))
    expect(first).toEqual([MOVED])
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatch(/^warn: .*anthropic/)
  })

  test("a moved wording warns whether or not the session may call todo", async () => {
    const { steering, logged } = steeringWith({}, ["sub"])
    await steering.steer(request({ system: [MOVED], sessionID: "sub" }))
    await steering.steer(request({ system: [MOVED], offered: false }))
    expect(logged).toHaveLength(1)
  })
})

describe("hiding the host's todowrite", () => {
  test("from a request's tools, unless the settings keep it", () => {
    const tools = { todowrite: {}, todo: {}, read: {} }
    steeringWith().steering.hideFromRequest(tools)
    expect(Object.keys(tools)).toEqual(["todo", "read"])
    const kept = { todowrite: {}, todo: {} }
    steeringWith({ keepTodowrite: true }).steering.hideFromRequest(kept)
    expect(Object.keys(kept)).toEqual(["todowrite", "todo"])
    for (const odd of [undefined, null, "todowrite", ["todowrite"]])
      expect(() => steeringWith().steering.hideFromRequest(odd)).not.toThrow()
  })

  test("from a tool editor: removed where listed, said once where the editor cannot remove it", () => {
    const removed: string[] = []
    const lacks: string[] = []
    const say = (what: string, effect: string) => lacks.push(`${what}: ${effect}`)
    const { steering } = steeringWith()
    steering.hideFromEditor(
      { get: (n) => (n === "todowrite" ? {} : undefined), remove: (n) => removed.push(n) },
      say,
    )
    steering.hideFromEditor({ list: () => [{ id: "todowrite" }], remove: (n) => removed.push(n) }, say)
    steering.hideFromEditor({ list: () => [{ name: "todowrite" }] }, say)
    steering.hideFromEditor({ list: () => [{ id: "read" }], remove: (n) => removed.push(n) }, say)
    steering.hideFromEditor({ get: () => undefined }, say)
    expect(removed).toEqual(["todowrite", "todowrite"])
    expect(lacks).toEqual(["a tool editor with remove(): its todowrite is taken out of each request instead"])
    steeringWith({ keepTodowrite: true }).steering.hideFromEditor({ list: () => [{ id: "todowrite" }] }, say)
    expect(lacks).toHaveLength(1)
  })

  test("from 1.18's config: denied last in the global rules and in every agent's", () => {
    const config = {
      permission: { "*": "allow", todowrite: "allow" } as unknown,
      agent: { build: { permission: "allow" }, plan: { model: "m" } } as unknown,
    }
    steeringWith().steering.hideFromConfig(config)
    expect(config.permission).toEqual({ "*": "allow", todowrite: "deny" })
    expect(Object.keys(config.permission as object)).toEqual(["*", "todowrite"])
    expect(config.agent).toEqual({
      build: { permission: { "*": "allow", todowrite: "deny" } },
      plan: { model: "m", permission: { todowrite: "deny" } },
    })
    const kept = { permission: "allow" as unknown }
    steeringWith({ keepTodowrite: true }).steering.hideFromConfig(kept)
    expect(kept.permission).toBe("allow")
  })
})
