// The TUI protocol: the host's revert point, the parts before it, and the list in effect under it.
import { describe, expect, it } from "vitest"
import { historyFrom, recordCall, recordEdit, revert } from "../../src/core/history/history.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { hostRevert, listInEffect, partsBefore } from "../../src/core/view/tui-protocol.ts"
import { phase, task } from "../fixtures/lists.ts"

describe("what the host's sessions and parts say of a revert", () => {
  it("reads the revert point from a session's info, and nothing from a session not reverted", () => {
    expect(hostRevert({ id: "ses_1", revert: { messageID: "msg_2", snapshot: "x", diff: "" } })).toEqual({
      message: "msg_2",
    })
    expect(hostRevert({ revert: { messageID: "msg_2", partID: "prt_5" } })).toEqual({
      message: "msg_2",
      part: "prt_5",
    })
    expect(hostRevert({ revert: { messageID: "msg_2", partID: "" } })).toEqual({ message: "msg_2" })
    for (const info of [
      { id: "ses_1" },
      { revert: null },
      { revert: { messageID: 3 } },
      { revert: {} },
      null,
      "x",
    ])
      expect(hostRevert(info)).toBeUndefined()
  })

  it("keeps the parts strictly before a revert point, at a message or at a part", () => {
    const part = (id: string) => ({ id, type: "text", text: id })
    const messages = [
      { id: "msg_1", parts: [part("prt_1")] },
      { id: "msg_2", parts: [part("prt_2"), part("prt_3"), part("prt_4")] },
      { id: "msg_3", parts: [part("prt_5")] },
    ]
    const ids = (parts: unknown[]) => parts.map((p) => (p as { id: string }).id)
    expect(ids(partsBefore(messages))).toEqual(["prt_1", "prt_2", "prt_3", "prt_4", "prt_5"])
    expect(ids(partsBefore(messages, { message: "msg_2" }))).toEqual(["prt_1"])
    expect(ids(partsBefore(messages, { message: "msg_2", part: "prt_4" }))).toEqual([
      "prt_1",
      "prt_2",
      "prt_3",
    ])
    expect(ids(partsBefore(messages, { message: "msg_1" }))).toEqual([])
    // A point between stored messages (its message already gone) still cuts by id order.
    expect(ids(partsBefore(messages, { message: "msg_25" }))).toEqual(["prt_1", "prt_2", "prt_3", "prt_4"])
  })
})

describe("the list in effect under the host's revert", () => {
  const planned = [phase("Build", task("Parse", "in_progress"), task("Old idea"), task("Ship"))]
  const newest = [phase("Build", task("Parse", "completed"), task("Ship", "in_progress"))]
  const done = (text: string) => ({ op: "done" as const, target: { kind: "task" as const, text } })
  // Two todo calls: the plan, then Parse done and Old idea removed, in the second assistant message.
  const calls = recordCall(
    recordCall(historyFrom([]), { message: "msg_2", part: "prt_2", callID: "c1" }, planned).history,
    { message: "msg_4", part: "prt_4", callID: "c2" },
    newest,
  ).history
  const limits = DEFAULT_LIMITS
  const second = { message: "msg_3" }

  it("is the newest list while the host has the session not reverted", () => {
    expect(listInEffect(calls, undefined, false, limits)).toEqual(newest)
  })

  it("is the list before the host's revert point at once, whether or not the server recorded the revert yet", () => {
    expect(listInEffect(calls, second, false, limits)).toEqual(planned)
    expect(listInEffect(revert(calls, second).history, second, false, limits)).toEqual(planned)
    expect(listInEffect(calls, { message: "msg_4", part: "prt_4" }, false, limits)).toEqual(planned)
    expect(listInEffect(calls, { message: "msg_1" }, false, limits)).toEqual([])
    // Undo twice: the host's newer point wins over the one the server recorded.
    expect(listInEffect(revert(calls, { message: "msg_1" }).history, second, false, limits)).toEqual(planned)
  })

  it("keeps an edit made while reverted in view; redo makes it again on the newest list, a commit keeps the view", () => {
    const reverted = revert(calls, second).history
    const edited = executeOps(planned, [done("Ship")], limits)
    if (!edited.ok) throw new Error(edited.error)
    const withEdit = recordEdit(reverted, { ops: [done("Ship")] }, edited.list).history
    expect(listInEffect(withEdit, second, false, limits)).toEqual(edited.list)
    // Redo: the newest list with Ship done again on it; nothing dropped.
    const redone = listInEffect(withEdit, undefined, false, limits)
    expect(redone[0]!.tasks.find((t) => t.text === "Ship")?.status).toBe("completed")
    expect(redone[0]!.tasks.some((t) => t.text === "Old idea")).toBe(false)
    // Commit: the states after the point are gone; the edit stays.
    expect(listInEffect(withEdit, undefined, true, limits)).toEqual(edited.list)
  })

  it("on redo, drops an edit made while reverted on a task the newest list no longer has", () => {
    const reverted = revert(calls, second).history
    const edited = executeOps(planned, [done("Old idea")], limits)
    if (!edited.ok) throw new Error(edited.error)
    const withEdit = recordEdit(reverted, { ops: [done("Old idea")] }, edited.list).history
    expect(listInEffect(withEdit, second, false, limits)).toEqual(edited.list)
    expect(listInEffect(withEdit, undefined, false, limits)).toEqual(newest)
  })
})
