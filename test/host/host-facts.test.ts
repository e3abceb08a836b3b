// The list follows what the host knows, not which events a server saw: an undo, a restart of OpenCode, then a
// redo; two OpenCode servers on one data folder (two windows), undo in one and redo in the other; a prompt that
// commits an undo another server recorded. The fake host keeps the conversation and its revert point as the
// real one does (GET /session/:id, GET /session/:id/message/:messageID), and each server is sent only the
// events of its own process.
import { describe, expect, it } from "vitest"
import type { TodoList } from "../../src/core/list/types.ts"
import { type FakeHost, fakeHosts } from "../fixtures/host.ts"

const startHost = fakeHosts()

const MODEL = { providerID: "mock", modelID: "m" }
const S = "ses_facts"
const PLAN = { list: [{ phase: "Build", items: ["A", "B", "C"] }] }

interface Part {
  id: string
  sessionID: string
  messageID: string
  type: string
  [key: string]: unknown
}

/** The host's side of one session: its messages and revert point, shared by every server on the machine. */
class HostSession {
  private seq = 0
  messages: { info: Record<string, unknown>; parts: Part[] }[] = []
  revert: { messageID: string; partID?: string } | undefined
  constructor(readonly first: FakeHost) {
    this.publish()
  }
  private id(prefix: string): string {
    return `${prefix}_${String(++this.seq).padStart(4, "0")}`
  }
  private publish(): void {
    this.first.transcripts.set(S, {
      info: { id: S, title: "facts", time: { created: 1 }, ...(this.revert ? { revert: this.revert } : {}) },
      messages: this.messages,
    })
  }
  /** A prompt through `h`: the host commits a pending undo (removes the undone messages) before the hook runs. */
  async prompt(h: FakeHost, text: string): Promise<string> {
    const removed = this.revert ? this.commit() : []
    const info = {
      id: this.id("msg"),
      sessionID: S,
      role: "user",
      agent: "build",
      model: MODEL,
      time: { created: 2 },
    }
    const parts: Part[] = [{ id: this.id("prt"), sessionID: S, messageID: info.id, type: "text", text }]
    this.messages.push({ info, parts })
    this.publish()
    await h.hooks["chat.message"]!({ sessionID: S, agent: "build", model: MODEL }, {
      message: info,
      parts,
    } as never)
    for (const messageID of removed) await h.event("message.removed", { sessionID: S, messageID })
    if (removed.length > 0) await h.event("session.updated", { info: { id: S } })
    return info.id
  }
  private commit(): string[] {
    const at = this.revert!.messageID
    const removed = this.messages.filter((m) => String(m.info.id) >= at).map((m) => String(m.info.id))
    this.messages = this.messages.filter((m) => String(m.info.id) < at)
    this.revert = undefined
    return removed
  }
  /** An assistant message with one todo call, through `h`. */
  async call(h: FakeHost, args: unknown): Promise<string> {
    const info = {
      id: this.id("msg"),
      sessionID: S,
      role: "assistant",
      finish: "tool-calls",
      time: { created: 3 },
    }
    const partID = this.id("prt")
    const callID = `call_${partID}`
    const part: Part = { id: partID, sessionID: S, messageID: info.id, type: "tool", tool: "todo", callID }
    this.messages.push({ info, parts: [part] })
    this.publish()
    await h.event("message.updated", { info })
    await h.event("message.part.updated", { part: { ...part, state: { status: "pending" } } })
    const result = (await h.hooks.tool!.todo!.execute(args as never, {
      ...h.ctx(S, callID),
      messageID: info.id,
    })) as unknown as { output: string }
    return result.output
  }
  /** /undo in the window of `h`: only that server hears of it. */
  async undo(h: FakeHost, messageID: string): Promise<void> {
    this.revert = { messageID }
    this.publish()
    await h.event("session.updated", { info: { id: S, revert: { messageID, snapshot: "x", diff: "" } } })
  }
  /** /redo in the window of `h`. */
  async redo(h: FakeHost): Promise<void> {
    this.revert = undefined
    this.publish()
    await h.event("session.updated", { info: { id: S } })
  }
}

const statuses = (list: TodoList) => list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))
const stored = async (h: FakeHost) => statuses((await h.store.read(S)).list)

/** Plan A, B, C; done A; done B: three turns through `h`. Returns each turn's user message. */
async function planDoneDone(host: HostSession, h: FakeHost): Promise<string[]> {
  const turns: string[] = []
  for (const [text, args] of [
    ["Plan", PLAN],
    ["done A", { op: "done", task: "A" }],
    ["done B", { op: "done", task: "B" }],
  ] as const) {
    turns.push(await host.prompt(h, text))
    await host.call(h, args)
  }
  return turns
}

async function started(): Promise<{ h: FakeHost; host: HostSession }> {
  const h = await startHost()
  await h.event("session.created", { info: { id: S } })
  return { h, host: new HostSession(h) }
}

async function another(h: FakeHost): Promise<FakeHost> {
  return startHost({ sharing: h })
}

describe("the list follows the host's facts, whatever events a server saw", () => {
  it("undo, restart OpenCode, redo: the redone list, and the next call builds on it", async () => {
    const { h, host } = await started()
    const turns = await planDoneDone(host, h)
    await host.undo(h, turns[2]!)
    expect(await stored(h)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    // OpenCode restarts: a new server on the same data folder, which never saw the undo.
    const restarted = await another(h)
    await host.redo(restarted)
    expect(await stored(restarted)).toEqual(["A:completed", "B:completed", "C:in_progress"])
    expect(await restarted.command(S, "")).toMatch(/\[x\] "B"[\s\S]*\[>\] "C"/)
    await host.prompt(restarted, "done C")
    await host.call(restarted, { op: "done", task: "C" })
    expect(await stored(restarted)).toEqual(["A:completed", "B:completed", "C:completed"])
  })

  it("two servers on one data folder: undo in one, redo in the other gives the whole list back", async () => {
    const { h, host } = await started()
    const other = await another(h)
    const turns = await planDoneDone(host, h)
    await host.undo(h, turns[2]!)
    expect(await stored(other)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    await host.redo(other)
    expect(await stored(h)).toEqual(["A:completed", "B:completed", "C:in_progress"])
    expect(await other.command(S, "")).toMatch(/\[x\] "B"[\s\S]*\[>\] "C"/)
  })

  it("an undo one server recorded, committed by a prompt in the other: the undone states are gone for good", async () => {
    const { h, host } = await started()
    const other = await another(h)
    const turns = await planDoneDone(host, h)
    await host.undo(h, turns[2]!)
    await host.prompt(other, "try B again")
    expect(await stored(other)).toEqual(["A:completed", "B:in_progress", "C:pending"])
    // A redo now has nothing to bring back.
    await host.redo(h)
    expect(await stored(h)).toEqual(["A:completed", "B:in_progress", "C:pending"])
  })
})
