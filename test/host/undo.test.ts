// The server hooks under the host's /undo and /redo, driven in the order the 1.18 host sends its events: the
// list the server uses (the todo tool, /todo, the texts it sends the model) follows each revert at once, a redo
// brings the newest list back, and the next prompt commits the undo for good.
import { describe, expect, it } from "vitest"
import { listAt } from "../../src/core/history/history.ts"
import { parseCommand } from "../../src/core/list/command.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { DEFAULT_LIMITS, type TodoList } from "../../src/core/list/types.ts"
import { runUserOps } from "../../src/shared/user-edits.ts"
import { historyOf } from "../../src/store/record.ts"
import { ALLOW_ALL, type FakeHost, fakeHosts } from "../fixtures/host.ts"

const host = fakeHosts()

const MODEL = { providerID: "mock", modelID: "m" }
const S = "ses_undo"
const PLAN = { list: [{ phase: "Build", items: ["Write parser", "Test parser", "Ship it"] }] }

/** One session, message ids ascending as the host mints them. */
class Conversation {
  private seq = 0
  /** The id of the latest prompt. */
  lastUser = ""
  constructor(readonly h: FakeHost) {}
  id(prefix: string): string {
    return `${prefix}_${String(++this.seq).padStart(4, "0")}`
  }
  /** A prompt the host commits a pending undo before; returns the text the plugin attached. */
  async prompt(text: string): Promise<string> {
    return this.message([{ type: "text", text }])
  }
  /** A user message of `parts` (the host gives them ids); returns the text the plugin attached. */
  async message(content: readonly unknown[], id = this.id("msg")): Promise<string> {
    const message = { id, sessionID: S, role: "user", agent: "build", model: MODEL }
    this.lastUser = message.id
    const parts = content.map((p) => ({ ...(p as object), id: this.id("prt"), sessionID: S, messageID: id }))
    await this.h.hooks["chat.message"]!({ sessionID: S, agent: "build", model: MODEL }, {
      message,
      parts,
    } as never)
    return parts
      .slice(content.length)
      .map((p) => (p as { text?: string }).text)
      .join("\n")
  }
  /** `/todo <text>` as the host runs it: the command hook, then the command's own message from its parts. */
  async command(text: string): Promise<string> {
    const parts = await this.h.commandParts(S, text)
    await this.message(parts)
    return parts.map((p) => (p as { text?: string }).text ?? "").join("\n")
  }
  /** An assistant message with one todo call, announced first as the host does; returns the tool's output. */
  async call(args: unknown): Promise<{ message: string; output: string }> {
    const message = this.id("msg")
    const partID = this.id("prt")
    const callID = `call_${partID}`
    await this.h.event("message.updated", {
      info: { id: message, sessionID: S, role: "assistant", finish: "tool-calls" },
    })
    const part = { id: partID, sessionID: S, messageID: message, type: "tool", tool: "todo", callID }
    await this.h.event("message.part.updated", { part: { ...part, state: { status: "pending" } } })
    const result = (await this.h.hooks.tool!.todo!.execute(args as never, {
      ...this.h.ctx(S, callID),
      messageID: message,
    })) as unknown as { output: string }
    return { message, output: result.output }
  }
  /**
   * One assistant message with a todo call per entry of `calls`, each in its own part, announced first; the
   * host runs them in parallel and they finish in `order` (indexes into `calls`). Returns the message and parts.
   */
  async parallel(
    calls: readonly unknown[],
    order: readonly number[],
  ): Promise<{ message: string; parts: string[] }> {
    const message = this.id("msg")
    const parts = calls.map(() => this.id("prt"))
    await this.h.event("message.updated", {
      info: { id: message, sessionID: S, role: "assistant", finish: "tool-calls" },
    })
    for (const partID of parts)
      await this.h.event("message.part.updated", {
        part: {
          id: partID,
          sessionID: S,
          messageID: message,
          type: "tool",
          tool: "todo",
          callID: `call_${partID}`,
          state: { status: "running" },
        },
      })
    for (const i of order)
      await this.h.hooks.tool!.todo!.execute(calls[i] as never, {
        ...this.h.ctx(S, `call_${parts[i]}`),
        messageID: message,
      })
    return { message, parts }
  }
  revert(messageID: string, partID?: string): Promise<void> {
    return this.h.event("session.updated", {
      info: { id: S, revert: { messageID, snapshot: "4b8", diff: "", ...(partID ? { partID } : {}) } },
    })
  }
  unrevert(): Promise<void> {
    return this.h.event("session.updated", { info: { id: S } })
  }
  /** What the host sends when the next prompt commits: removals, then the revert cleared. */
  async removals(messageIDs: readonly string[]): Promise<void> {
    for (const messageID of messageIDs) await this.h.event("message.removed", { sessionID: S, messageID })
    await this.unrevert()
  }
}

async function started(): Promise<Conversation> {
  const h = await host()
  await h.event("session.created", { info: { id: S } })
  return new Conversation(h)
}

/** Plan, done, done: three turns. Returns the user message of each turn. */
async function planDoneDone(c: Conversation): Promise<string[]> {
  const turns: string[] = []
  for (const [text, args] of [
    ["Fix the parser", PLAN],
    ["Go on", { op: "done", task: "Write parser" }],
    ["And the tests", { op: "done", task: "Test parser" }],
  ] as const) {
    await c.prompt(text)
    turns.push(c.lastUser)
    await c.call(args)
  }
  return turns
}

const view = (c: Conversation) => c.h.command(S, "")
const stored = async (h: FakeHost) => (await h.store.read(S)).list

describe("undo and redo", () => {
  it("revert: /todo and the stored list show the list before the point at once; redo: the newest", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.revert(turns[2]!)
    expect(await view(c)).toMatch(/\[x\] "Write parser"[\s\S]*\[>\] "Test parser"/)
    expect((await stored(c.h))[0]!.tasks[1]!.status).toBe("in_progress")
    await c.unrevert()
    expect(await view(c)).toMatch(/\[x\] "Test parser"[\s\S]*\[>\] "Ship it"/)
    // Two reverts in a row: the second point wins.
    await c.revert(turns[2]!)
    await c.revert(turns[1]!)
    expect((await stored(c.h))[0]!.tasks.map((t) => t.status)).toEqual(["in_progress", "pending", "pending"])
    expect(c.h.logs).toEqual([])
  })

  it("commit: the next prompt drops the undone states for good and work goes on from the restored list", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.revert(turns[2]!)
    // The hook runs before the host's removal events reach the plugin.
    await c.prompt("Try the tests again")
    await c.removals([turns[2]!, `msg_${turns[2]!.slice(4, 8)}`])
    const again = await c.call({ op: "view" })
    expect(again.output).toMatch(/\[>\] "Test parser"/)
    expect((await c.call({ op: "done", task: "Test parser" })).output).toContain('Done "Test parser"')
    // A redo now has nothing to bring back: the undone call is gone from the history.
    const history = historyOf(await c.h.store.read(S))
    await c.unrevert()
    expect(listAt(history, { message: turns[2]! }).list[0]!.tasks[1]!.status).toBe("in_progress")
    expect((await stored(c.h))[0]!.tasks.map((t) => t.status)).toEqual([
      "completed",
      "completed",
      "in_progress",
    ])
    expect(c.h.logs).toEqual([])
  })

  it("a partial revert inside an assistant message undoes the calls from that part on", async () => {
    const c = await started()
    await c.prompt("Fix the parser")
    await c.call(PLAN)
    const second = await c.call({ op: "done", task: "Write parser" })
    // The host cuts at the second call's part: everything before that part stays.
    const part = `prt_${String(Number(second.message.slice(4)) + 1).padStart(4, "0")}`
    await c.revert(second.message, part)
    expect((await stored(c.h))[0]!.tasks[0]!.status).toBe("in_progress")
  })

  it("/todo while reverted edits the list the user sees; the next prompt keeps that edit", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.revert(turns[2]!)
    // The host runs the command hook first, then commits the undo for the command's own message.
    const reply = await c.command('rm "Ship it"')
    expect(reply).toContain('removed "Ship it"')
    await c.removals([turns[2]!])
    const list = await stored(c.h)
    expect(list[0]!.tasks.map((t) => `${t.text}:${t.status}`)).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
    ])
  })

  it("an edit made while reverted comes back on redo made again on the newest list", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.revert(turns[2]!)
    const at = { kind: "reverted" as const, point: { message: turns[2]! } }
    const block = {
      op: "block" as const,
      target: { kind: "task" as const, text: "Ship it" },
      reason: "needs a token",
    }
    expect(
      (
        await runUserOps({ store: c.h.store, session: S, limits: DEFAULT_LIMITS, notify: "none", at }, [
          block,
        ])
      ).ok,
    ).toBe(true)
    await c.unrevert()
    expect(await stored(c.h)).toEqual([
      {
        name: "Build",
        tasks: [
          { text: "Write parser", status: "completed" },
          { text: "Test parser", status: "completed" },
          { text: "Ship it", status: "blocked", blocker: "needs a token" },
        ],
      },
    ])
    expect(c.h.toasts.filter((t) => t.variant === "warning")).toEqual([])
  })

  it("one that no longer applies on the newest list is dropped, the user told once, the model of the others only", async () => {
    const c = await started()
    await c.prompt("Plan")
    await c.call(PLAN)
    await c.prompt("Drop the release")
    const undone = c.lastUser
    await c.call({ op: "rm", task: "Ship it" })
    await c.revert(undone)
    const at = { kind: "reverted" as const, point: { message: undone } }
    const block = {
      op: "block" as const,
      target: { kind: "task" as const, text: "Ship it" },
      reason: "needs a token",
    }
    await runUserOps({ store: c.h.store, session: S, limits: DEFAULT_LIMITS, notify: "record", at }, [block])
    await runUserOps({ store: c.h.store, session: S, limits: DEFAULT_LIMITS, notify: "record", at }, [
      { op: "append", phase: "Build", items: ["Write docs"] },
    ])
    // A hook reads the notes while the undo is pending (they wait: nothing is told during an undo).
    await view(c)
    await c.unrevert()
    expect((await stored(c.h))[0]!.tasks.map((t) => t.text)).toEqual([
      "Write parser",
      "Test parser",
      "Write docs",
    ])
    const warnings = c.h.toasts.filter((t) => t.variant === "warning")
    expect(warnings).toHaveLength(1)
    expect(warnings[0]!.message).toContain("Ship it")
    const told = await c.prompt("Go on")
    expect(told).toContain("Write docs")
    expect(told).not.toContain("Ship it")
  })
})

describe("events are followed in the order the host sends them", () => {
  it("a revert sent while the hook of the prompt before it still runs waits for it, so the prompt does not commit it", async () => {
    // The host hands hooks and events over without waiting; the first prompt waits for the agents' rules.
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const h = await host({
      agents: async () => {
        await gate
        return { data: [{ name: "build", permission: [ALLOW_ALL] }] }
      },
    })
    await h.event("session.created", { info: { id: S } })
    const c = new Conversation(h)
    const plan = [{ op: "init" as const, list: [{ phase: "Build", items: ["Write parser", "Ship it"] }] }]
    await runUserOps(
      {
        store: h.store,
        session: S,
        limits: DEFAULT_LIMITS,
        notify: "none",
        at: { kind: "after", message: "msg_0001" },
      },
      plan,
    )
    const prompt = c.prompt("Fix the parser")
    const reverted = c.revert("msg_0001")
    // Long enough for the revert to be followed had it not waited for the prompt before it.
    await new Promise((resolve) => setTimeout(resolve, 200))
    release()
    await Promise.all([prompt, reverted])
    expect(await stored(h)).toEqual([])
    await c.unrevert()
    expect((await stored(h))[0]!.tasks.map((t) => t.text)).toEqual(["Write parser", "Ship it"])
  })
})

describe("a /todo command's edit belongs to the command's own message", () => {
  // The host runs the command hook before it mints the command's message: the edit is recorded after the
  // message before it, and moves to the command's message once the host sends that message.
  const texts = (list: Awaited<ReturnType<typeof stored>>) => list.flatMap((p) => p.tasks.map((t) => t.text))

  it("an undo at the command's message takes its edit back, a redo brings it again, a fork there starts without it", async () => {
    const c = await started()
    await planDoneDone(c)
    expect(await c.command('rm "Ship it"')).toContain('removed "Ship it"')
    const command = c.lastUser
    expect(texts(await stored(c.h))).not.toContain("Ship it")
    // A fork at the command's message reads the history strictly before it.
    expect(texts(listAt(historyOf(await c.h.store.read(S)), { message: command }).list)).toContain("Ship it")
    await c.revert(command)
    expect(texts(await stored(c.h))).toContain("Ship it")
    await c.unrevert()
    expect(texts(await stored(c.h))).not.toContain("Ship it")
    expect(c.h.logs).toEqual([])
  })

  it("the same for a command that commits an undo: the undo at its message keeps the commit, not the edit", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.revert(turns[2]!)
    await c.command('rm "Ship it"')
    const command = c.lastUser
    await c.removals([turns[2]!])
    expect(texts(await stored(c.h))).toEqual(["Write parser", "Test parser"])
    await c.revert(command)
    const list = await stored(c.h)
    expect(list[0]!.tasks.map((t) => `${t.text}:${t.status}`)).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:pending",
    ])
  })

  it("two commands at once: each edit settles on its own message, whichever message comes first", async () => {
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const c = await started()
      await planDoneDone(c)
      // Both hooks run before the host mints either command's message; the host mints them in `order`.
      const hooks = await Promise.all([
        c.h.commandParts(S, 'rm "Ship it"'),
        c.h.commandParts(S, "append Write docs"),
      ])
      const ids = [c.id("msg"), c.id("msg")]
      for (const i of order) await c.message(hooks[i]!, ids[order.indexOf(i)])
      const own = (i: number) => ids[order.indexOf(i)]!
      const both = ["Write parser", "Test parser", "Write docs"]
      expect(texts(await stored(c.h))).toEqual(both)
      const rmFirst = order[0] === 0
      // Undo at the rm's message: the rm is taken back; the append stays only when its message comes first.
      await c.revert(own(0))
      expect(texts(await stored(c.h))).toEqual(
        rmFirst
          ? ["Write parser", "Test parser", "Ship it"]
          : // The append, made on the list without "Ship it", is made again on the list with it, as typed.
            ["Write parser", "Test parser", "Ship it", "Write docs"],
      )
      // Undo at the append's message: the append is taken back; the rm stays only when its message comes first.
      await c.revert(own(1))
      expect(texts(await stored(c.h))).toEqual(
        rmFirst ? ["Write parser", "Test parser"] : ["Write parser", "Test parser", "Ship it"],
      )
      await c.unrevert()
      expect(texts(await stored(c.h))).toEqual(both)
      expect(c.h.logs).toEqual([])
    }
  })

  it("two commands racing: an undo to each one's message shows the list before it, whatever order the store wrote them in", async () => {
    const states = (list: TodoList) => list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))
    const PAIRS = [
      ['rm "Ship it"', "append Write docs"],
      ['rename "Ship it" -- Ship', 'done "Ship it"'],
      ['block "Ship it" -- waiting for ops', "append Write docs"],
      ["append A", "append B"],
    ]
    for (const pair of PAIRS)
      for (const ran of [
        [0, 1],
        [1, 0],
      ])
        for (const [minted, heard] of [
          [
            [0, 1],
            [0, 1],
          ],
          [
            [1, 0],
            [1, 0],
          ],
          [
            [0, 1],
            [1, 0],
          ],
          [
            [1, 0],
            [0, 1],
          ],
        ] as const) {
          const c = await started()
          await planDoneDone(c)
          const before = await stored(c.h)
          // The hooks run (and their store writes settle) in `ran`; the host mints their messages in `minted`.
          const parts: unknown[][] = []
          const ranOn: TodoList[] = []
          for (const i of ran) {
            ranOn[i] = await stored(c.h)
            parts[i] = await c.h.commandParts(S, pair[i]!)
          }
          const both = states(await stored(c.h))
          // The host mints the messages' ids in `minted`; its hooks hear of them in `heard`.
          const ids: string[] = []
          for (const i of minted) ids[i] = c.id("msg")
          for (const i of heard) await c.message(parts[i]!, ids[i])
          // Before the first message: the list before both. Before the second: the first one's command alone, as
          // it resolved on the list it ran on.
          const parsed = parseCommand(pair[minted[0]!]!, ranOn[minted[0]!]!)
          const plan = parsed.ok ? parsed.value : undefined
          const first = executeOps(before, plan?.kind === "ops" ? plan.ops : [])
          const expected = [states(before), states(first.ok ? first.list : before)]
          const seen = []
          for (const i of minted) {
            await c.revert(ids[i]!)
            seen.push(states(await stored(c.h)))
          }
          const label = `${pair.join(" | ")}, run ${ran}, minted ${minted}, heard ${heard}`
          expect([label, seen]).toEqual([label, expected])
          await c.unrevert()
          expect([label, states(await stored(c.h))]).toEqual([label, both])
          expect(c.h.logs).toEqual([])
        }
  })

  it("a prompt sent while a command waits for its message takes no command's edit", async () => {
    const c = await started()
    await planDoneDone(c)
    const parts = await c.h.commandParts(S, 'rm "Ship it"')
    await c.prompt("Meanwhile, a question")
    await c.message(parts)
    // The undo at the command's message keeps the prompt before it, and takes the command's edit back.
    await c.revert(c.lastUser)
    expect(texts(await stored(c.h))).toContain("Ship it")
  })

  it("a command that changed nothing moves no earlier edit", async () => {
    const c = await started()
    await planDoneDone(c)
    // A dialog edit after the last message, then a /todo that only shows the list.
    const at = { kind: "after" as const, message: c.lastUser }
    await runUserOps({ store: c.h.store, session: S, limits: DEFAULT_LIMITS, notify: "none", at }, [
      { op: "rm", target: { kind: "task", text: "Ship it" } },
    ])
    await c.command("")
    await c.revert(c.lastUser)
    expect(texts(await stored(c.h))).not.toContain("Ship it")
  })
})

describe("parallel todo calls in one reply stay at their own parts", () => {
  const statuses = (list: Awaited<ReturnType<typeof stored>>) =>
    list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))

  it("the later part's call finishes first: an undo at the later part keeps the earlier call", async () => {
    const c = await started()
    await c.prompt("Plan")
    await c.call(PLAN)
    await c.prompt("Two at once")
    const done = { op: "done", task: "Write parser" }
    const block = { op: "block", task: "Ship it", reason: "needs a token" }
    const { message, parts } = await c.parallel([done, block], [1, 0])
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:blocked",
    ])
    // The host keeps the first part (and its result): its call stands; the second is undone.
    await c.revert(message, parts[1])
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:pending",
    ])
    await c.revert(message, parts[0])
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:in_progress",
      "Test parser:pending",
      "Ship it:pending",
    ])
    await c.unrevert()
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:blocked",
    ])
    // A fork at the second part starts with the first call only.
    const history = historyOf(await c.h.store.read(S))
    expect(statuses(listAt(history, { message, part: parts[1]! }).list)).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:pending",
    ])
    expect(c.h.logs).toEqual([])
  })

  it("three calls finishing last to first: each undo point keeps exactly the calls before it", async () => {
    const c = await started()
    await c.prompt("Plan")
    await c.call(PLAN)
    await c.prompt("Three at once")
    const calls = [
      { op: "done", task: "Write parser" },
      { op: "append", phase: "Build", items: ["Write docs"] },
      { op: "block", task: "Ship it", reason: "needs a token" },
    ]
    const { message, parts } = await c.parallel(calls, [2, 1, 0])
    await c.revert(message, parts[2])
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:pending",
      "Write docs:pending",
    ])
    await c.revert(message, parts[1])
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:pending",
    ])
    await c.unrevert()
    expect(statuses(await stored(c.h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:blocked",
      "Write docs:pending",
    ])
  })
})

describe("a call's part is taken from the host's announcement, not asked for", () => {
  const statuses = (list: Awaited<ReturnType<typeof stored>>) =>
    list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))

  it("parts announced while an earlier event is still followed: each call stays at its own part, the host is not asked", async () => {
    // The first prompt's hook waits for the agents' rules: events after it wait their turn behind it.
    let release = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const h = await host({
      agents: async () => {
        await gate
        return { data: [{ name: "build", permission: [ALLOW_ALL] }] }
      },
    })
    await h.event("session.created", { info: { id: S } })
    const c = new Conversation(h)
    await runUserOps(
      {
        store: h.store,
        session: S,
        limits: DEFAULT_LIMITS,
        notify: "none",
        at: {
          kind: "after",
          message: "msg_0000",
        },
      },
      [{ op: "init", ...PLAN }],
    )
    const prompt = c.prompt("Two at once")
    const message = c.id("msg")
    const parts = [c.id("prt"), c.id("prt")]
    const callID = (i: number) => `call_${parts[i]}`
    // The host announces each call's part before it runs the call.
    const announced = parts.map((partID, i) =>
      h.event("message.part.updated", {
        part: {
          ...{ id: partID, sessionID: S, messageID: message, type: "tool", tool: "todo", callID: callID(i) },
          state: { status: "pending" },
        },
      }),
    )
    const asked = h.asked.length
    const run = (args: unknown, i: number) =>
      h.hooks.tool!.todo!.execute(args as never, { ...h.ctx(S, callID(i)), messageID: message })
    // The later part's call finishes first.
    await run({ op: "block", task: "Ship it", reason: "needs a token" }, 1)
    await run({ op: "done", task: "Write parser" }, 0)
    expect(h.asked.slice(asked)).not.toContain("session.message")
    release()
    await Promise.all([prompt, ...announced])
    await c.revert(message, parts[1])
    expect(statuses(await stored(h))).toEqual([
      "Write parser:completed",
      "Test parser:in_progress",
      "Ship it:pending",
    ])
    await c.revert(message, parts[0])
    expect(statuses(await stored(h))).toEqual([
      "Write parser:in_progress",
      "Test parser:pending",
      "Ship it:pending",
    ])
  })
})

describe("the model is never told something false", () => {
  it("a user edit queued before the undo is not told after it; one made after it is", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await runUserOps(
      {
        store: c.h.store,
        session: S,
        limits: DEFAULT_LIMITS,
        notify: "record",
        at: {
          kind: "after",
          message: "msg_9999",
        },
      },
      [{ op: "rm", target: { kind: "task", text: "Ship it" } }],
    )
    await c.revert(turns[2]!)
    const attached = await c.prompt("Carry on")
    expect(attached).not.toContain("Ship it")
    expect(await stored(c.h)).toEqual([
      {
        name: "Build",
        tasks: [
          { text: "Write parser", status: "completed" },
          { text: "Test parser", status: "in_progress" },
          { text: "Ship it", status: "pending" },
        ],
      },
    ])

    const carryOn = c.lastUser
    await c.call({ op: "done", task: "Test parser" })
    await c.revert(carryOn)
    await runUserOps(
      {
        store: c.h.store,
        session: S,
        limits: DEFAULT_LIMITS,
        notify: "record",
        at: {
          kind: "reverted",
          point: { message: carryOn },
        },
      },
      [{ op: "rm", target: { kind: "task", text: "Ship it" } }],
    )
    const told = await c.prompt("Go")
    expect(told).toContain('removed "Ship it"')
  })

  it("a user edit queued before an undo that is redone is told: the redo brought it back", async () => {
    const c = await started()
    await planDoneDone(c)
    const after = { kind: "after" as const, message: c.lastUser }
    const rm = [{ op: "rm" as const, target: { kind: "task" as const, text: "Ship it" } }]
    await runUserOps(
      { store: c.h.store, session: S, limits: DEFAULT_LIMITS, notify: "record", at: after },
      rm,
    )
    // A hook takes the note while nothing is pending, then the user undoes and redoes.
    await view(c)
    await c.revert(c.lastUser)
    await c.unrevert()
    expect(await c.prompt("Go on")).toContain('removed "Ship it"')
  })

  it("a redo the next prompt's hook comes before: the host's answer keeps the redone list and its notes", async () => {
    const c = await started()
    await c.prompt("Fix the parser")
    const first = c.lastUser
    const plan = await c.call(PLAN)
    const rm = [{ op: "rm" as const, target: { kind: "task" as const, text: "Ship it" } }]
    await runUserOps(
      {
        store: c.h.store,
        session: S,
        limits: DEFAULT_LIMITS,
        notify: "record",
        at: { kind: "after", message: plan.message },
      },
      rm,
    )
    await c.revert(first)
    expect(await stored(c.h)).toEqual([])
    // The host redid (no revert, every message kept), and its event comes after the prompt's hook.
    c.h.transcripts.set(S, {
      info: { id: S },
      messages: [first, plan.message].map((id) => ({ info: { id, sessionID: S }, parts: [] })),
    })
    expect(await c.prompt("Go on")).toContain('removed "Ship it"')
    await c.unrevert()
    expect((await stored(c.h)).flatMap((p) => p.tasks.map((t) => t.text))).toEqual([
      "Write parser",
      "Test parser",
    ])
    expect(await c.prompt("And on")).not.toContain('removed "Ship it"')
  })

  it("no reminder while an undo is pending: it would commit the user's undo", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.h.event("message.updated", {
      info: { id: "msg_0100", sessionID: S, role: "assistant", finish: "stop" },
    })
    await c.revert(turns[2]!)
    await c.h.event("session.idle", { sessionID: S })
    expect(c.h.prompts).toEqual([])
  })
})

describe("bad input", () => {
  it("a removal before its revert event: the list follows the removal, nothing logged twice, nothing thrown", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    await c.h.event("message.removed", { sessionID: S, messageID: turns[2]! })
    await c.h.event("message.removed", { sessionID: S, messageID: `msg_${turns[2]!.slice(4)}z` })
    await c.revert(turns[2]!)
    await c.unrevert()
    expect((await stored(c.h))[0]!.tasks[1]!.status).toBe("in_progress")
    expect(new Set(c.h.logs).size).toBe(c.h.logs.length)
    expect(c.h.logs.filter((l) => l.startsWith("error"))).toEqual([])
  })

  it("a revert to a message the history never saw keeps a consistent list", async () => {
    const c = await started()
    await planDoneDone(c)
    await c.revert("msg_9999")
    expect(
      (await stored(c.h))[0]!.tasks.every((t) => t.status !== "in_progress" || t.text === "Ship it"),
    ).toBe(true)
    await c.revert("msg_0000")
    expect(await stored(c.h)).toEqual([])
    await c.unrevert()
    expect((await stored(c.h))[0]!.tasks[2]!.status).toBe("in_progress")
    expect(c.h.logs.filter((l) => l.startsWith("error"))).toEqual([])
  })

  it("a corrupt stored history keeps the list, warns once, and an undo still answers", async () => {
    const c = await started()
    const turns = await planDoneDone(c)
    const { readFileSync, writeFileSync } = await import("node:fs")
    const file = c.h.store.file(S)
    const record = JSON.parse(readFileSync(file, "utf8"))
    record.history = { v: 1, spans: [{ l: ["xBroken"], e: [] }] }
    writeFileSync(file, JSON.stringify(record))
    await c.revert(turns[2]!)
    expect((await stored(c.h))[0]!.tasks.map((t) => t.text)).toEqual([
      "Write parser",
      "Test parser",
      "Ship it",
    ])
    expect(c.h.logs.filter((l) => l.startsWith("error"))).toEqual([])
  })
})
