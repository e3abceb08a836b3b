// The server hooks as the host drives them: what the tracker is told about each hook and event.
import { describe, expect, it } from "vitest"
import {
  LEAN_TOOL_DESCRIPTION,
  MARKER,
  STALE_FAILED_STUB,
  STALE_RESULT_STUB,
  STALE_STUB,
  TOOL_DESCRIPTION,
} from "../../src/core/model/prompts.ts"
import { ALLOW_ALL, type FakeHost, fakeHosts } from "../fixtures/host.ts"

const host = fakeHosts()

const MODEL = { providerID: "mock", modelID: "m" }
const PLAN = { list: [{ phase: "Build", items: ["Write parser", "Test parser"] }] }

async function prompt(
  h: FakeHost,
  sessionID: string,
  text: string,
  agent = "build",
): Promise<{ text?: string }[]> {
  const message = { id: "msg_u1", sessionID, role: "user", agent, model: MODEL }
  const parts = [{ id: "prt_u1", sessionID, messageID: message.id, type: "text", text }]
  await h.hooks["chat.message"]!({ sessionID, agent, model: MODEL }, { message, parts } as never)
  return parts
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

/** Agents as GET /agent serves them: build may do anything; review has todo denied, careful asks for it. */
const AGENTS = [
  { name: "build", permission: [ALLOW_ALL] },
  { name: "review", permission: [ALLOW_ALL, { permission: "todo", pattern: "*", action: "deny" }] },
  { name: "careful", permission: [ALLOW_ALL, { permission: "todo", pattern: "*", action: "ask" }] },
]

describe("an agent that may not call todo", () => {
  it("gets no prelude, nudge or reminder; build in the same session does", async () => {
    const h = await host({ agents: AGENTS, pluginOptions: { eager: "preferred" } })
    await h.event("session.created", { info: { id: "s1" } })
    expect(await prompt(h, "s1", "Review the parser", "review")).toHaveLength(1)
    expect(await prompt(h, "s1", "Now fix it")).toHaveLength(2)
    await h.call("s1", PLAN)
    await prompt(h, "s1", "Go on reviewing", "review")
    await bash(h, "s1", 12)
    expect(await nextRequest(h, "s1")).not.toContain(NUDGE)
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.prompts).toHaveLength(0)
    await prompt(h, "s1", "Carry on")
    await bash(h, "s1", 12)
    expect(await nextRequest(h, "s1")).toContain(NUDGE)
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.prompts).toHaveLength(1)
  })

  it("a host that never answers GET /agent does not hold the prompt: every agent counts as allowed", async () => {
    const h = await host({ agents: () => new Promise(() => {}), pluginOptions: { eager: "preferred" } })
    await h.event("session.created", { info: { id: "s1" } })
    expect(await prompt(h, "s1", "Review the parser", "review")).toHaveLength(2)
    // The read still under way is not waited for again.
    expect(await prompt(h, "s1", "And the lexer", "review")).toHaveLength(1)
  })

  it("a host that never answers GET /session/:id does not hold the prompt: the session counts as top-level", async () => {
    const h = await host({ sessionInfo: () => new Promise(() => {}), pluginOptions: { eager: "preferred" } })
    // No session.created: the parent is unknown, so the first hook asks the host for it (and before the
    // deadline, every hook of the session would wait on that answer forever).
    await prompt(h, "s1", "Review the parser", "review")
    const reply = await h.call("s1", PLAN)
    expect(reply.ok).toBe(true)
    expect(reply.list).toHaveLength(PLAN.list.length)
  })

  it("follows the session's own rules from session.updated, and a prompt's tools", async () => {
    const h = await host({ agents: AGENTS })
    await h.event("session.created", { info: { id: "s1" } })
    await prompt(h, "s1", "Fix it")
    await h.call("s1", PLAN)
    const deny = [{ permission: "todo", pattern: "*", action: "deny" }]
    await h.event("session.updated", { info: { id: "s1", permission: deny } })
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.prompts).toHaveLength(0)
    await h.event("session.updated", { info: { id: "s1" } })
    // A prompt sent with tools: { todo: false } leaves the tool out of its turn.
    const message = {
      id: "msg_u2",
      sessionID: "s1",
      role: "user",
      agent: "build",
      model: MODEL,
      tools: { todo: false },
    }
    const parts = [{ id: "prt_u2", sessionID: "s1", messageID: message.id, type: "text", text: "Look only" }]
    await h.hooks["chat.message"]!({ sessionID: "s1", agent: "build", model: MODEL }, {
      message,
      parts,
    } as never)
    await bash(h, "s1", 12)
    expect(await nextRequest(h, "s1")).not.toContain(NUDGE)
    await prompt(h, "s1", "Go on")
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.prompts).toHaveLength(1)
  })

  it("asks the host before every call, so that todo: ask waits for the user", async () => {
    const h = await host({ agents: AGENTS })
    const asked: unknown[] = []
    const ctx = { ...h.ctx("s1"), ask: async (input: unknown) => void asked.push(input) }
    await h.hooks.tool!.todo!.execute(PLAN as never, ctx as never)
    expect(asked).toEqual([{ permission: "todo", patterns: ["*"], always: ["*"], metadata: {} }])
    const refused = { ...h.ctx("s1"), ask: async () => Promise.reject(new Error("The user rejected")) }
    await expect(h.hooks.tool!.todo!.execute({ op: "rm" } as never, refused as never)).rejects.toThrow(
      /rejected/,
    )
    expect((await h.store.read("s1")).list).toHaveLength(1)
  })
})

describe("stale messages in requests", () => {
  type Part = Record<string, unknown>
  const msg = (id: string, role: string, parts: Part[]) => ({ info: { id, sessionID: "s1", role }, parts })
  const text = (id: string, body: string, extra: Part = {}) => ({ id, type: "text", text: body, ...extra })
  const todoPart = (id: string, changed: boolean) => ({
    id,
    type: "tool",
    tool: "todo",
    state: { status: "completed", input: {}, metadata: { ok: true, changed, list: [] } },
  })

  it("our parts before a todo update go out as a stub, the same in every later request", async () => {
    const h = await host()
    const reminder = `${MARKER}\nYou stopped, but the todo list still has open tasks`
    const history = () => [
      msg("msg_1", "user", [text("p1", "Fix it"), text("p2", `${MARKER}\nprelude`, { synthetic: true })]),
      msg("msg_2", "assistant", [todoPart("p3", true)]),
      msg("msg_3", "user", [text("p4", reminder, { synthetic: true })]),
      msg("msg_4", "assistant", [todoPart("p5", false)]),
    ]
    const texts = async (messages: ReturnType<typeof history>) => {
      await h.hooks["experimental.chat.messages.transform"]!({}, { messages } as never)
      return messages.filter((m) => m.info.role === "user").flatMap((m) => m.parts.map((p) => p.text))
    }
    expect(await texts(history())).toEqual(["Fix it", STALE_STUB, reminder])
    const later = [...history(), msg("msg_5", "assistant", [todoPart("p6", true)])]
    expect(await texts(later)).toEqual(["Fix it", STALE_STUB, STALE_STUB])
    expect(
      await texts([
        ...later.slice(0, 4).map((m) => ({ ...m, parts: m.parts.map((p) => ({ ...p })) })),
        later[4]!,
      ]),
    ).toEqual(["Fix it", STALE_STUB, STALE_STUB])
  })
})

describe("superseded todo results in requests", () => {
  type Part = { id: string; type: string; tool?: string; state?: Record<string, unknown>; text?: string }
  const call = (id: string, input: unknown, output: string, ok: boolean): Part => ({
    id,
    type: "tool",
    tool: "todo",
    state: { status: "completed", input, output, metadata: { ok, changed: ok, list: [] } },
  })
  const stored = () => [
    {
      info: { id: "msg_1", sessionID: "s1", role: "user" },
      parts: [{ id: "p1", type: "text", text: "Go" }] as Part[],
    },
    {
      info: { id: "msg_2", sessionID: "s1", role: "assistant" },
      parts: [call("p2", PLAN, "Build (0/2)…", true)],
    },
    {
      info: { id: "msg_3", sessionID: "s1", role: "assistant" },
      parts: [call("p3", { op: "done", task: "Nope" }, 'Error: no task named "Nope".', false)],
    },
    {
      info: { id: "msg_4", sessionID: "s1", role: "assistant" },
      parts: [
        { id: "p4", type: "tool", tool: "bash", state: { status: "completed", input: {}, output: "ok" } },
        call("p5", { op: "done", task: "Write parser" }, 'Done "Write parser".', true),
      ],
    },
  ]
  const sent = async (h: FakeHost, messages: ReturnType<typeof stored>) => {
    await h.hooks["experimental.chat.messages.transform"]!({}, { messages } as never)
    return messages.flatMap((m) => m.parts.map((p) => [p.id, p.state?.output ?? p.text, p.state?.input]))
  }

  it("go out as a stub with their arguments intact; the newest result and other tools in full", async () => {
    const h = await host()
    const expected = [
      ["p1", "Go", undefined],
      ["p2", STALE_RESULT_STUB, PLAN],
      ["p3", STALE_FAILED_STUB, { op: "done", task: "Nope" }],
      ["p4", "ok", {}],
      ["p5", 'Done "Write parser".', { op: "done", task: "Write parser" }],
    ]
    expect(await sent(h, stored())).toEqual(expected)
    // Every request is built from fresh copies of the stored parts: the stubs are written again, the same.
    expect(await sent(h, stored())).toEqual(expected)
  })
})

describe("edits queued before a restart", () => {
  it("are spent by the resume notice and never come back after the next todo update", async () => {
    const h = await host()
    // A session from an earlier run: its list, and a note the TUI queued that no server delivered.
    const list = [
      {
        name: "Build",
        tasks: [
          { text: "Write parser", status: "in_progress" as const },
          { text: "Test parser", status: "pending" as const },
        ],
      },
    ]
    await h.store.update("s1", (current) => ({
      next: {
        ...current,
        list,
        edits: [{ lines: ['added "Test parser" to "Build" (pending)'], removed: [] }],
      },
    }))
    const parts = await prompt(h, "s1", "Go on")
    const attached = parts.map((p) => p.text ?? "").join("\n")
    expect(attached).toContain("restored from an earlier run")
    expect(attached).not.toContain("The user changed")
    expect((await h.store.read("s1")).edits).toEqual([])
    expect((await h.call("s1", { op: "done", task: "Write parser" })).ok).toBe(true)
    expect(await nextRequest(h, "s1")).not.toContain("The user changed")
  })
})

describe("the host's system prompt", () => {
  const CLAUDE = { id: "claude-sonnet-4", providerID: "mock", api: { id: "claude-sonnet-4" } }
  // Laid out as the host joins it: its prompt, its environment block, then the user's AGENTS.md.
  const ENVIRONMENT =
    "You are powered by the model named claude-sonnet-4. The exact model ID is mock/claude-sonnet-4"
  const AGENTS_MD =
    "Instructions from: /p/AGENTS.md\n# Task Management\nAll work is tracked in Linear. Never push to main."
  const HOST_PROMPT = [
    "You are OpenCode, the best coding agent on the planet.",
    "",
    "# Tone",
    "Be brief.",
    "",
    "# Task Management",
    "You have access to the TodoWrite tools. Use them very often.",
    "",
    "# Doing tasks",
    "- Use the TodoWrite tool to plan the task if required",
    "",
    "IMPORTANT: Always use the TodoWrite tool to plan and track tasks.",
    "",
    "# Code References",
  ].join("\n")
  const PROMPT = [HOST_PROMPT, ENVIRONMENT, AGENTS_MD].join("\n")

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
    expect(text?.endsWith(`\n${ENVIRONMENT}\n${AGENTS_MD}`)).toBe(true)
  })

  it("leaves an agent's own prompt and the user's AGENTS.md byte-identical, and logs nothing", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "s1" } })
    await h.event("session.created", { info: { id: "child", parentID: "s1" } })
    const own = ["You are a file search specialist.", ENVIRONMENT, AGENTS_MD].join("\n")
    for (const id of ["s1", "child"]) expect((await transform(h, id, [own]))[0]).toBe(own)
    expect(h.logs.filter((l) => l.startsWith("warn"))).toEqual([])
  })

  it("removes them for an agent whose rules deny or ask for todo, and points build at todo", async () => {
    const h = await host({ agents: AGENTS })
    await h.event("session.created", { info: { id: "s1" } })
    for (const agent of ["review", "careful"]) {
      await prompt(h, "s1", "Look at the parser", agent)
      const [text] = await transform(h, "s1")
      expect(text).not.toMatch(/TodoWrite|`todo`/)
    }
    await prompt(h, "s1", "Now fix it", "build")
    expect((await transform(h, "s1"))[0]).toContain("`todo`")
  })

  it("leaves the prompt alone with todowrite kept or the key off", async () => {
    for (const options of [{ keepTodowrite: true }, { steerHostPrompt: false }]) {
      const h = await host({ pluginOptions: options })
      expect((await transform(h, "s1"))[0]).toBe(PROMPT)
    }
  })

  it("warns once through the host log when a known prompt lost its passages", async () => {
    const h = await host()
    const drifted = `${HOST_PROMPT.replace("# Task Management", "# Planning")}\n${ENVIRONMENT}`
    await transform(h, "s1", [drifted])
    await transform(h, "s2", [drifted])
    const warnings = h.logs.filter((l) => l.includes("anthropic system prompt"))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(/^warn: .*Task Management section/)
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
    const h = await host({ todoJson: { toasts: false } })
    await h.event("session.created", { info: { id: "s1" } })
    await prompt(h, "s1", "Fix the parser")
    await h.call("s1", PLAN)
    await h.call("s1", { op: "block", task: "Write parser" })
    await h.call("s1", { op: "done", phase: "Build" })
    await h.event("session.idle", { sessionID: "s1" })
    expect(h.toasts).toEqual([])
  })
})

describe("the tool's definition as the host sends it (tool.definition)", () => {
  /** What the host hands the hook for the todo tool: its description, its zod parameters and their JSON Schema. */
  async function definition(h: FakeHost, toolID = "todo") {
    const output = {
      description: "as registered",
      parameters: {},
      jsonSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} },
    }
    await h.hooks["tool.definition"]!({ toolID }, output as never)
    return output
  }

  it("mode lean: the lean description", async () => {
    const h = await host({ pluginOptions: { mode: "lean" } })
    expect((await definition(h)).description).toBe(LEAN_TOOL_DESCRIPTION)
  })

  it("mode auto: the full description until a prompt goes to a model that plans unaided, then the lean one", async () => {
    const h = await host()
    expect((await definition(h)).description).toBe(TOOL_DESCRIPTION)
    await h.event("session.created", { info: { id: "s1" } })
    const model = { providerID: "anthropic", modelID: "claude-sonnet-4-5" }
    const message = { id: "msg_u1", sessionID: "s1", role: "user", agent: "build", model }
    const parts = [{ id: "prt_u1", sessionID: "s1", messageID: message.id, type: "text", text: "Fix it" }]
    await h.hooks["chat.message"]!({ sessionID: "s1", agent: "build", model }, { message, parts } as never)
    expect((await definition(h)).description).toBe(LEAN_TOOL_DESCRIPTION)
    await prompt(h, "s1", "Now with the other model")
    expect((await definition(h)).description).toBe(TOOL_DESCRIPTION)
  })

  it("mode full: the full description whatever the model", async () => {
    const h = await host({ pluginOptions: { mode: "full" } })
    const model = { providerID: "openai", modelID: "gpt-5.1" }
    const message = { id: "msg_u1", sessionID: "s1", role: "user", agent: "build", model }
    await h.hooks["chat.message"]!({ sessionID: "s1", agent: "build", model }, {
      message,
      parts: [],
    } as never)
    expect((await definition(h)).description).toBe(TOOL_DESCRIPTION)
  })

  it("the schema goes without the $schema line the model has no use for; other tools are left alone", async () => {
    const h = await host()
    expect((await definition(h)).jsonSchema).toEqual({ type: "object", properties: {} })
    const other = await definition(h, "bash")
    expect(other.description).toBe("as registered")
    expect(other.jsonSchema).toHaveProperty("$schema")
  })
})
