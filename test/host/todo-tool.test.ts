// The `todo` tool (src/server/todo-tool.ts) through the real server plugin: each call runs the core once, under
// the session's lock, on the stored list, and its answer (output, title, metadata) says what that one run did.

import { describe, expect, it } from "vitest"
import { CARRIED_LIST_VERSION } from "../../src/core/list/carried.ts"
import { SUBAGENT_REFUSAL } from "../../src/core/model/prompts.ts"
import { LIST_FAILED } from "../../src/store/store.ts"
import { type FakeHost, fakeHosts } from "../fixtures/host.ts"

const host = fakeHosts()

const PLAN = { op: "init", list: [{ phase: "Build", items: ["Write parser", "Test parser"] }] }

interface Answer {
  readonly title: string
  readonly output: string
  readonly metadata: { ok: boolean; changed?: boolean; list: unknown; version: number }
}

/** Calls the tool as the host does and keeps its whole answer (the fake host's `call` keeps only part). */
async function call(h: FakeHost, session: string, args: unknown): Promise<Answer> {
  return (await h.hooks.tool!.todo!.execute(args as never, h.ctx(session))) as unknown as Answer
}

const texts = (list: unknown) =>
  (list as { tasks: { text: string; status: string }[] }[]).flatMap((p) =>
    p.tasks.map((t) => `${t.text}:${t.status}`),
  )

describe("the todo tool", () => {
  it("init stores the list and answers with it: ok, changed, the list in the metadata", async () => {
    const h = await host()
    const answer = await call(h, "s1", PLAN)
    const stored = await h.store.read("s1")
    expect(texts(stored.list)).toEqual(["Write parser:in_progress", "Test parser:pending"])
    expect(stored.revision).toBe(1)
    expect(answer.metadata).toEqual({
      ok: true,
      changed: true,
      list: stored.list,
      version: CARRIED_LIST_VERSION,
    })
    expect(answer.title).toBe(answer.output.split("\n")[0]!.slice(0, 80))
    expect(answer.output).toContain("Write parser")
  })

  it("done changes the stored list once, and the metadata carries the list after it", async () => {
    const h = await host()
    await call(h, "s1", PLAN)
    const answer = await call(h, "s1", { op: "done", task: "Write parser" })
    const stored = await h.store.read("s1")
    expect(texts(stored.list)).toEqual(["Write parser:completed", "Test parser:in_progress"])
    expect(stored.revision).toBe(2)
    expect(answer.metadata).toMatchObject({ ok: true, changed: true, list: stored.list })
  })

  it("a call that changes nothing writes nothing and says it changed nothing", async () => {
    const h = await host()
    await call(h, "s1", PLAN)
    const before = await h.store.stamp("s1")
    const answer = await call(h, "s1", { op: "view" })
    expect(answer.metadata).toMatchObject({ ok: true, changed: false })
    expect(await h.store.stamp("s1")).toBe(before)
  })

  it("a bad call changes nothing and answers with the error as its result, not a throw", async () => {
    const h = await host()
    await call(h, "s1", PLAN)
    const before = await h.store.read("s1")
    const answer = await call(h, "s1", { op: "done", task: "No such task" })
    expect(answer.title).toBe("todo: error")
    expect(answer.output).toMatch(/^Error/)
    expect(answer.output).toContain("No such task")
    expect(answer.metadata).toEqual({
      ok: false,
      changed: false,
      list: before.list,
      version: CARRIED_LIST_VERSION,
    })
    expect((await h.store.read("s1")).revision).toBe(before.revision)
  })

  it("runs the core once per call: a run that fails under the lock is an error, never a second run outside it", async () => {
    const h = await host()
    await call(h, "s1", PLAN)
    const before = await h.store.read("s1")
    // The first read of `task` throws inside the locked change; a second run would read it and succeed.
    let reads = 0
    const args = {
      op: "done",
      get task() {
        reads++
        if (reads === 1) throw new Error("the arguments could not be read")
        return "Write parser"
      },
    }
    const answer = await call(h, "s1", args)
    expect(reads).toBe(1)
    expect(answer.title).toBe("todo: error")
    expect(answer.output).toBe(`Error: ${LIST_FAILED}`)
    expect(answer.metadata).toEqual({ ok: false, list: before.list, version: CARRIED_LIST_VERSION })
    const after = await h.store.read("s1")
    expect([after.revision, texts(after.list)]).toEqual([before.revision, texts(before.list)])
    expect(h.logs.filter((l) => l.includes("the arguments could not be read"))).toHaveLength(1)
  })

  it("tells the result against the list under the lock: a change another process made first is kept", async () => {
    const h = await host()
    await call(h, "s1", PLAN)
    // The TUI's store adds a task; the tool's next call reads it with the lock and changes it as stored.
    await h.store.update("s1", (s) => ({
      next: {
        ...s,
        list: [{ ...s.list[0]!, tasks: [...s.list[0]!.tasks, { text: "Ship", status: "pending" }] }],
      },
    }))
    const answer = await call(h, "s1", { op: "done", task: "Ship" })
    expect(answer.metadata).toMatchObject({ ok: true, changed: true })
    expect(texts(answer.metadata.list)).toEqual([
      "Write parser:in_progress",
      "Test parser:pending",
      "Ship:completed",
    ])
    expect(texts((await h.store.read("s1")).list)).toEqual(texts(answer.metadata.list))
  })

  it("refuses a subagent's call once, before the host asks the user to approve it, and stores nothing", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "child", parentID: "s1" } })
    let asks = 0
    const ctx = { ...h.ctx("child"), ask: async () => void asks++ }
    const answer = await h.hooks.tool!.todo!.execute(PLAN as never, ctx as never)
    expect(answer).toBe(SUBAGENT_REFUSAL)
    expect(asks).toBe(0)
    expect(await h.store.stamp("child")).toBeUndefined()
  })

  it("asks the host once for a call that may run, before it runs", async () => {
    const h = await host()
    const asked: number[] = []
    const ctx = { ...h.ctx("s1"), ask: async () => void asked.push((await h.store.read("s1")).revision) }
    await h.hooks.tool!.todo!.execute(PLAN as never, ctx as never)
    expect(asked).toEqual([0])
    expect((await h.store.read("s1")).revision).toBe(1)
  })
})
