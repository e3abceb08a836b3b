// The server's OpenCode 2 binding (src/server/v2.ts) against the fake V2 host (test/fixtures/v2-host.ts): loading,
// the tool, /todo, the skill, the session's speaking rules, stubs, undo, redo, fork, compaction, a denied agent.

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, describe, expect, it, vi } from "vitest"
import { MARKER } from "../../src/core/list/words.ts"
import { STALE_FAILED_STUB, STALE_RESULT_STUB, STALE_STUB } from "../../src/core/model/prompts.ts"
import { SKILLS_DIR } from "../../src/server/skills-dir.ts"
import { TOOL_INPUT, TOOL_INPUT_SCHEMA } from "../../src/server/v2-registry.ts"
import { TODO_RPC } from "../../src/shared/v2-rpc.ts"
import { requestTexts, startV2Host, until, type V2Host } from "../fixtures/v2-host.ts"
import { ANTHROPIC_2 } from "../fixtures/v2-prompts.ts"

const hosts: V2Host[] = []
async function start(options?: Parameters<typeof startV2Host>[0]) {
  const host = await startV2Host(options)
  hosts.push(host)
  return host
}
afterEach(async () => {
  for (const host of hosts.splice(0)) await host.cleanup()
})

const PLAN = { op: "init", list: [{ phase: "Build", items: ["A", "B", "C"] }] }
const statuses = (list: unknown) =>
  (list as { tasks: { text: string; status: string }[] }[]).flatMap((p) =>
    p.tasks.map((t) => `${t.text}:${t.status}`),
  )

describe("OpenCode 2: loading", () => {
  it("loads as V2's loader loads it and registers one tool, one command, one skill and the RPC", async () => {
    const host = await start()
    expect(host.id).toBe("opencode-todo")
    // 2.0.15 disables the whole plugin when one registry callback throws, and skips a tool it cannot register.
    expect(host.failure).toBeUndefined()
    expect(host.skippedTools).toEqual([])
    expect([...host.tools.keys()]).toEqual(["todo"])
    const tool = host.tools.get("todo")!
    expect(tool.options).toEqual({ codemode: false, permission: "todo" })
    // Raw JSON Schema: the host passes it to the model as it is.
    expect((tool.input as { type?: string }).type).toBe("object")
    expect(Object.keys((tool.input as { properties: object }).properties)).toContain("op")
    expect([...host.commands.keys()]).toEqual(["todo"])
    expect(host.skills).toHaveLength(1)
    expect(host.rpcDefinition()).toBe(TODO_RPC)
  })
})

describe("OpenCode 2: the todo tool", () => {
  it("plans, marks done, and answers short text with the list in metadata", async () => {
    const host = await start()
    await host.prompt("ses_a", "Build the thing")
    const init = await host.call("ses_a", "todo", PLAN)
    expect(init.defect).toBeUndefined()
    expect(init.metadata.ok).toBe(true)
    expect(statuses(init.metadata.list)).toEqual(["A:in_progress", "B:pending", "C:pending"])
    const done = await host.call("ses_a", "todo", { op: "done", task: "A" })
    expect(done.metadata.ok).toBe(true)
    expect(done.content.split("\n").length).toBeLessThan(20)
    expect(statuses(done.metadata.list)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    expect(host.rpcEvents.some((e) => e.name === "changed" && e.data.sessionID === "ses_a")).toBe(true)
  })

  it("answers a bad call with an error result that changes nothing (no throw reaches the host)", async () => {
    const host = await start()
    await host.prompt("ses_b", "Build")
    await host.call("ses_b", "todo", PLAN)
    const bad = await host.call("ses_b", "todo", { op: "done", task: "No such task" })
    expect(bad.defect).toBeUndefined()
    expect(bad.metadata.ok).toBe(false)
    expect(bad.content).toMatch(/Error/)
    const view = await host.call("ses_b", "todo", { op: "view" })
    expect(statuses(view.metadata.list)).toEqual(["A:in_progress", "B:pending", "C:pending"])
    // The host validates a call through the input's `~standard` first; ours lets it through, so the tool's own
    // error (what to send instead) is what the model reads, not the host's "Invalid arguments".
    const garbage = await host.call("ses_b", "todo", "not an object")
    expect(garbage.defect).toBeUndefined()
    expect(garbage.rejected).toBeUndefined()
    expect(garbage.content).toMatch(/^Error/)
    expect(garbage.metadata.ok).toBe(false)
    const after = await host.call("ses_b", "todo", { op: "view" })
    expect(statuses(after.metadata.list)).toEqual(["A:in_progress", "B:pending", "C:pending"])
  })
})

describe("OpenCode 2: a registry that refuses what the plugin adds", () => {
  it("keeps the rest of the plugin working (the host disables a plugin whose callback throws) and says so once", async () => {
    const stderr: string[] = []
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(((chunk: unknown) => {
      stderr.push(String(chunk))
      return true
    }) as never)
    try {
      const host = await start({ skillInfo: "location" })
      await host.prompt("ses_refused", "Build")
      expect(host.failure).toBeUndefined()
      expect(host.skills).toEqual([])
      const run = await host.call("ses_refused", "todo", PLAN)
      expect(run.metadata.ok).toBe(true)
      expect(stderr.filter((line) => line.includes("skill registry"))).toHaveLength(1)
    } finally {
      spy.mockRestore()
    }
  })
})

describe("OpenCode 2: the tool's input on every build", () => {
  it("runs the turns of a build that reads every tool's input as a Standard Schema, with the same JSON Schema", async () => {
    const host = await start({ toolInputs: "standard" })
    await host.prompt("ses_std", "Build")
    const request = await host.request("ses_std")
    expect(host.skippedTools).toEqual([])
    expect((request.tools.todo as { input: unknown }).input).toEqual(TOOL_INPUT_SCHEMA)
    const run = await host.call("ses_std", "todo", PLAN)
    expect(run.metadata.ok).toBe(true)
  })

  it("sends the model plain JSON Schema where the host passes the input on as it is", () => {
    expect(JSON.parse(JSON.stringify(TOOL_INPUT))).toEqual(TOOL_INPUT_SCHEMA)
    expect(Object.keys(TOOL_INPUT)).toEqual(Object.keys(TOOL_INPUT_SCHEMA))
  })
})

describe("OpenCode 2: /todo", () => {
  it("runs verbs with no model turn, answers the user over RPC, and tells the model once on its next request", async () => {
    const host = await start()
    await host.prompt("ses_c", "Build")
    await host.call("ses_c", "todo", PLAN)
    await host.reply("ses_c", "Working.")
    await host.idle("ses_c")
    const synthetics = host.synthetics.length
    const outcome = await host.command("ses_c", "todo", "done A")
    expect(outcome).toEqual({ type: "immediate" })
    const reply = host.rpcEvents.filter((e) => e.name === "reply").at(-1)!
    expect(reply.data).toMatchObject({ sessionID: "ses_c", ok: true })
    expect(String(reply.data.text)).toMatch(/A/)
    // No turn was started for it.
    expect(host.synthetics.length).toBe(synthetics)
    const view = await host.call("ses_c", "todo", { op: "view" })
    expect(statuses(view.metadata.list)[0]).toBe("A:completed")
    // The model hears of the edit once, on its next request.
    await host.prompt("ses_c", "Go on")
    // (A reminder sent at the idle before the edit is in the history too: not the notice counted here.)
    const notices = (texts: string[]) =>
      texts.filter(
        (t) => t.includes('"A"') && t.startsWith(MARKER) && !host.synthetics.some((r) => r.text === t),
      )
    const first = notices(requestTexts(await host.request("ses_c")))
    expect(first.length).toBe(1)
    const second = notices(requestTexts(await host.request("ses_c")))
    // The notice was attached to this turn's prompt: it stays for the turn, and is not told again after it.
    await host.reply("ses_c", "ok")
    await host.idle("ses_c")
    await host.prompt("ses_c", "Next")
    const later = requestTexts(await host.request("ses_c")).filter((t) => t.includes("changed the todo list"))
    expect(second.length).toBeLessThanOrEqual(1)
    expect(later).toEqual([])
  })

  it("answers an unknown verb with an error reply and changes nothing", async () => {
    const host = await start()
    await host.prompt("ses_d", "Build")
    await host.call("ses_d", "todo", PLAN)
    await host.command("ses_d", "todo", "frobnicate A")
    const reply = host.rpcEvents.filter((e) => e.name === "reply").at(-1)!
    expect(reply.data.ok).toBe(false)
    const view = await host.call("ses_d", "todo", { op: "view" })
    expect(statuses(view.metadata.list)).toEqual(["A:in_progress", "B:pending", "C:pending"])
  })

  it("runs the same verbs for the TUI over RPC", async () => {
    const host = await start()
    await host.prompt("ses_r", "Build")
    await host.call("ses_r", "todo", PLAN)
    const answer = (await host.rpc("run", { sessionID: "ses_r", text: "drop C" })) as {
      ok: boolean
      text: string
    }
    expect(answer.ok).toBe(true)
    const listed = (await host.rpc("list", { sessionID: "ses_r" })) as { list: unknown }
    expect(statuses(listed.list)).toContain("C:abandoned")
  })

  it("answers show and copy of a full list, whose text passes 65,536 characters, over RPC and in the reply", async () => {
    const host = await start()
    await host.prompt("ses_big", "Build")
    // 200 blocked tasks of 288 characters with 280-character reasons: the default limits allow it.
    const lines = Array.from({ length: 10 }, (_, p) => [
      `## Phase ${p + 1}`,
      ...Array.from({ length: 20 }, (_, i) => [
        `- [!] Task ${p * 20 + i + 1} ${"x".repeat(280)}`,
        `  - blocked: ${"why ".repeat(70).trim()}`,
      ]).flat(),
    ]).flat()
    writeFileSync(join(host.project, "TODO.md"), `${lines.join("\n")}\n`)
    const imported = (await host.rpc("run", { sessionID: "ses_big", text: "import --force" })) as {
      ok: boolean
    }
    expect(imported.ok).toBe(true)
    for (const verb of ["show", "copy"]) {
      const answer = (await host.rpc("run", { sessionID: "ses_big", text: verb })) as {
        ok: boolean
        text: string
      }
      expect(answer.ok).toBe(true)
      expect(answer.text.length).toBeGreaterThan(65_536)
      await host.command("ses_big", "todo", verb)
      const reply = host.rpcEvents.filter((e) => e.name === "reply").at(-1)!
      expect(String(reply.data.text)).toContain("Task 200")
    }
  })
})

describe("OpenCode 2: the skill", () => {
  it("offers todo-discipline with its description and body, read from the package's SKILL.md", async () => {
    const host = await start()
    const skill = host.skills[0]!
    expect(skill.name).toBe("todo-discipline")
    expect(skill.id).toBe("todo-discipline")
    // The description as SKILL.md's front matter has it, whatever it says.
    const front = readFileSync(join(SKILLS_DIR, "todo-discipline", "SKILL.md"), "utf8")
    expect(front).toContain(`description: ${String(skill.description)}\n`)
    expect(String(skill.content)).toMatch(/^# Todo discipline/)
    expect(String(skill.content)).not.toMatch(/^---/)
    expect(existsSync(String(skill.path))).toBe(true)
  })
})

describe("OpenCode 2: prelude, nudge and reminder", () => {
  it("sends the prelude with the first prompt of a new session (eager: always), in every request of that turn only", async () => {
    const host = await start({ pluginOptions: { eager: "always" } })
    await host.prompt("ses_p", "Build a parser")
    const first = requestTexts(await host.request("ses_p"))
    expect(first.filter((t) => t.includes("MUST call the todo tool"))).toHaveLength(1)
    await host.reply("ses_p", "Done.")
    await host.idle("ses_p")
    await host.prompt("ses_p", "And now the printer")
    const next = requestTexts(await host.request("ses_p"))
    expect(next.filter((t) => t.includes("MUST call the todo tool"))).toHaveLength(0)
  })

  it("keeps the prelude on the turn's prompt in the turn's later requests, never as a user message after tool results", async () => {
    const host = await start({ pluginOptions: { eager: "always" } })
    const prompt = await host.prompt("ses_p2", "Build a parser")
    await host.request("ses_p2")
    await host.call("ses_p2", "todo", PLAN)
    const later = await host.request("ses_p2")
    const carrying = later.messages.filter((m) =>
      m.content.some((p) => typeof p.text === "string" && p.text.includes("MUST call the todo tool")),
    )
    // A user message after the tool results reads as the user's newest words: the real 2.0.15 model re-planned on it.
    expect(carrying.map((m) => m.id)).toEqual([prompt])
    expect(later.messages.at(-1)?.role).toBe("tool")
  })

  it("nudges after twelve edits with work open", async () => {
    const host = await start()
    await host.prompt("ses_n", "Build")
    await host.call("ses_n", "todo", PLAN)
    for (let i = 0; i < 12; i++) await host.otherTool("ses_n", i % 2 ? "edit" : "shell")
    const texts = requestTexts(await host.request("ses_n"))
    expect(texts.some((t) => t.includes("12 edits or commands since the todo list was last updated"))).toBe(
      true,
    )
  })

  it("counts no failed tool call toward the nudge (the hook's result says it failed)", async () => {
    const host = await start()
    await host.prompt("ses_n2", "Build")
    await host.call("ses_n2", "todo", PLAN)
    for (let i = 0; i < 12; i++) await host.otherTool("ses_n2", "edit", true)
    const texts = requestTexts(await host.request("ses_n2"))
    expect(texts.some((t) => t.includes("edits or commands since the todo list was last updated"))).toBe(
      false,
    )
  })

  it("reminds with a synthetic message that starts a turn when the agent stops with work open", async () => {
    const host = await start()
    await host.prompt("ses_m", "Build")
    await host.call("ses_m", "todo", PLAN)
    await host.reply("ses_m", "I made some progress.")
    await host.idle("ses_m")
    await until(() => host.synthetics.length > 0)
    const sent = host.synthetics[0]!
    expect(sent.sessionID).toBe("ses_m")
    expect(sent.resume).toBe(true)
    expect(sent.text).toMatch(/still has open tasks/)
    expect(host.rpcEvents.some((e) => e.name === "notice" && e.data.sessionID === "ses_m")).toBe(true)
  })

  it("keeps following the session after the event stream fails: it subscribes again, and says so once", async () => {
    const stderr: string[] = []
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(((chunk: unknown) => {
      stderr.push(String(chunk))
      return true
    }) as never)
    const host = await start()
    await host.prompt("ses_r", "Build")
    await host.call("ses_r", "todo", PLAN)
    // One event the host's adapter cannot encode ends the subscription for good (twice here).
    host.breakStream()
    await until(() => host.subscriptions === 2)
    host.breakStream()
    await until(() => host.subscriptions === 3)
    await host.reply("ses_r", "I made some progress.")
    await host.idle("ses_r")
    await until(() => host.synthetics.length > 0)
    spy.mockRestore()
    expect(host.synthetics[0]!.sessionID).toBe("ses_r")
    expect(stderr.filter((line) => line.includes("event stream"))).toHaveLength(1)
  })

  it("does not remind while the agent waits for the user (a question, an open permission request)", async () => {
    const host = await start()
    await host.prompt("ses_q", "Build")
    await host.call("ses_q", "todo", PLAN)
    await host.reply("ses_q", "Which database should I use?")
    await host.idle("ses_q")
    await host.prompt("ses_q", "Postgres")
    await host.call("ses_q", "todo", { op: "done", task: "A" })
    await host.emit("permission.v2.asked", {
      id: "per_1",
      sessionID: "ses_q",
      action: "edit",
      resources: ["*"],
    })
    await host.reply("ses_q", "Waiting for your approval.")
    await host.idle("ses_q")
    await new Promise((r) => setTimeout(r, 100))
    expect(host.synthetics).toEqual([])
  })
})

describe("OpenCode 2: stubs", () => {
  it("sends a superseded todo result as a one-line stub, the newest in full", async () => {
    const host = await start()
    await host.prompt("ses_s", "Build")
    await host.call("ses_s", "todo", PLAN)
    await host.call("ses_s", "todo", { op: "done", task: "A" })
    const request = await host.request("ses_s")
    const results = request.messages.flatMap((m) =>
      (m.content as { type: string; result?: { value: unknown } }[]).filter((p) => p.type === "tool-result"),
    )
    expect(results).toHaveLength(2)
    expect(results[0]!.result!.value).toBe(STALE_RESULT_STUB)
    expect(results[1]!.result!.value).not.toBe(STALE_RESULT_STUB)
    // The host keeps its own copy.
    const stored = host
      .session("ses_s")
      .messages.flatMap((m) => m.content.filter((p) => p.type === "tool-result"))
    expect((stored[0]!.result as { value: string }).value).not.toBe(STALE_RESULT_STUB)
  })

  it("reads each result's outcome from its text (the host sends no tool metadata): a failed call's stub says so", async () => {
    const host = await start()
    await host.prompt("ses_s2", "Build")
    await host.call("ses_s2", "todo", PLAN)
    await host.call("ses_s2", "todo", { op: "done", task: "No such task" })
    await host.call("ses_s2", "todo", { op: "done", task: "A" })
    const request = await host.request("ses_s2")
    const results = request.messages.flatMap((m) =>
      (m.content as { type: string; result?: { value: unknown }; metadata?: unknown }[]).filter(
        (p) => p.type === "tool-result",
      ),
    )
    expect(results.every((r) => r.metadata === undefined)).toBe(true)
    expect(results.map((r) => r.result!.value)).toEqual([
      STALE_RESULT_STUB,
      STALE_FAILED_STUB,
      expect.not.stringContaining("[") as unknown as string,
    ])
  })

  it("stubs one of our reminders once a later todo update made it stale; a user's text quoting the marker stays", async () => {
    const host = await start()
    await host.prompt("ses_sr", "Build")
    await host.call("ses_sr", "todo", PLAN)
    await host.reply("ses_sr", "I made some progress.")
    await host.idle("ses_sr")
    await until(() => host.synthetics.length > 0)
    const reminder = host.synthetics[0]!.text
    // The reminder starts a turn; before the model answers it, it goes out in full.
    expect(requestTexts(await host.request("ses_sr"))).toContain(reminder)
    await host.call("ses_sr", "todo", { op: "done", task: "A" })
    await host.reply("ses_sr", "Done A.")
    await host.idle("ses_sr")
    const quoted = `${MARKER} the user pasted this`
    await host.prompt("ses_sr", quoted)
    const texts = requestTexts(await host.request("ses_sr"))
    expect(texts).not.toContain(reminder)
    expect(texts).toContain(STALE_STUB)
    expect(texts).toContain(quoted)
    // The host keeps its own copy.
    expect(
      host.session("ses_sr").messages.some((m) => JSON.stringify(m.content).includes("still has open")),
    ).toBe(true)
  })

  it("knows its reminder by the id the synthetic call answers with, where the host admits it through its inbox", async () => {
    const host = await start({ syntheticIds: "inbox" })
    await host.prompt("ses_si", "Build")
    await host.call("ses_si", "todo", PLAN)
    await host.reply("ses_si", "I made some progress.")
    await host.idle("ses_si")
    await until(() => host.synthetics.length > 0)
    const reminder = host.synthetics[0]!.text
    await host.call("ses_si", "todo", { op: "done", task: "A" })
    await host.reply("ses_si", "Done A.")
    await host.idle("ses_si")
    await host.prompt("ses_si", "Go on")
    const texts = requestTexts(await host.request("ses_si"))
    expect(texts).not.toContain(reminder)
    expect(texts).toContain(STALE_STUB)
  })

  it("steers OpenCode 2's own todowrite passages in the first system part, and nothing else", async () => {
    // The host's Anthropic prompt with its three todowrite passages (test/fixtures/v2-prompts.ts cites the source).
    const host = await start({ systemPrompt: ANTHROPIC_2, modelID: "claude-sonnet-4" })
    await host.prompt("ses_t", "Build")
    const request = await host.request("ses_t")
    const text = request.system[0]!.text
    expect(text).not.toMatch(/todowrite|TodoWrite/)
    expect(text).toContain("# Task Management\nPlan work of three or more steps with the `todo` tool")
    expect(text).toContain("- Plan multi-step tasks with the `todo` tool")
    expect(text).toContain("IMPORTANT: Plan and track multi-step work with the `todo` tool.")
    expect(text).toMatch(/^You are OpenCode, the best coding agent on the planet\./)
    expect(text.endsWith("# Code References\nCite file:line.\n")).toBe(true)
    // The parts after it (instructions, AGENTS.md, other plugins' text) are left as they are.
    expect(request.system.slice(1)).toEqual(host.systemAfter)
  })

  it("leaves the host's prompt alone for an agent that may not call todo only by removing its passages", async () => {
    const host = await start({
      systemPrompt: ANTHROPIC_2,
      modelID: "claude-sonnet-4",
      agents: [
        {
          id: "plan",
          permissions: [
            { action: "*", resource: "*", effect: "allow" },
            { action: "todo", resource: "*", effect: "deny" },
          ],
        },
      ],
    })
    await host.prompt("ses_t2", "Plan", "plan")
    const text = (await host.request("ses_t2", "primary", "plan")).system[0]!.text
    expect(text).not.toMatch(/todowrite|`todo`/)
    expect(text).toContain("Be accurate.\n\n# Doing tasks")
  })
})

describe("OpenCode 2: undo, redo, fork", () => {
  it("follows an undo, a redo and a commit from the revert events", async () => {
    const host = await start()
    await host.prompt("ses_u", "Build")
    await host.call("ses_u", "todo", PLAN)
    await host.reply("ses_u", "Planned.")
    await host.idle("ses_u")
    const second = await host.prompt("ses_u", "Do A")
    await host.call("ses_u", "todo", { op: "done", task: "A" })
    await host.idle("ses_u")
    const list = async () =>
      statuses(((await host.rpc("list", { sessionID: "ses_u" })) as { list: unknown }).list)
    expect(await list()).toEqual(["A:completed", "B:in_progress", "C:pending"])
    await host.revert("ses_u", second)
    expect(await list()).toEqual(["A:in_progress", "B:pending", "C:pending"])
    await host.unrevert("ses_u")
    expect(await list()).toEqual(["A:completed", "B:in_progress", "C:pending"])
    await host.revert("ses_u", second)
    await host.commit("ses_u")
    await host.prompt("ses_u", "Try again")
    expect(await list()).toEqual(["A:in_progress", "B:pending", "C:pending"])
  })

  it("a typed /todo change, an undo and a redo the prompt reaches the plugin before: the list is the newest, the model told once", async () => {
    const host = await start()
    const first = await host.prompt("ses_rl", "Build")
    await host.call("ses_rl", "todo", PLAN)
    await host.reply("ses_rl", "Planned.")
    await host.idle("ses_rl")
    await host.rpc("run", { sessionID: "ses_rl", text: "done B" })
    const list = async () =>
      statuses(((await host.rpc("list", { sessionID: "ses_rl" })) as { list: unknown }).list)
    await host.revert("ses_rl", first)
    expect(await list()).toEqual([])
    const cleared = host.unrevertLate("ses_rl")
    await host.prompt("ses_rl", "Go on")
    await cleared()
    const told = requestTexts(await host.request("ses_rl")).filter((t) =>
      t.includes("The user changed the todo list"),
    )
    expect(told).toHaveLength(1)
    expect(told[0]).toContain('"B"')
    expect(await list()).toEqual(["A:in_progress", "B:completed", "C:pending"])
  })

  it("starts a fork from its source's list at the fork point", async () => {
    const host = await start()
    await host.prompt("ses_f", "Build")
    await host.call("ses_f", "todo", PLAN)
    await host.idle("ses_f")
    const second = await host.prompt("ses_f", "Do A")
    await host.call("ses_f", "todo", { op: "done", task: "A" })
    await host.idle("ses_f")
    const whole = await host.fork("ses_f")
    const early = await host.fork("ses_f", second)
    const viewOf = async (id: string) => {
      await host.prompt(id, "Continue")
      return statuses((await host.call(id, "todo", { op: "view" })).metadata.list)
    }
    expect(await viewOf(whole)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    expect(await viewOf(early)).toEqual(["A:in_progress", "B:pending", "C:pending"])
    // A fork is no subagent: its calls are not refused.
    expect((await host.call(early, "todo", { op: "done", task: "A" })).metadata.ok).toBe(true)
  })
})

describe("OpenCode 2: a fork's copied turns", () => {
  async function twoTurns(host: V2Host, id: string) {
    await host.prompt(id, "Build")
    await host.call(id, "todo", PLAN)
    await host.idle(id)
    const second = await host.prompt(id, "Do A")
    await host.call(id, "todo", { op: "done", task: "A" })
    await host.idle(id)
    await host.prompt(id, "Do B")
    await host.call(id, "todo", { op: "done", task: "B" })
    await host.idle(id)
    return second
  }
  const list = async (host: V2Host, id: string) =>
    statuses(((await host.rpc("list", { sessionID: id })) as { list: unknown }).list)
  const userIds = (host: V2Host, id: string) =>
    host
      .session(id)
      .messages.filter((m) => m.role === "user")
      .map((m) => m.id!)

  it("an undo inside them takes back what they did (the copies have ids of their own)", async () => {
    const host = await start()
    await twoTurns(host, "ses_fc")
    const third = userIds(host, "ses_fc")[2]!
    const fork = await host.fork("ses_fc", third, { shape: "boundary" })
    expect(await list(host, fork)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    await host.revert(fork, userIds(host, fork)[1]!)
    expect(await list(host, fork)).toEqual(["A:in_progress", "B:pending", "C:pending"])
    await host.unrevert(fork)
    expect(await list(host, fork)).toEqual(["A:completed", "B:in_progress", "C:pending"])
  })

  it("a fork looked at before its fork event arrives starts from its source's list (its info names the source)", async () => {
    const host = await start()
    await twoTurns(host, "ses_fe")
    const third = userIds(host, "ses_fe")[2]!
    const fork = await host.fork("ses_fe", third, { shape: "boundary", silent: true })
    expect(await list(host, fork)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    await host.revert(fork, userIds(host, fork)[1]!)
    expect(await list(host, fork)).toEqual(["A:in_progress", "B:pending", "C:pending"])
  })
})

describe("OpenCode 2: the fork event's other shapes", () => {
  async function sourceWithTwoTurns(host: V2Host, id: string) {
    await host.prompt(id, "Build")
    await host.call(id, "todo", PLAN)
    await host.idle(id)
    const second = await host.prompt(id, "Do A")
    await host.call(id, "todo", { op: "done", task: "A" })
    await host.idle(id)
    return second
  }
  const viewOf = async (host: V2Host, id: string) => {
    await host.prompt(id, "Continue")
    return statuses((await host.call(id, "todo", { op: "view" })).metadata.list)
  }

  it("a `boundary: before` fork starts from the list before that message; its info's `fork` is no parent", async () => {
    const host = await start()
    const second = await sourceWithTwoTurns(host, "ses_fb")
    const fork = await host.fork("ses_fb", second, { shape: "boundary", type: "before" })
    expect(host.session(fork).info.fork?.sessionID).toBe("ses_fb")
    expect(await viewOf(host, fork)).toEqual(["A:in_progress", "B:pending", "C:pending"])
    expect((await host.call(fork, "todo", { op: "done", task: "A" })).metadata.ok).toBe(true)
  })

  it("a `boundary: through` fork holds that message: the list after it", async () => {
    const host = await start()
    const second = await sourceWithTwoTurns(host, "ses_ft")
    const messages = host.session("ses_ft").messages
    // Through the user's second prompt: its turn (where A was done) is not in the fork.
    const through = await host.fork("ses_ft", second, { shape: "boundary", type: "through" })
    expect(await viewOf(host, through)).toEqual(["A:in_progress", "B:pending", "C:pending"])
    // Through the assistant message that marked A done: the fork has that change.
    const doneAt = messages.filter((m) => m.role === "assistant").at(-1)!.id!
    const after = await host.fork("ses_ft", doneAt, { shape: "boundary", type: "through" })
    expect(await viewOf(host, after)).toEqual(["A:completed", "B:in_progress", "C:pending"])
  })
})

describe("OpenCode 2: compaction", () => {
  it("gives the summarizer the list, and tells the model the list after the compaction", async () => {
    const host = await start()
    await host.prompt("ses_k", "Build")
    await host.call("ses_k", "todo", PLAN)
    const compaction = await host.compact("ses_k")
    expect(compaction.system.some((p) => p.text.includes("Include it verbatim in the summary"))).toBe(true)
    await host.prompt("ses_k", "Continue")
    const texts = requestTexts(await host.request("ses_k"))
    expect(texts.some((t) => t.includes("The conversation was compacted"))).toBe(true)
  })
})

describe("OpenCode 2: compaction is no undo", () => {
  it("keeps the list for the server that saw it and for one that loads the session afterwards", async () => {
    const host = await start()
    await host.prompt("ses_kc", "Build")
    await host.call("ses_kc", "todo", PLAN)
    await host.idle("ses_kc")
    await host.prompt("ses_kc", "Do A")
    await host.call("ses_kc", "todo", { op: "done", task: "A" })
    await host.idle("ses_kc")
    await host.compact("ses_kc")
    const list = async (on: V2Host) =>
      statuses(((await on.rpc("list", { sessionID: "ses_kc" })) as { list: unknown }).list)
    expect(await list(host)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    // A restart (or a second window): the host shows it only the conversation after the compaction.
    const second = await start({ sameData: host })
    expect(await list(second)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    await second.prompt("ses_kc", "Continue")
    const view = await second.call("ses_kc", "todo", { op: "view" })
    expect(statuses(view.metadata.list)).toEqual(["A:completed", "B:in_progress", "C:pending"])
  })
})

describe("OpenCode 2: an agent that may not call todo", () => {
  it("learns a new session's agent from the host's session.created: an agent that asks for todo gets no prelude", async () => {
    const host = await start({
      pluginOptions: { eager: "always" },
      agents: [
        { id: "build", permissions: [{ action: "*", resource: "*", effect: "allow" }] },
        {
          id: "careful",
          permissions: [
            { action: "*", resource: "*", effect: "allow" },
            { action: "todo", resource: "*", effect: "ask" },
          ],
        },
      ],
    })
    await host.prompt("ses_k", "Plan a parser", "careful")
    const request = await host.request("ses_k", "primary", "careful")
    expect(requestTexts(request).some((t) => t.startsWith(MARKER))).toBe(false)
  })

  it("is offered no todo tool and gets no prelude, notices or reminders", async () => {
    const host = await start({
      pluginOptions: { eager: "always" },
      agents: [
        { id: "build", permissions: [{ action: "*", resource: "*", effect: "allow" }] },
        {
          id: "plan",
          permissions: [
            { action: "*", resource: "*", effect: "allow" },
            { action: "todo", resource: "*", effect: "deny" },
          ],
        },
      ],
    })
    await host.prompt("ses_x", "Plan a parser", "plan")
    const request = await host.request("ses_x", "primary", "plan")
    expect(Object.keys(request.tools)).not.toContain("todo")
    expect(requestTexts(request).some((t) => t.startsWith(MARKER))).toBe(false)
    await host.reply("ses_x", "Here is a plan.")
    await host.idle("ses_x")
    await new Promise((r) => setTimeout(r, 100))
    expect(host.synthetics).toEqual([])
  })
})

describe("OpenCode 2: storage", () => {
  it("keeps the list in the shared file store (one record per session)", async () => {
    const host = await start()
    await host.prompt("ses_z", "Build")
    await host.call("ses_z", "todo", PLAN)
    expect(readdirSync(host.storeDir).some((name) => name.includes("ses_z"))).toBe(true)
  })
})
