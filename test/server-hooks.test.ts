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

describe("toasts", () => {
  it("a nudge on the request that carries it, once", async () => {
    const h = await nudgeQueued()
    expect(h.toasts).toEqual([])
    await nextRequest(h, "s1")
    await nextRequest(h, "s1")
    expect(h.toasts.map((t) => t.message)).toEqual(["Nudged the agent to update its todo list."])
  })

  it("a task the agent blocks, with its reason; all done once", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "s1" } })
    await prompt(h, "s1", "Fix the parser")
    await h.call("s1", PLAN)
    await h.call("s1", { op: "block", task: "Write parser", reason: "needs the grammar" })
    expect(h.toasts).toEqual([
      { title: "The agent blocked a task", message: '"Write parser": needs the grammar', variant: "warning" },
    ])
    await h.call("s1", {
      ops: [
        { op: "unblock", task: "Write parser" },
        { op: "done", phase: "Build" },
      ],
    })
    await h.call("s1", { op: "view" })
    expect(h.toasts.slice(1)).toEqual([
      { title: "Todo", message: "All done: 2/2 tasks.", variant: "success" },
    ])
  })

  it("a completion reminder says how much is open", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "s1" } })
    await prompt(h, "s1", "Fix the parser")
    await h.call("s1", PLAN)
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.prompts).toHaveLength(1)
    expect(h.toasts.map((t) => t.message)).toEqual(["Reminded the agent: 2 tasks open."])
  })

  it("none with toasts: false", async () => {
    const h = await startHost({ todoJson: { toasts: false } })
    hosts.push(h)
    await h.event("session.created", { info: { id: "s1" } })
    await prompt(h, "s1", "Fix the parser")
    await h.call("s1", PLAN)
    await h.call("s1", { op: "block", task: "Write parser" })
    await h.call("s1", { op: "done", phase: "Build" })
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.toasts).toEqual([])
  })
})
