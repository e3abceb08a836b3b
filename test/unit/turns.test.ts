// server/turns.ts on its own: what OpenCode 2's turns carry between hooks (the agent, the prompt's text for the
// turn, our synthetic messages, compaction, forks) and what each request gets from them, over recording deps.
import { describe, expect, test } from "vitest"
import type { History, PartRef } from "../../src/core/model/stale.ts"
import type { HostEvent } from "../../src/core/session/session.ts"
import type { SteerRequest } from "../../src/server/steering.ts"
import { createTurns, type TurnDeps, type TurnRequest } from "../../src/server/turns.ts"

const EMPTY: History = { length: 0, id: () => "", at: () => ({ id: "", role: "user", parts: [] }) }
const STALE: PartRef[] = [{ index: 0, messageID: "m0", partID: "p0", kind: "result" } as PartRef]

function recorder(answers: { prompt?: string; inject?: string; context?: string } = {}) {
  const calls = {
    prompt: [] as { sessionID: string; message: Extract<HostEvent, { type: "user.message" }> }[],
    request: [] as string[],
    compacting: [] as string[],
    event: [] as { sessionID: string; event: HostEvent }[],
    steer: [] as SteerRequest[],
  }
  const deps: TurnDeps = {
    async prompt(sessionID, message) {
      calls.prompt.push({ sessionID, message })
      return answers.prompt ?? ""
    },
    async request(sessionID) {
      calls.request.push(sessionID)
      return { stale: STALE, inject: answers.inject ?? "" }
    },
    async compacting(sessionID) {
      calls.compacting.push(sessionID)
      return answers.context ?? "the list"
    },
    async event(sessionID, event) {
      calls.event.push({ sessionID, event })
    },
    async steer(request) {
      calls.steer.push(request)
      return request.system.map((s) => `${s} (steered)`)
    },
    knownRules: () => [],
  }
  return { turns: createTurns(deps), calls }
}

/** A request of the given role; `seen` collects the sets of our messages its history was read with. */
function request(
  role: "primary" | "summarizer" | "aside" | "by-compaction",
  options: {
    offered?: boolean
    agent?: string
    system?: string
    seen?: (ReadonlySet<string> | undefined)[]
  } = {},
): TurnRequest {
  return {
    role: (compacting) => (role === "by-compaction" ? (compacting ? "summarizer" : "primary") : role),
    offered: options.offered ?? true,
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    history: (ours) => {
      options.seen?.push(ours)
      return EMPTY
    },
    ...(options.system === undefined
      ? {}
      : { system: { host: "2" as const, system: [options.system], modelId: "claude-sonnet-4" } }),
  }
}

const never = () => false

describe("a request", () => {
  test("an aside (a title) gets nothing and steps nothing", async () => {
    const { turns, calls } = recorder({ inject: "notice" })
    expect(await turns.request("s", request("aside", { system: "prompt" }))).toBeUndefined()
    expect(calls.request).toEqual([])
    expect(calls.steer).toEqual([])
  })

  test("one that does not offer todo is steered as such and gets no notice", async () => {
    const { turns, calls } = recorder({ inject: "notice" })
    const answer = await turns.request("s", request("primary", { offered: false, system: "prompt" }))
    expect(answer).toEqual({ stale: [], system: ["prompt (steered)"] })
    expect(calls.steer).toEqual([
      { host: "2", system: ["prompt"], modelId: "claude-sonnet-4", sessionID: "s", offered: false },
    ])
    expect(calls.request).toEqual([])
  })

  test("one that offers todo gets the stale parts and the notice, and no system where it has none", async () => {
    const { turns } = recorder({ inject: "notice" })
    expect(await turns.request("s", request("primary"))).toEqual({ stale: STALE, inject: "notice" })
  })

  test("its history is read with the ids of our synthetic messages for that session only", async () => {
    const { turns } = recorder()
    turns.note({ type: "ours", sessionID: "s", messageID: "r1" })
    turns.note({ type: "ours", sessionID: "other", messageID: "r2" })
    const seen: (ReadonlySet<string> | undefined)[] = []
    await turns.request("s", request("primary", { seen }))
    expect([...(seen[0] ?? [])]).toEqual(["r1"])
  })

  test("our synthetic messages are remembered up to a bound, the oldest dropped first", async () => {
    const { turns } = recorder()
    for (let i = 0; i < 513; i++) turns.note({ type: "ours", sessionID: "s", messageID: `r${i}` })
    const seen: (ReadonlySet<string> | undefined)[] = []
    await turns.request("s", request("primary", { seen }))
    expect(seen[0]?.size).toBe(512)
    expect(seen[0]?.has("r0")).toBe(false)
    expect(seen[0]?.has("r512")).toBe(true)
  })
})

describe("the turn's prompt", () => {
  test("what the core said with it stays on it in every request of the turn, until the turn ends", async () => {
    const { turns } = recorder({ prompt: "plan first" })
    await turns.prompt("s", { text: "fix it", messageID: "u1" })
    const said = { text: "plan first", messageID: "u1" }
    expect((await turns.request("s", request("primary")))?.said).toEqual(said)
    expect((await turns.request("s", request("primary")))?.said).toEqual(said)
    await turns.event("s", { type: "session.idle" }, never)
    expect((await turns.request("s", request("primary")))?.said).toBeUndefined()
  })

  test("an execution that ended before the prompt does not take it back", async () => {
    const { turns } = recorder({ prompt: "plan first" })
    await turns.prompt("s", { text: "fix it", messageID: "u1" })
    await turns.event("s", { type: "session.idle" }, (messageID) => messageID === "u1")
    expect((await turns.request("s", request("primary")))?.said).toEqual({
      text: "plan first",
      messageID: "u1",
    })
  })

  test("a prompt the core says nothing with takes back what the last one said", async () => {
    const answers = { prompt: "plan first" }
    const { turns, calls } = recorder(answers)
    await turns.prompt("s", { text: "one", messageID: "u1" })
    answers.prompt = ""
    await turns.prompt("s", { text: "two" })
    expect((await turns.request("s", request("primary")))?.said).toBeUndefined()
    expect(calls.prompt.map((c) => c.message)).toEqual([
      { type: "user.message", parts: [{ type: "text", text: "one" }], user: {}, messageID: "u1" },
      { type: "user.message", parts: [{ type: "text", text: "two" }], user: {} },
    ])
  })

  test("carries the agent: the session's own turn's, else the first one the host named", async () => {
    const { turns, calls } = recorder()
    turns.note({ type: "agent", sessionID: "s", agent: "build", selected: false })
    turns.note({ type: "agent", sessionID: "s", agent: "plan", selected: false })
    await turns.prompt("s", {})
    turns.note({ type: "agent", sessionID: "s", agent: "review", selected: true })
    await turns.prompt("s", {})
    await turns.request("s", request("primary", { agent: "docs" }))
    await turns.prompt("s", {})
    // The summarizer's request names the host's hidden agent, which is not the session's.
    await turns.request("s", request("summarizer", { agent: "compaction" }))
    await turns.prompt("s", {})
    expect(calls.prompt.map((c) => c.message.user)).toEqual([
      { agent: "build" },
      { agent: "review" },
      { agent: "docs" },
      { agent: "docs" },
    ])
  })
})

describe("a compaction", () => {
  test("a request while it runs is the summarizer's: it gets the list, no steering and no notice", async () => {
    const { turns, calls } = recorder({ inject: "notice", context: "the list" })
    turns.note({ type: "compaction", sessionID: "s", running: true })
    const answer = await turns.request("s", request("by-compaction", { system: "prompt" }))
    expect(answer).toEqual({ stale: STALE, summarizer: "the list" })
    expect(calls.steer).toEqual([])
    turns.note({ type: "compaction", sessionID: "s", running: false })
    expect(await turns.request("s", request("by-compaction"))).toEqual({ stale: STALE, inject: "notice" })
  })

  test("the summarizer served by the compaction hook gets nothing more from its request, once", async () => {
    const { turns, calls } = recorder({ context: "the list" })
    expect(await turns.compaction("s", () => EMPTY)).toEqual({ context: "the list", stale: STALE })
    expect(await turns.request("s", request("summarizer"))).toBeUndefined()
    expect(await turns.request("s", request("summarizer"))).toEqual({ stale: STALE, summarizer: "the list" })
    expect(calls.compacting).toEqual(["s", "s"])
  })

  test("a primary request after the hook ends its summarizer's turn: a later summarizer is served again", async () => {
    const { turns } = recorder({ context: "the list" })
    await turns.compaction("s", () => EMPTY)
    await turns.request("s", request("primary"))
    expect(await turns.request("s", request("summarizer"))).toEqual({ stale: STALE, summarizer: "the list" })
  })
})

describe("forks and deleted sessions", () => {
  test("a fork the host announced is remembered and starts as a new session; one learnt is only remembered", async () => {
    const { turns, calls } = recorder()
    await turns.forked("f", { parentID: "s", from: "m3" })
    turns.rememberFork("g", { parentID: "s" })
    expect(turns.fork("f")).toEqual({ parentID: "s", from: "m3" })
    expect(turns.fork("g")).toEqual({ parentID: "s" })
    expect(calls.event).toEqual([{ sessionID: "f", event: { type: "session.created" } }])
  })

  test("a deleted session forgets its agent, prompt text, our messages, compaction and fork", async () => {
    const { turns, calls } = recorder({ prompt: "plan first", context: "the list" })
    turns.note({ type: "agent", sessionID: "s", agent: "build", selected: true })
    turns.note({ type: "ours", sessionID: "s", messageID: "r1" })
    turns.note({ type: "compaction", sessionID: "s", running: true })
    await turns.forked("s", { parentID: "p" })
    await turns.prompt("s", { text: "fix it", messageID: "u1" })
    await turns.event("s", { type: "session.deleted" }, () => true)
    expect(turns.fork("s")).toBeUndefined()
    const seen: (ReadonlySet<string> | undefined)[] = []
    const answer = await turns.request("s", request("by-compaction", { seen }))
    expect(answer?.said).toBeUndefined()
    expect(answer?.summarizer).toBeUndefined()
    expect(seen).toEqual([undefined])
    await turns.prompt("s", {})
    expect(calls.prompt.at(-1)?.message.user).toEqual({})
    expect(calls.event.at(-1)).toEqual({ sessionID: "s", event: { type: "session.deleted" } })
  })
})
