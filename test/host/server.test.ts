// The server adapter against the fake host: what it registers, how it hands the core's decisions to
// the host, and that a broken input never escapes a hook.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { Hooks } from "@opencode-ai/plugin"
import { describe, expect, it } from "vitest"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { MARKER } from "../../src/core/model/prompts.ts"
import { type Access, type Rule, toolAccess } from "../../src/core/session/permission.ts"
import { replaceFromMarkdown } from "../../src/shared/user-edits.ts"
import { type FakeHost, fakeHosts, type HostOptions } from "../fixtures/host.ts"

const MODEL = { providerID: "mock", modelID: "m" }
type Obj = Record<string, unknown>

const host = fakeHosts()
const boot = (pluginOptions?: Obj, options: HostOptions = {}): Promise<FakeHost> =>
  host({ ...options, ...(pluginOptions ? { pluginOptions } : {}) })

const storeFile = (h: FakeHost, session: string) => join(h.storeDir, `${session}.json`)
const ctx = (sessionID: string, callID = "c1") =>
  ({ sessionID, callID, messageID: "m1", agent: "build" }) as never
const event = (type: string, properties: Obj) => ({ event: { type, properties } as never })

async function created(hooks: Hooks, id: string, parentID?: string) {
  await hooks.event!(
    event("session.created", { sessionID: id, info: { id, ...(parentID ? { parentID } : {}) } }),
  )
}

async function userPrompt(hooks: Hooks, sessionID: string, text: string, extra: Obj = {}) {
  const message = {
    id: `msg_${Math.random().toString(36).slice(2)}`,
    sessionID,
    role: "user",
    agent: "plan",
    model: MODEL,
  }
  const output = { message, parts: [{ id: "prt_a", sessionID, messageID: message.id, type: "text", text }] }
  await hooks["chat.message"]!(
    { sessionID, agent: "plan", model: MODEL, variant: "high", ...extra },
    output as never,
  )
  return output.parts as Obj[]
}

async function todo(hooks: Hooks, sessionID: string, args: Obj, callID?: string) {
  const out = (await hooks.tool!.todo!.execute(args as never, ctx(sessionID, callID))) as unknown
  return typeof out === "string" ? out : (out as { output: string }).output
}

const PLAN = { list: [{ phase: "Build", items: ["Write parser", "Test parser"] }] }

describe("registration", () => {
  it("turns todowrite off, registers /todo and the skill folder", async () => {
    const h = await boot()
    const { hooks } = h
    const cfg: Obj = { permission: { bash: "ask" } }
    await hooks.config!(cfg as never)
    expect(cfg.permission).toEqual({ bash: "ask", todowrite: "deny" })
    expect(Object.keys(cfg.command as Obj)).toEqual(["todo"])
    const paths = (cfg.skills as { paths: string[] }).paths
    expect(paths).toHaveLength(1)
    expect(existsSync(join(paths[0]!, "todo-discipline", "SKILL.md"))).toBe(true)
  })

  /**
   * An agent's rules as OpenCode 1.18 builds them from the config the hook left (packages/opencode/src/agent/
   * agent.ts): the defaults, then the global `permission`, then the agent's own, each object read in key order.
   */
  function hostRules(cfg: Obj, agent: string): Rule[] {
    const fromConfig = (permission: unknown): Rule[] =>
      Object.entries((permission ?? {}) as Obj).flatMap(([key, value]) =>
        typeof value === "string"
          ? [{ permission: key, pattern: "*", action: value as Access }]
          : Object.entries(value as Obj).map(([pattern, action]) => ({
              permission: key,
              pattern,
              action: action as Access,
            })),
      )
    const own = ((cfg.agent ?? {}) as Record<string, Obj>)[agent]?.permission
    return [...fromConfig({ "*": "allow" }), ...fromConfig(cfg.permission), ...fromConfig(own)]
  }
  const userAgents = () => ({
    open: { mode: "primary", permission: { "*": "allow" } },
    keen: { permission: { todowrite: "allow", "*": "allow" } },
    careful: { permission: { todo: "ask", "*": "ask" } },
    plain: { description: "no rules of its own" },
    build: { permission: { edit: "ask", "*": "allow" } },
  })

  it("keeps todowrite away from every agent the user defined, whatever its own rules say", async () => {
    const { hooks } = await boot()
    const cfg: Obj = { permission: { todowrite: "allow", "*": "allow" }, agent: userAgents() }
    await hooks.config!(cfg as never)
    for (const agent of ["build", "plan", "general", ...Object.keys(userAgents())])
      expect([agent, toolAccess("todowrite", hostRules(cfg, agent), [])]).toEqual([agent, "deny"])
    // Every rule the user wrote is still there, in its place; the deny comes after them.
    const agents = cfg.agent as Record<string, Obj>
    expect(agents.open!.permission).toEqual({ "*": "allow", todowrite: "deny" })
    expect(Object.keys(agents.keen!.permission as Obj)).toEqual(["*", "todowrite"])
    expect(agents.careful!.permission).toEqual({ todo: "ask", "*": "ask", todowrite: "deny" })
    expect(toolAccess("todo", hostRules(cfg, "careful"), [])).toBe("ask")
    expect(Object.keys(cfg.permission as Obj)).toEqual(["*", "todowrite"])
  })

  it("mode lean registers /todo but not the skill, whose entry would ride on every request", async () => {
    const cfg: Obj = {}
    await (await boot({ mode: "lean" })).hooks.config!(cfg as never)
    expect(Object.keys(cfg.command as Obj)).toEqual(["todo"])
    expect(cfg.skills).toBeUndefined()
  })

  it("keeps todowrite with keepTodowrite, and registers nothing when disabled", async () => {
    const kept: Obj = {}
    await (await boot({ keepTodowrite: true })).hooks.config!(kept as never)
    expect(kept.permission).toBeUndefined()
    const keptAgents: Obj = { permission: { "*": "allow" }, agent: userAgents() }
    await (await boot({ keepTodowrite: true })).hooks.config!(keptAgents as never)
    expect(keptAgents).toEqual({
      permission: { "*": "allow" },
      agent: userAgents(),
      command: keptAgents.command,
      skills: keptAgents.skills,
    })
    expect(toolAccess("todowrite", hostRules(keptAgents, "open"), [])).toBe("allow")
    expect((await boot({ enabled: false })).hooks).toEqual({})
  })
})

describe("the todo tool", () => {
  it("persists a list and returns the core's result text with the list in metadata", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    const out = (await hooks.tool!.todo!.execute(PLAN as never, ctx("s1"))) as unknown as Obj
    expect(out.output).toContain(`[>] "Write parser"`)
    expect((out.metadata as Obj).list).toEqual(JSON.parse(readFileSync(storeFile(h, "s1"), "utf8")).list)
  })

  it("leaves the stored file byte-identical after a failing call", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    await todo(hooks, "s1", PLAN)
    const before = readFileSync(storeFile(h, "s1"), "utf8")
    const out = await todo(hooks, "s1", { op: "done", task: "Ship it" })
    expect(out).toMatch(/^Error: No task "Ship it"/)
    expect(readFileSync(storeFile(h, "s1"), "utf8")).toBe(before)
  })

  it("refuses subagent sessions with a message", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "child", "parent")
    expect(await todo(hooks, "child", PLAN)).toMatch(/^Error: the todo list belongs to the main session/)
    expect(existsSync(storeFile(h, "child"))).toBe(false)
  })

  it("reads a stored list that exceeds the configured limits instead of quarantining it", async () => {
    const record = {
      version: 1,
      session: "s1",
      revision: 1,
      list: [{ name: "P", tasks: ["a", "b", "c"].map((text) => ({ text, status: "pending" })) }],
      edits: [],
    }
    const h = await boot(undefined, { todoJson: { maxTasks: 2 } })
    const { hooks } = h
    mkdirSync(h.storeDir, { recursive: true })
    writeFileSync(storeFile(h, "s1"), JSON.stringify(record))
    expect(await todo(hooks, "s1", { op: "view" })).toContain(`[ ] "c"`)
    expect(readdirSync(h.storeDir).filter((f) => f.includes("corrupt"))).toEqual([])
    // The configured cap still applies to changes.
    expect(await todo(hooks, "s1", { op: "append", phase: "P", items: ["d"] })).toMatch(
      /^Error: .*limit is 2/,
    )
  })
})

describe("view never writes", () => {
  it("shows a record stored before the normal form normalised, and leaves the file as it was", async () => {
    const record = {
      version: 1,
      session: "s1",
      revision: 3,
      list: [{ name: "P", tasks: ["a", "b"].map((text) => ({ text, status: "pending" })) }],
      edits: [],
    }
    const h = await boot()
    mkdirSync(h.storeDir, { recursive: true })
    const text = JSON.stringify(record)
    writeFileSync(storeFile(h, "s1"), text)
    expect(await todo(h.hooks, "s1", { op: "view" })).toContain(`[>] "a"`)
    expect(readFileSync(storeFile(h, "s1"), "utf8")).toBe(text)
    // The next real change writes the normal form.
    await todo(h.hooks, "s1", { op: "done", task: "a" })
    const stored = JSON.parse(readFileSync(storeFile(h, "s1"), "utf8"))
    expect(stored.list[0].tasks.map((t: Obj) => t.status)).toEqual(["completed", "in_progress"])
  })
})

describe("/todo import", () => {
  it("imports what people have into the normal form, and the reply says by line how it was read", async () => {
    const h = await boot()
    await created(h.hooks, "s1")
    const file = [
      "# Work",
      "- [x] a",
      "- [~] b",
      "- [>] c <!-- blocker: the vendor -->",
      "- [/] d",
      "- [>] e",
    ]
    writeFileSync(join(h.project, "TODO.md"), `${file.join("\n")}\n`)
    const reply = await h.command("s1", "import")
    expect(reply).toContain('line 1: tasks under the title "Work" form phase "Work"')
    expect(reply).toContain("line 3: [~] read as dropped")
    expect(reply).toContain("line 4: the <!-- blocker: … --> comment read as blocked, with that reason")
    expect(reply).toContain('line 6: back to pending ("e"); only "d" (line 5) stays in progress')
    const stored = JSON.parse(readFileSync(storeFile(h, "s1"), "utf8")).list
    expect(stored).toEqual([
      {
        name: "Work",
        tasks: [
          { text: "a", status: "completed" },
          { text: "b", status: "abandoned" },
          { text: "c", status: "blocked", blocker: "the vendor" },
          { text: "d", status: "in_progress" },
          { text: "e", status: "pending" },
        ],
      },
    ])
  })
})

describe("session behaviours", () => {
  it("attaches the eager prelude to the first real prompt as a complete synthetic part", async () => {
    const h = await boot({ eager: "preferred" })
    const { hooks } = h
    await created(hooks, "s1")
    const parts = await userPrompt(hooks, "s1", "Refactor the parser")
    expect(parts).toHaveLength(2)
    expect(parts[1]).toMatchObject({ id: "prt_az", sessionID: "s1", type: "text", synthetic: true })
    expect(String(parts[1]!.text).startsWith(MARKER)).toBe(true)
    expect(await userPrompt(hooks, "s1", "And the lexer")).toHaveLength(1)
  })

  it("reminds once at idle with the agent, model and variant of the last real prompt", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    await userPrompt(hooks, "s1", "Fix it")
    await todo(hooks, "s1", PLAN)
    await hooks.event!(event("session.idle", { sessionID: "s1" }))
    expect(h.prompts).toHaveLength(1)
    const body = h.prompts[0]!.body as Obj
    expect(body).toMatchObject({ agent: "plan", model: MODEL, variant: "high" })
    expect((body.parts as Obj[])[0]).toMatchObject({ type: "text", synthetic: true })
    expect(String((body.parts as Obj[])[0]!.text)).toContain("Write parser")
    // The reminder comes back as a user message: it is not a new prompt, and without progress no second reminder.
    await userPrompt(hooks, "s1", String((body.parts as Obj[])[0]!.text))
    await hooks.event!(event("session.idle", { sessionID: "s1" }))
    expect(h.prompts).toHaveLength(1)
  })

  it("does not remind after an abort", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    await userPrompt(hooks, "s1", "Fix it")
    await todo(hooks, "s1", PLAN)
    await hooks.event!(event("session.error", { sessionID: "s1", error: { name: "MessageAbortedError" } }))
    await hooks.event!(event("session.idle", { sessionID: "s1" }))
    expect(h.prompts).toHaveLength(0)
  })

  it("gives the summarizer the list through the compacting hook, and the next main request the list once", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    await userPrompt(hooks, "s1", "Fix it")
    await todo(hooks, "s1", PLAN)
    const compacting = { context: [] as string[] }
    await hooks["experimental.session.compacting"]!({ sessionID: "s1" }, compacting as never)
    expect(compacting.context.join("\n")).toContain("Write parser")
    const history = () => ({
      messages: [{ info: { id: "msg_u", sessionID: "s1", role: "user" }, parts: [] as Obj[] }],
    })
    const summarizer = history()
    await hooks["experimental.chat.messages.transform"]!({}, summarizer as never)
    expect(summarizer.messages[0]!.parts).toEqual([])
    await hooks.event!(event("session.compacted", { sessionID: "s1" }))
    const first = history()
    await hooks["experimental.chat.messages.transform"]!({}, first as never)
    expect(String(first.messages[0]!.parts[0]?.text)).toContain("Write parser")
    const second = history()
    await hooks["experimental.chat.messages.transform"]!({}, second as never)
    expect(second.messages[0]!.parts).toEqual([])
  })

  it("answers /todo itself and hands the model one marked text", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    await todo(hooks, "s1", PLAN)
    const output = { parts: [{ type: "text", text: "$ARGUMENTS" }] }
    await hooks["command.execute.before"]!(
      { command: "todo", sessionID: "s1", arguments: "rm test" },
      output as never,
    )
    expect(output.parts).toHaveLength(1)
    expect(output.parts[0]!.text.startsWith(MARKER)).toBe(true)
    expect(output.parts[0]!.text).toContain('removed "Test parser"')
    // A sidebar that cannot read the store follows the command through the part's metadata.
    const meta = (output.parts[0] as { metadata?: { opencodeTodo?: { list: Obj[] } } }).metadata
    expect(meta?.opencodeTodo?.list[0]).toMatchObject({ name: "Build", tasks: [{ text: "Write parser" }] })
    expect(JSON.parse(readFileSync(storeFile(h, "s1"), "utf8")).list[0].tasks).toHaveLength(1)
  })

  it("names a removed phase as a phase, in the command reply and in a TUI edit's notice", async () => {
    const h = await boot()
    const { hooks } = h
    await created(hooks, "s1")
    await todo(hooks, "s1", {
      list: [
        { phase: "Build", items: ["Write parser"] },
        { phase: "Ship", items: ["Tag"] },
      ],
    })
    expect(await h.command("s1", "rm Ship")).toContain(
      'Do not recreate removed phases ("Ship") or tasks ("Tag").',
    )
    // The TUI records its edit in the store; the server tells the model on its next request.
    await replaceFromMarkdown(
      { store: h.store, session: "s1", limits: DEFAULT_LIMITS, notify: "record" },
      "## Later\n- [ ] Docs\n",
    )
    const parts = await userPrompt(hooks, "s1", "go on")
    expect(parts.map((p) => String(p.text)).join("\n")).toContain(
      'Do not recreate removed phases ("Build") or tasks ("Write parser").',
    )
  })

  it("swallows malformed events and logs the failure once", async () => {
    const h = await boot()
    const { hooks } = h
    await expect(hooks.event!(event("session.created", {}))).resolves.toBeUndefined()
    await expect(hooks.event!(event("session.created", {}))).resolves.toBeUndefined()
    expect(h.logs.filter((l) => l.startsWith("error:"))).toHaveLength(1)
  })
})

describe("a /todo verb that changes nothing", () => {
  it("tells the model the verb, the task it addressed and why, not that the user only viewed the list", async () => {
    const h = await boot()
    await created(h.hooks, "s1")
    await todo(h.hooks, "s1", { list: [{ phase: "Port", items: ["Port credential store", "Docs"] }] })
    await h.command("s1", "drop Docs")
    const start = await h.command("s1", "start credential")
    expect(start).toContain('start "Port credential store": it is already in progress')
    expect(start).not.toContain("viewed the todo list")
    expect(await h.command("s1", "drop Docs")).toContain('drop "Docs": it is already dropped')
  })

  it("a mistyped verb gets the nearest one", async () => {
    const h = await boot()
    await created(h.hooks, "s1")
    await todo(h.hooks, "s1", PLAN)
    expect(await h.command("s1", "dnoe Write parser")).toContain("Did you mean /todo done?")
  })
})
