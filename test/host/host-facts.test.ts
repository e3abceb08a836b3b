// The list follows what the host knows, not which events a server saw: an undo, a restart of OpenCode, then a
// redo; two OpenCode servers on one data folder (two windows), undo in one and redo in the other; a prompt that
// commits an undo another server recorded; a /todo command's edit settling on its own message in a server that
// missed the undo, or took an undo for pending after another window committed it; a host slow to answer; forks
// as the host makes them (a chain, an undo inside a copied message or a copied /todo command's message). The
// fake host keeps the conversation and its revert point as the real one does (GET /session/:id, GET
// /session/:id/message/:messageID), and each server is sent only the events of its own process.
import { describe, expect, it } from "vitest"
import { DEFAULT_LIMITS, type TodoList } from "../../src/core/list/types.ts"
import { slowHostWord } from "../../src/server/host-facts.ts"
import { runUserOps } from "../../src/shared/user-edits.ts"
import { type FakeHost, fakeHosts, tuiStart } from "../fixtures/host.ts"
import { HostConversation } from "../fixtures/host-conversation.ts"

const startHost = fakeHosts()

const S = "ses_facts"
const PLAN = { list: [{ phase: "Build", items: ["A", "B", "C"] }] }

const statuses = (list: TodoList) => list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))
const stored = async (h: FakeHost) => statuses((await h.store.read(S)).list)

/** Plan A, B, C; done A; done B: three turns through `h`. Returns each turn's user message. */
async function planDoneDone(host: HostConversation, h: FakeHost): Promise<string[]> {
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

async function started(): Promise<{ h: FakeHost; host: HostConversation }> {
  const h = await startHost()
  await h.event("session.created", { info: { id: S } })
  return { h, host: new HostConversation(h, S) }
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

  // Found by host-model.property.test.ts (seed 1148837753, removals after the hook): a server started after the
  // calls hears the undo, then a prompt through it commits the undo and the host's removals reach it after the
  // prompt's hook; the hook's lookup of the session already shows no revert point. Whether the host still holds
  // the recorded revert point decides commit or redo, so the server asks rather than take it as held.
  it("restart, undo in the new server, a prompt through it: the undone calls stay gone", async () => {
    const { h, host } = await started()
    const turns = await planDoneDone(host, h)
    const restarted = await another(h)
    await host.undo(restarted, turns[2]!)
    await host.prompt(restarted, "try B again")
    expect(await restarted.command(S, "")).toMatch(/\[x\] "A"[\s\S]*\[>\] "B"[\s\S]*\[ \] "C"/)
  })
})

describe("a /todo command's edit settles on its own message, whatever events a server saw", () => {
  // Found by host-model.property.test.ts (seed 14563): a server started after the undo runs a /todo command; the
  // host commits the undo before it mints the command's message, which the server had not heard of, so the edit
  // stayed at the revert point, and an undo at the command's message kept it.
  for (const where of ["restarted", "other window"] as const)
    it(`undo, then a command through a server that did not hear the undo (${where}); undo at its message`, async () => {
      const { h, host } = await started()
      const other = await another(h)
      const turns = await planDoneDone(host, h)
      await host.undo(h, turns[2]!)
      const s = where === "restarted" ? await another(h) : other
      const parts = await s.commandParts(S, "drop C")
      const command = await host.prompt(s, "", undefined, false, parts)
      expect(await stored(s)).toEqual(["A:completed", "B:in_progress", "C:abandoned"])
      await host.undo(s, command)
      expect(await stored(s)).toEqual(["A:completed", "B:in_progress", "C:pending"])
      await host.redo(s)
      expect(await stored(s)).toEqual(["A:completed", "B:in_progress", "C:abandoned"])
    })

  // Found by host-model.property.test.ts (seed 104): both windows heard the undo, a dialog edit was made while
  // undone, and a prompt in one window committed the undo; the other window's server still took the session as
  // undone, so its next /todo went back to the revert point, without the dialog's edit.
  it("an undo both windows heard, an edit, a prompt in one window: a command in the other builds on the commit", async () => {
    const { h, host } = await started()
    const other = await another(h)
    const turns: string[] = []
    turns.push(await host.prompt(other, "Plan"))
    await host.call(h, PLAN)
    turns.push(await host.prompt(other, "done A"))
    await host.call(h, { op: "done", task: "A" })
    await host.undo(other, turns[1]!)
    await host.undo(h, turns[1]!)
    const dropB = [{ op: "drop" as const, target: { kind: "task" as const, text: "B" } }]
    const at = { kind: "reverted" as const, point: { message: turns[1]! } }
    await runUserOps({ store: h.store, session: S, limits: DEFAULT_LIMITS, notify: "record", at }, dropB)
    await host.prompt(other, "Go on")
    expect(await stored(other)).toEqual(["A:in_progress", "B:abandoned", "C:pending"])
    const parts = await h.commandParts(S, "done A")
    await host.prompt(h, "", undefined, false, parts)
    expect(await stored(h)).toEqual(["A:completed", "B:abandoned", "C:in_progress"])
  })
})

describe("a host slow to answer", () => {
  it("the server keeps what the events told it, and says so once per session and lookup, not per hook", async () => {
    const { h, host } = await started()
    const turns = await planDoneDone(host, h)
    await host.undo(h, turns[2]!)
    // A second window whose host answers each session lookup only after the server stopped waiting.
    const late = await startHost({ sharing: h, slowMs: 1_100 })
    expect(await late.command(S, "")).toMatch(/\[x\] "A"[\s\S]*\[>\] "B"[\s\S]*\[ \] "C"/)
    // Another undo in the first window: the record changed, so the late server asks again, and waits again.
    await host.undo(h, turns[1]!)
    expect(await late.command(S, "")).toMatch(/\[>\] "A"[\s\S]*\[ \] "B"/)
    expect(late.logs).toEqual([
      'warn: The host did not say where it is reverted to within 1 s, so the todo list of session "ses_facts" follows what this server heard from its events until it does.',
      'warn: The host did not say which message is its newest within 1 s, so the todo list of session "ses_facts" follows what this server heard from its events until it does.',
    ])
  })

  it("the session id in the warning is cut and quoted", () => {
    const logs: string[] = []
    const say = slowHostWord((level, message) => logs.push(`${level}: ${message}`))
    const hostile = `ses_"\u001b[2J${"x".repeat(80)}`
    say(hostile, "where it is reverted to", 1000)
    say(hostile, "where it is reverted to", 1000)
    expect(logs).toHaveLength(1)
    expect(logs[0]).not.toContain("\u001b")
    // Quoted as JSON, the control character spelled out, cut with an ellipsis.
    expect(logs[0]).toMatch(/of session "ses_\\"\\\\u001b\[2Jx+…" follows/)
  })
})

describe("forks as the host makes them", () => {
  // Found by host-model.property.test.ts (seed 1949674576): two todo calls in one copied message, a fork of a
  // fork, and an undo in the last fork to the second call's part. The fork's history held the copied message's
  // list only after its last call, so the undo took both calls back and the list went empty.
  it("a fork of a never-prompted fork, undo to the second call of a copied message: the first call stays", async () => {
    const { h, host } = await started()
    const plan = await host.prompt(h, "Plan", "msg_000001")
    await host.call(h, PLAN, { message: plan, part: "prt_000002" })
    await host.call(h, { op: "block", task: "A", reason: "waiting" }, { message: plan, part: "prt_000003" })
    await host.prompt(h, "Again", "msg_000004")
    const copies = (pairs: [string, string][]) => new Map(pairs)
    const f1 = host.fork(
      "ses_f1",
      "msg_000004",
      copies([
        ["msg_000001", "msg_000006"],
        ["prt_000002", "prt_000007"],
        ["prt_000003", "prt_000008"],
      ]),
    )
    const f2 = f1.fork(
      "ses_f2",
      undefined,
      copies([
        ["msg_000006", "msg_000009"],
        ["prt_000007", "prt_000010"],
        ["prt_000008", "prt_000011"],
      ]),
    )
    expect(await h.command(f2.session, "")).toMatch(/\[!\] "A"/)
    await f2.undo(h, "msg_000009", "prt_000011")
    expect(statuses((await h.store.read(f2.session)).list)).toEqual([
      "A:in_progress",
      "B:pending",
      "C:pending",
    ])
  })

  // Found by host-model.property.test.ts (seed 1065991096, forks): a /todo command's edit settles at the start
  // of its message; a fork copying that message knew only its calls, so an undo in the fork to a call's part in
  // the copy took the command's edit back too.
  it("an undo in a fork to a call's part in a copied /todo command message keeps the command's edit", async () => {
    const { h, host } = await started()
    const plan = await host.prompt(h, "Plan", "msg_000001")
    await host.call(h, PLAN, { message: plan, part: "prt_000002" })
    const parts = await h.commandParts(S, "drop C")
    const command = await host.prompt(h, "", "msg_000003", false, parts)
    await host.call(h, { op: "done", task: "A" }, { message: command, part: "prt_000004" })
    const fork = host.fork(
      "ses_fork",
      undefined,
      new Map([
        ["msg_000001", "msg_000005"],
        ["prt_000002", "prt_000006"],
        ["msg_000003", "msg_000007"],
        ["prt_000004", "prt_000008"],
      ]),
    )
    expect(await h.command(fork.session, "")).toMatch(/\[x\] "A"/)
    await fork.undo(h, "msg_000007", "prt_000008")
    expect(statuses((await h.store.read(fork.session)).list)).toEqual([
      "A:in_progress",
      "B:pending",
      "C:abandoned",
    ])
  })

  // Found by host-model.property.test.ts (seed 1271923431, forks): the copied todo calls all changed nothing (a
  // failed call), so none is in the source's record; the fork started from its own conversation and lost the
  // /todo command's edit the source made before the fork point.
  it("a fork whose copied todo calls changed nothing starts from its source's list", async () => {
    const { h, host } = await started()
    const hi = await host.prompt(h, "Hi", "msg_000001")
    const failed = await host.call(h, { op: "done", task: "Z" }, { message: hi, part: "prt_000002" })
    expect(failed.output).toMatch(/^Error/)
    const parts = await h.commandParts(S, 'append "Build" A')
    await host.prompt(h, "", "msg_000003", false, parts)
    await runUserOps(
      {
        store: h.store,
        session: S,
        limits: DEFAULT_LIMITS,
        notify: "record",
        at: {
          kind: "after",
          message: "msg_000003",
        },
      },
      [{ op: "append", phase: "Build", items: ["B"] }],
    )
    await host.prompt(h, "Next", "msg_000004")
    const fork = host.fork(
      "ses_fork",
      "msg_000004",
      new Map([
        ["msg_000001", "msg_000005"],
        ["prt_000002", "prt_000006"],
        ["msg_000003", "msg_000007"],
      ]),
    )
    expect(await h.command(fork.session, "")).toMatch(/"A"[\s\S]*"B"/)
  })

  // Found by host-model.property.test.ts (seed 1, forks): a dialog edit in a fork that no server has met yet was
  // made on an empty list (the TUI's write path found no record), and the record it wrote kept the server from
  // ever starting the fork from its source. The TUI now starts the fork as the server would, with its lookup.
  it("a dialog edit in a fork no server has met keeps the source's list", async () => {
    const { h, host } = await started()
    const plan = await host.prompt(h, "Plan", "msg_000001")
    await host.call(h, PLAN, { message: plan, part: "prt_000002" })
    const fork = host.fork(
      "ses_fork",
      undefined,
      new Map([
        ["msg_000001", "msg_000003"],
        ["prt_000002", "prt_000004"],
      ]),
    )
    const append = [{ op: "append" as const, phase: "Build", items: ["D"] }]
    const at = { kind: "after" as const, message: "msg_000003" }
    const out = await runUserOps(
      {
        store: h.store,
        session: fork.session,
        limits: DEFAULT_LIMITS,
        notify: "record",
        at,
        start: tuiStart(h),
      },
      append,
    )
    expect(out.ok && statuses(out.list)).toEqual(["A:in_progress", "B:pending", "C:pending", "D:pending"])
    expect(await h.command(fork.session, "")).toMatch(/"A"[\s\S]*"D"/)
    expect(statuses((await h.store.read(fork.session)).list)).toEqual([
      "A:in_progress",
      "B:pending",
      "C:pending",
      "D:pending",
    ])
  })
})
