// A session with no record (an import, a fork, another machine's) as the server meets it: its list is started
// from elsewhere once, the model hears of it only when it must, and a slow or hostile host changes nothing.

import { mkdirSync, renameSync, writeFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { historyFrom } from "../../src/core/history/history.ts"
import { recordCall, recordEdit } from "../../src/core/history/placement.ts"
import { CARRIED_LIST_VERSION, COMMAND_PART_KEY } from "../../src/core/list/carried.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { MARKER } from "../../src/core/model/prompts.ts"
import type { Client } from "../../src/server/output.ts"
import { originFinder } from "../../src/shared/origin.ts"
import { GOOD_KEPT } from "../../src/store/records.ts"
import { type FakeHost, fakeHosts } from "../fixtures/host.ts"
import { OPEN_SAMPLE, phase, task } from "../fixtures/lists.ts"

const host = fakeHosts()

const MODEL = { providerID: "mock", modelID: "m" }
const LATER: TodoList = [phase("Build", task("Write parser", "completed"), task("Add tests", "in_progress"))]

/** A message as GET /session/:id/message answers it; `lists` ride on completed todo tool parts. */
function message(id: string, role: string, created: number, lists: unknown[] = [], version: unknown = 1) {
  return {
    info: { id, role, sessionID: "x", time: { created } },
    parts: lists.map((list, i) => ({
      id: `prt_${id}_${i}`,
      type: "tool",
      tool: "todo",
      callID: `call_${id}_${i}`,
      state: {
        status: "completed",
        input: {},
        output: "…",
        metadata: { ok: true, changed: true, list, version },
      },
    })),
  }
}

async function prompt(h: FakeHost, sessionID: string, text = "Carry on.") {
  const msg = { id: "msg_new", sessionID, role: "user", agent: "build", model: MODEL }
  const parts = [{ id: "prt_new", sessionID, messageID: msg.id, type: "text", text }]
  await h.hooks["chat.message"]!({ sessionID, agent: "build", model: MODEL }, {
    message: msg,
    parts,
  } as never)
  return parts.slice(1).map((p) => p.text)
}

describe("a session met with no record", () => {
  it("is rebuilt from the last todo result of its conversation; the model, which saw that list, is told nothing", async () => {
    const h = await host()
    h.transcripts.set("ses_imp", {
      info: { id: "ses_imp", title: "Fix the parser", time: { created: 1 } },
      messages: [message("m1", "user", 10), message("m2", "assistant", 11, [LATER, OPEN_SAMPLE])],
    })
    expect(await prompt(h, "ses_imp")).toEqual([])
    expect((await h.store.read("ses_imp")).list).toEqual(OPEN_SAMPLE)
    const view = await h.call("ses_imp", { op: "view" })
    expect(view.output).toContain("Write README")
    expect(h.logs.filter((l) => l.includes("ses_imp"))).toEqual([
      'info: The todo list of session "ses_imp" was started from the last todo list its conversation shows: 4 tasks.',
    ])
  })

  it("a /todo reply carries the list too", async () => {
    const h = await host()
    const reply = {
      id: "prt_cmd",
      type: "text",
      text: `${MARKER}\nThe user changed the todo list with /todo`,
      metadata: { [COMMAND_PART_KEY]: { list: LATER, version: CARRIED_LIST_VERSION } },
    }
    h.transcripts.set("ses_cmd", {
      info: { id: "ses_cmd", title: "t", time: { created: 1 } },
      messages: [
        message("m1", "assistant", 10, [OPEN_SAMPLE]),
        { ...message("m2", "user", 11), parts: [reply] },
      ],
    })
    await prompt(h, "ses_cmd")
    expect((await h.store.read("ses_cmd")).list).toEqual(LATER)
  })

  it("newer-format and hostile lists are passed over: the older list, a notice to the model, one escaped log line", async () => {
    const h = await host()
    const hostile = [phase("P", task("evil \u001b[2J text"))]
    h.transcripts.set("ses_bad", {
      info: { id: "ses_bad", title: "t", time: { created: 1 } },
      messages: [
        message("m1", "assistant", 10, [LATER]),
        message("m2", "assistant", 11, [hostile]),
        message("m3", "assistant", 12, [OPEN_SAMPLE], CARRIED_LIST_VERSION + 1),
      ],
    })
    const told = await prompt(h, "ses_bad")
    expect((await h.store.read("ses_bad")).list).toEqual(LATER)
    expect(told).toHaveLength(1)
    expect(told[0]).toContain("differs from what the conversation above shows")
    expect(await prompt(h, "ses_bad", "More.")).toEqual([])
    const logged = h.logs.filter((l) => l.includes("ses_bad"))
    expect(logged).toHaveLength(1)
    expect(logged[0]).toMatch(/^warn: .*newer plugin version.*remove it/)
    expect(logged[0]).not.toContain("\u001b")
  })

  it("no carried list can be read: an empty list, the model told so once, the log says why", async () => {
    const h = await host()
    h.transcripts.set("ses_none", {
      info: { id: "ses_none", title: "t", time: { created: 1 } },
      messages: [message("m1", "assistant", 10, [{ not: "a list" }])],
    })
    const told = await prompt(h, "ses_none")
    expect((await h.store.read("ses_none")).list).toEqual([])
    expect(told[0]).toContain("The list is empty.")
    expect(h.logs.filter((l) => l.includes("ses_none"))).toEqual([
      'warn: The todo list of session "ses_none" was started empty, as no todo list its conversation shows can be read (message 1: the list is an object, not an array of phases).',
    ])
  })

  it("a record wins: a session already stored here is not rebuilt", async () => {
    const h = await host()
    await h.call("ses_kept", { list: [{ phase: "Mine", items: ["Keep me"] }] })
    h.transcripts.set("ses_kept", {
      info: { id: "ses_kept", title: "t", time: { created: 1 } },
      messages: [message("m1", "assistant", 10, [OPEN_SAMPLE])],
    })
    await prompt(h, "ses_kept")
    expect((await h.store.read("ses_kept")).list).toEqual([phase("Mine", task("Keep me", "in_progress"))])
  })

  /** The session's conversation shows `shown`, and its record is moved aside as another process would. */
  function vanishes(h: FakeHost, id: string, shown: TodoList): void {
    h.transcripts.set(id, {
      info: { id, title: "t", time: { created: 1 } },
      messages: [message("m1", "assistant", 10, [shown])],
    })
    renameSync(h.store.file(id), `${h.store.file(id)}.corrupt-1`)
  }

  it("a record that vanishes while the session runs (moved aside by a process that knew no list) is saved again as the server last read it", async () => {
    const h = await host()
    await h.call("ses_gone", { list: [{ phase: "Mine", items: ["Keep me", "And me"] }] })
    // The user's edit is not in the conversation: a rebuild from it would lose the edit.
    await h.command("ses_gone", 'drop "And me"')
    await prompt(h, "ses_gone")
    vanishes(h, "ses_gone", OPEN_SAMPLE)
    expect(await prompt(h, "ses_gone")).toEqual([])
    const kept = [phase("Mine", task("Keep me", "in_progress"), task("And me", "abandoned"))]
    expect((await h.store.read("ses_gone")).list).toEqual(kept)
    expect((await h.call("ses_gone", { op: "view" })).output).toContain(`[-] "And me"`)
    expect(h.logs.filter((l) => l.includes("disappeared"))).toHaveLength(1)
  })

  it("one the server no longer keeps (it read many sessions since) is rebuilt from the conversation", async () => {
    const h = await host()
    await h.call("ses_gone", { list: [{ phase: "Mine", items: ["Gone soon"] }] })
    await prompt(h, "ses_gone")
    for (let i = 0; i <= GOOD_KEPT; i++)
      await h.call(`ses_other_${i}`, { list: [{ phase: "P", items: ["t"] }] })
    vanishes(h, "ses_gone", OPEN_SAMPLE)
    await prompt(h, "ses_gone")
    expect((await h.store.read("ses_gone")).list).toEqual(OPEN_SAMPLE)
  })

  it("a new session with no todo result starts empty, with no record written and no log", async () => {
    const h = await host()
    await h.event("session.created", { info: { id: "ses_new", title: "New session" } })
    h.transcripts.set("ses_new", {
      info: { id: "ses_new", title: "New session", time: { created: 5 } },
      messages: [message("m1", "user", 10)],
    })
    await prompt(h, "ses_new", "Plan the parser fix.")
    expect((await h.store.read("ses_new")).revision).toBe(0)
    expect(h.logs.filter((l) => l.includes("ses_new"))).toEqual([])
  })

  it("a fork whose source has no readable history starts from its own conversation; the source is untouched", async () => {
    const h = await host()
    const sourceMessages = [
      message("m1", "user", 10),
      message("m2", "assistant", 11, [OPEN_SAMPLE]),
      message("m3", "user", 12),
      message("m4", "assistant", 13, [LATER]),
    ]
    h.transcripts.set("ses_src", {
      info: { id: "ses_src", title: "Fix", time: { created: 1 } },
      messages: sourceMessages,
    })
    await h.call("ses_src", { list: [{ phase: "Source", items: ["Only here"] }] })
    await h.event("session.created", { info: { id: "ses_fork", title: "Fix (fork #1)" } })
    h.transcripts.set("ses_fork", {
      info: { id: "ses_fork", title: "Fix (fork #1)", time: { created: 20 } },
      messages: [message("c1", "user", 10), message("c2", "assistant", 11, [OPEN_SAMPLE])].map((m, i) => ({
        ...m,
        parts: sourceMessages[i]!.parts,
      })),
    })
    await prompt(h, "ses_fork")
    expect((await h.store.read("ses_fork")).list).toEqual(OPEN_SAMPLE)
    await h.call("ses_fork", { op: "done", task: "Add tests" })
    expect((await h.store.read("ses_src")).list).toEqual([phase("Source", task("Only here", "in_progress"))])
  })
})

describe("a fork", () => {
  const PLANNED: TodoList = [phase("Build", task("Write parser", "in_progress"), task("Add tests"))]
  const EDITED: TodoList = [
    phase("Build", task("Write parser", "in_progress"), task("Add tests", "abandoned")),
  ]
  const sourceMessages = [
    message("m1", "user", 10),
    message("m2", "assistant", 11, [PLANNED]),
    message("m3", "user", 12),
    message("m4", "assistant", 13, [LATER]),
  ]

  /** The source with its record: the plan (call in m2), a dialog edit after m2, the work (call in m4). */
  async function withSource(h: FakeHost) {
    h.transcripts.set("ses_src", {
      info: { id: "ses_src", title: "Fix", time: { created: 1 } },
      messages: sourceMessages,
    })
    let history = recordCall(historyFrom([]), { message: "m2", callID: "call_m2_0" }, PLANNED).history
    history = recordEdit(history, { after: "m2" }, EDITED).history
    history = recordCall(history, { message: "m4", callID: "call_m4_0" }, LATER).history
    await h.store.update("ses_src", (current) => ({ next: { ...current, list: LATER, history } }))
  }

  /** A fork at m3: the copies of m1 and m2 (new ids, same times and parts), then whatever `later` holds. */
  function forkAtM3(h: FakeHost, id: string, later: unknown[] = []) {
    const copies = sourceMessages
      .slice(0, 2)
      .map((m, i) => ({ ...m, info: { ...m.info, id: `${id}_c${i}` } }))
    h.transcripts.set(id, {
      info: { id, title: "Fix (fork #1)", time: { created: 20 } },
      messages: [...copies, ...later],
    })
  }

  it("starts with the source's list strictly before the fork point, the dialog edit included; the model is told once", async () => {
    const h = await host()
    await withSource(h)
    await h.event("session.created", { info: { id: "ses_fork", title: "Fix (fork #1)" } })
    forkAtM3(h, "ses_fork", [message("n1", "user", 25)])
    const told = await prompt(h, "ses_fork")
    expect((await h.store.read("ses_fork")).list).toEqual(EDITED)
    expect(told).toHaveLength(1)
    expect(told[0]).toContain("differs from what the conversation above shows")
    expect(h.logs.filter((l) => l.includes("ses_fork"))).toEqual([
      'info: The todo list of session "ses_fork" was started from session "ses_src", the session it was forked from, as it was at the fork point: 2 tasks.',
    ])
    await h.call("ses_fork", { op: "done", task: "Write parser" })
    expect((await h.store.read("ses_src")).list).toEqual(LATER)
    await h.call("ses_src", { op: "done", task: "Add tests" })
    expect((await h.store.read("ses_fork")).list).toEqual([
      phase("Build", task("Write parser", "completed"), task("Add tests", "abandoned")),
    ])
  })

  it("the todo tool records its calls by call id, so a source driven through it is found", async () => {
    const h = await host()
    const call = (args: unknown, message: string, callID: string) =>
      h.hooks.tool!.todo!.execute(args as never, { ...h.ctx("ses_src", callID), messageID: message })
    await call({ list: [{ phase: "Build", items: ["Write parser", "Add tests"] }] }, "m2", "call_m2_0")
    await h.command("ses_src", 'drop "Add tests"')
    await call({ op: "done", task: "Write parser" }, "m4", "call_m4_0")
    h.transcripts.set("ses_src", {
      info: { id: "ses_src", title: "Fix", time: { created: 1 } },
      messages: sourceMessages,
    })
    forkAtM3(h, "ses_fork")
    await prompt(h, "ses_fork")
    expect((await h.store.read("ses_fork")).list).toEqual(EDITED)
  })

  it("a fork of a fork: the first fork's history holds the copied calls, so the second finds it", async () => {
    const h = await host()
    await withSource(h)
    forkAtM3(h, "ses_f1")
    await prompt(h, "ses_f1")
    await h.hooks.tool!.todo!.execute({ op: "done", task: "Write parser" } as never, {
      ...h.ctx("ses_f1", "call_n2_0"),
      messageID: "ses_f1_n2",
    })
    await h.command("ses_f1", "append Ship it")
    const f1 = h.transcripts.get("ses_f1")!
    const copied = f1.messages.slice(0, 2) as ReturnType<typeof message>[]
    const f1Messages = [
      ...copied,
      message("ses_f1_n1", "user", 25),
      message("ses_f1_n2", "assistant", 26, [LATER]),
    ]
    h.transcripts.set("ses_f1", { ...f1, messages: f1Messages })
    // Ids ascend as the host's do. Forked at its first own message: the copies hold only the call the first fork copied from the source.
    h.transcripts.set("ses_f2", {
      info: { id: "ses_f2", title: "Fix (fork #2)", time: { created: 40 } },
      messages: copied.map((m, i) => ({ ...m, info: { ...m.info, id: `f2_${i}` } })),
    })
    await prompt(h, "ses_f2")
    expect((await h.store.read("ses_f2")).list).toEqual(EDITED)
    expect(h.logs.filter((l) => l.includes('"ses_f2" was started from session "ses_f1"'))).toHaveLength(1)
  })

  it("a chain of forks never prompted: the last walks back through them to the source's record", async () => {
    const h = await host()
    await withSource(h)
    // Fork the source at m3, fork the fork, fork that one; only the last is ever prompted, so the middle ones
    // have no record. Each fork copies the messages before its fork point, keeping the times written.
    forkAtM3(h, "ses_f1")
    const chain = (id: string, title: string, created: number, from: string) => {
      const copies = h.transcripts.get(from)!.messages as ReturnType<typeof message>[]
      h.transcripts.set(id, {
        info: { id, title, time: { created } },
        messages: copies.map((m, i) => ({ ...m, info: { ...m.info, id: `${id}_c${i}` } })),
      })
    }
    chain("ses_f2", "Fix (fork #2)", 30, "ses_f1")
    chain("ses_f3", "Fix (fork #3)", 40, "ses_f2")
    await prompt(h, "ses_f3")
    // As a fork of the source itself would: the dialog edit made before the fork point is in it.
    expect((await h.store.read("ses_f3")).list).toEqual(EDITED)
    expect((await h.store.read("ses_f1")).revision).toBe(0)
  })

  it("a list made only with /todo: no call to match, the title and the copies decide", async () => {
    const h = await host()
    const plain = [message("m1", "user", 10), message("m2", "assistant", 11), message("m3", "user", 12)]
    const info = { id: "ses_src", title: "Fix", time: { created: 1 } }
    // The user edits the list after the answer in m2; the next prompt (m3) comes later.
    h.transcripts.set("ses_src", { info, messages: plain.slice(0, 2) })
    await h.command("ses_src", "append Write the parser")
    h.transcripts.set("ses_src", { info, messages: plain })
    const copies = plain.slice(0, 2).map((m, i) => ({ ...m, info: { ...m.info, id: `c${i}` } }))
    h.transcripts.set("ses_fork", {
      info: { id: "ses_fork", title: "Fix (fork #1)", time: { created: 20 } },
      messages: copies,
    })
    const told = await prompt(h, "ses_fork")
    expect((await h.store.read("ses_fork")).list).toEqual([
      phase("Tasks", task("Write the parser", "in_progress")),
    ])
    expect(told).toHaveLength(1)
  })

  it("two forks of one source each start from it, and stay apart", async () => {
    const h = await host()
    await withSource(h)
    forkAtM3(h, "ses_f1")
    forkAtM3(h, "ses_f2")
    await prompt(h, "ses_f1")
    await prompt(h, "ses_f2")
    await h.call("ses_f1", { op: "done", task: "Write parser" })
    expect((await h.store.read("ses_f2")).list).toEqual(EDITED)
  })

  it("a source whose record is corrupt: the fork starts from its own conversation, and each problem is logged once", async () => {
    const h = await host()
    h.transcripts.set("ses_src", {
      info: { id: "ses_src", title: "Fix", time: { created: 1 } },
      messages: sourceMessages,
    })
    mkdirSync(h.storeDir, { recursive: true })
    writeFileSync(h.store.file("ses_src"), "{ not json")
    forkAtM3(h, "ses_fork")
    await prompt(h, "ses_fork")
    expect((await h.store.read("ses_fork")).list).toEqual(PLANNED)
    const logged = h.logs.filter((l) => l.includes("ses_fork") || l.includes("ses_src"))
    expect(logged).toHaveLength(2)
    expect(logged.join("\n")).toMatch(/unreadable/)
    expect(logged.join("\n")).toMatch(/did not see the copied messages/)
  })
})

describe("the lookup itself", () => {
  it("a host that does not answer in time leaves the list empty and says so once", async () => {
    const logs: string[] = []
    const never = new Promise<never>(() => {})
    const client = {
      session: { messages: () => never, get: () => never, list: () => never },
    } as unknown as Client
    const find = originFinder({
      client,
      store: undefined as never,
      limits: { maxTaskChars: 300, maxTasks: 200, maxPhases: 30, maxOpsPerCall: 50 },
      log: (level, text) => logs.push(`${level}: ${text}`),
      sourceAt: () => undefined,
      budgetMs: 20,
    })
    expect(await find("ses_slow")).toBeUndefined()
    expect(logs).toEqual([
      'warn: The host did not answer within 0.02 s, so the todo list of session "ses_slow" starts empty.',
    ])
  })

  it("a host that fails or answers nonsense is a session with no history", async () => {
    const logs: string[] = []
    const client = {
      session: {
        messages: async () => {
          throw new Error("boom")
        },
        get: async () => ({ data: "nonsense" }),
      },
    } as unknown as Client
    const find = originFinder({
      client,
      store: undefined as never,
      limits: { maxTaskChars: 300, maxTasks: 200, maxPhases: 30, maxOpsPerCall: 50 },
      log: (level, text) => logs.push(`${level}: ${text}`),
      sourceAt: () => undefined,
    })
    expect(await find("ses_x")).toBeUndefined()
    expect(logs).toEqual([])
  })
})
