// The server hooks as the host drives them: what the tracker is told about each hook and event.
import { afterEach, describe, expect, it } from "vitest"
import { type FakeHost, startHost } from "./fixtures/host.ts"

const hosts: FakeHost[] = []
afterEach(() => {
  for (const h of hosts.splice(0)) h.cleanup()
})

async function host(): Promise<FakeHost> {
  const h = await startHost()
  hosts.push(h)
  return h
}

const MODEL = { providerID: "mock", modelID: "m" }
const PLAN = { list: [{ phase: "Build", items: ["Write parser", "Test parser"] }] }

async function prompt(h: FakeHost, sessionID: string, text: string): Promise<void> {
  const message = { id: "msg_u1", sessionID, role: "user", agent: "build", model: MODEL }
  const parts = [{ id: "prt_u1", sessionID, messageID: message.id, type: "text", text }]
  await h.hooks["chat.message"]!({ sessionID, agent: "build", model: MODEL }, { message, parts } as never)
}

async function bash(h: FakeHost, sessionID: string, times: number): Promise<void> {
  for (let i = 0; i < times; i++)
    await h.hooks["tool.execute.after"]!(
      { tool: "bash", sessionID, callID: `bash_${i}`, args: {} },
      { title: "", output: "", metadata: {} },
    )
}

/** The text the plugin adds to the next main model request. */
async function nextRequest(h: FakeHost, sessionID: string): Promise<string> {
  const output = {
    messages: [{ info: { id: "msg_u1", sessionID, role: "user" }, parts: [] as { text?: string }[] }],
  }
  await h.hooks["experimental.chat.messages.transform"]!({}, output as never)
  return output.messages.flatMap((m) => m.parts.map((p) => p.text ?? "")).join("\n")
}

const NUDGE = "edits or commands since the todo list was last updated"

/** A session with a plan and twelve shell commands since the last todo update: a nudge is queued. */
async function nudgeQueued(): Promise<FakeHost> {
  const h = await host()
  await h.event("session.created", { info: { id: "s1" } })
  await prompt(h, "s1", "Fix the parser")
  await h.call("s1", PLAN)
  await bash(h, "s1", 12)
  return h
}

describe("the mid-run nudge", () => {
  it("goes out on the request after twelve shell commands without a todo update", async () => {
    expect(await nextRequest(await nudgeQueued(), "s1")).toContain(NUDGE)
  })

  it("is dropped by an update whose op the core infers from its shape ({phase, items}, no op)", async () => {
    const h = await nudgeQueued()
    const update = await h.call("s1", { phase: "Build", items: ["Write docs"] })
    expect(update.ok).toBe(true)
    expect(update.output).toContain('Added "Write docs"')
    expect(await nextRequest(h, "s1")).not.toContain(NUDGE)
  })
})

describe("the host's system prompt", () => {
  const CLAUDE = { id: "claude-sonnet-4", providerID: "mock", api: { id: "claude-sonnet-4" } }
  const PROMPT = [
    "# Tone",
    "Be brief.",
    "",
    "# Task Management",
    "Use the TodoWrite tools very often.",
    "",
    "# Doing tasks",
    "- Use the TodoWrite tool to plan the task if required",
    "",
    "IMPORTANT: Always use the TodoWrite tool to plan and track tasks.",
    "",
    "# Code References",
  ].join("\n")

  async function transform(h: FakeHost, sessionID: string, system = [PROMPT], model: object = CLAUDE) {
    const output = { system }
    await h.hooks["experimental.chat.system.transform"]!({ sessionID, model } as never, output)
    return output.system
  }

  it("points the passages at todo, editing the host's array in place", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "s1" } })
    const system = [PROMPT]
    const out = await transform(h, "s1", system)
    expect(out).toBe(system)
    expect(out[0]).not.toMatch(/TodoWrite/)
    expect(out[0]).toContain("IMPORTANT: Plan and track multi-step work with the `todo` tool.")
  })

  it("removes them in a subagent session, whose todo calls are refused", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "child", parentID: "s1" } })
    const [text] = await transform(h, "child")
    expect(text).not.toMatch(/TodoWrite|`todo`/)
    expect(text).toContain("# Tone\nBe brief.\n\n# Doing tasks")
  })

  it("leaves the prompt alone with todowrite kept or the key off", async () => {
    for (const options of [{ keepTodowrite: true }, { steerHostPrompt: false }]) {
      const h = await startHost({ pluginOptions: options })
      hosts.push(h)
      expect((await transform(h, "s1"))[0]).toBe(PROMPT)
    }
  })

  it("warns once through the host log when a known prompt lost its passages", async () => {
    const h = await host()
    const drifted = "# Planning\nCall TodoWrite often.\n\n# Code References"
    await transform(h, "s1", [drifted])
    await transform(h, "s2", [drifted])
    const warnings = h.logs.filter((l) => l.includes("anthropic system prompt"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^warn: .*Task Management section/)
  })
})
