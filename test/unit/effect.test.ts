// The list in effect (core/history/effect.ts): the stored history under what the host says now, whichever
// process asks and whatever events it saw. The TUI, the server and an OpenCode 2 binding all call it.
import { describe, expect, it } from "vitest"
import {
  decidingPlace,
  type HostFacts,
  inEffect,
  placesToCheck,
  shownHolds,
} from "../../src/core/history/effect.ts"
import { currentList, historyFrom, type Point } from "../../src/core/history/history.ts"
import { recordCall, recordEdit } from "../../src/core/history/placement.ts"
import { revert } from "../../src/core/history/revert.ts"
import { hostOrder } from "../../src/core/history/spans.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { phase, task } from "../fixtures/lists.ts"

/** A host that still has `messages` (and every part of them) and is reverted to `revert`. */
function host(revert: Point | null, messages: readonly string[], gone: readonly string[] = []): HostFacts {
  return {
    revert,
    holds: (point) =>
      messages.includes(point.message) && (point.part === undefined || !gone.includes(point.part)),
  }
}

const ALL = ["msg_1", "msg_2", "msg_3", "msg_4"]
const listOf = (history: Parameters<typeof inEffect>[0], facts: HostFacts) =>
  inEffect(history, facts, DEFAULT_LIMITS).list

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
    expect(listOf(calls, host(null, ALL))).toEqual(newest)
  })

  it("is the list before the host's revert point at once, whether or not the server recorded the revert yet", () => {
    expect(listOf(calls, host(second, ALL))).toEqual(planned)
    expect(listOf(revert(calls, second).history, host(second, ALL))).toEqual(planned)
    expect(listOf(calls, host({ message: "msg_4", part: "prt_4" }, ALL))).toEqual(planned)
    expect(listOf(calls, host({ message: "msg_1" }, ALL))).toEqual([])
    // Undo twice: the host's newer point wins over the one the server recorded.
    expect(listOf(revert(calls, { message: "msg_1" }).history, host(second, ALL))).toEqual(planned)
  })

  it("keeps an edit made while reverted in view; redo makes it again on the newest list, a commit keeps the view", () => {
    const reverted = revert(calls, second).history
    const edited = executeOps(planned, [done("Ship")], limits)
    if (!edited.ok) throw new Error(edited.error)
    const withEdit = recordEdit(reverted, { ops: [done("Ship")] }, edited.list).history
    expect(listOf(withEdit, host(second, ALL))).toEqual(edited.list)
    // Redo (the host still has the undone messages): the newest list with Ship done again on it.
    const redone = listOf(withEdit, host(null, ALL))
    expect(redone[0]!.tasks.find((t) => t.text === "Ship")?.status).toBe("completed")
    expect(redone[0]!.tasks.some((t) => t.text === "Old idea")).toBe(false)
    // Commit (the host removed the undone messages): the states after the point are gone; the edit stays.
    expect(listOf(withEdit, host(null, ["msg_1", "msg_2", "msg_5"]))).toEqual(edited.list)
  })

  it("on redo, drops an edit made while reverted on a task the newest list no longer has", () => {
    const reverted = revert(calls, second).history
    const edited = executeOps(planned, [done("Old idea")], limits)
    if (!edited.ok) throw new Error(edited.error)
    const withEdit = recordEdit(reverted, { ops: [done("Old idea")] }, edited.list).history
    expect(listOf(withEdit, host(second, ALL))).toEqual(edited.list)
    expect(listOf(withEdit, host(null, ALL))).toEqual(newest)
  })
})

describe("the host's facts now, not the events a process saw", () => {
  const plan = [phase("Build", task("A", "in_progress"), task("B"), task("C"))]
  const doneA = [phase("Build", task("A", "completed"), task("B", "in_progress"), task("C"))]
  const doneB = [phase("Build", task("A", "completed"), task("B", "completed"), task("C", "in_progress"))]
  // Turns: msg_1 prompt, msg_2 plan; msg_3 prompt, msg_4 done A; msg_5 prompt, msg_6 done B.
  let h = historyFrom([])
  h = recordCall(h, { message: "msg_2", part: "prt_2", callID: "c1" }, plan).history
  h = recordCall(h, { message: "msg_4", part: "prt_4", callID: "c2" }, doneA).history
  h = recordCall(h, { message: "msg_6", part: "prt_6", callID: "c3" }, doneB).history
  const six = ["msg_1", "msg_2", "msg_3", "msg_4", "msg_5", "msg_6"]
  const undone = revert(h, { message: "msg_5" }).history

  it("a revert recorded before a restart and a redo the process never saw: the redone list", () => {
    const effect = inEffect(undone, host(null, six))
    expect(effect.list).toEqual(doneB)
    expect(effect.changes).toEqual(["unrevert"])
    expect(inEffect(effect.history, host(null, six)).changes).toEqual([])
  })

  it("a revert recorded, and the host removed the undone messages (a prompt in any process): committed", () => {
    const effect = inEffect(undone, host(null, ["msg_1", "msg_2", "msg_3", "msg_4", "msg_7"]))
    expect(effect.list).toEqual(doneA)
    expect(effect.changes).toEqual(["commit"])
    // Committed for good: the history no longer reaches the undone state.
    expect(currentList(inEffect(effect.history, host(null, [...six, "msg_7"])).history)).toEqual(doneA)
  })

  it("a revert no process recorded, then committed: cut where the host's messages end", () => {
    const effect = inEffect(h, host(null, ["msg_1", "msg_2", "msg_3", "msg_4", "msg_7"]))
    expect(effect.list).toEqual(doneA)
    expect(effect.changes).toEqual(["commit"])
  })

  it("a revert the host has and the record lacks: the list before the host's point", () => {
    expect(inEffect(h, host({ message: "msg_3" }, six)).list).toEqual(plan)
  })

  it("an answer the host could not give changes nothing and says so", () => {
    const unsure: HostFacts = { revert: null, holds: () => undefined }
    const effect = inEffect(undone, unsure)
    expect(effect.changes).toEqual([])
    expect(effect.unsure).toBe(true)
    expect(effect.list).toEqual(doneA)
  })

  it("asks about the stored revert point and the newest change only", () => {
    expect(placesToCheck(undone)).toEqual([{ message: "msg_5" }, { message: "msg_6" }])
    expect(placesToCheck(historyFrom(plan))).toEqual([])
  })

  it("the stored revert point decides when the host's point differs from it, and must be asked", () => {
    expect(decidingPlace(undone, null)).toEqual({ message: "msg_5" })
    expect(decidingPlace(undone, { message: "msg_3" })).toEqual({ message: "msg_5" })
    expect(decidingPlace(undone, { message: "msg_5" })).toBeUndefined()
    expect(decidingPlace(historyFrom(plan), null)).toBeUndefined()
    // The answer decides: gone is a commit (the undone calls stay gone), held is a redo.
    const gone: HostFacts = { revert: null, holds: (p) => p.message !== "msg_5" && p.message !== "msg_6" }
    expect(inEffect(undone, gone).changes).toEqual(["commit"])
    expect(inEffect(undone, { revert: null, holds: () => true }).changes).toEqual(["unrevert"])
  })
})

describe("what a host that shows only the conversation after a compaction still holds", () => {
  const plan = [phase("Build", task("A", "in_progress"), task("B"))]
  const doneA = [phase("Build", task("A", "completed"), task("B", "in_progress"))]
  let h = historyFrom([])
  h = recordCall(h, { message: "msg_02", callID: "c1" }, plan).history
  h = recordCall(h, { message: "msg_04", callID: "c2" }, doneA).history
  // The compaction (msg_05) heads what the host shows; msg_01..04 were compacted, not removed.
  const shown = { ids: new Set(["msg_05", "msg_06"]), compactedBefore: "msg_05" }
  const facts = (revert: Point | null): HostFacts => ({
    revert,
    holds: (point) => shownHolds(shown, point.message),
  })

  it("holds every message before the compaction: the list stays, for a server that loads it afterwards too", () => {
    const effect = inEffect(h, facts(null))
    expect(effect.changes).toEqual([])
    expect(effect.list).toEqual(doneA)
  })

  it("still takes a message after the compaction it no longer shows as removed", () => {
    expect(shownHolds(shown, "msg_07")).toBe(false)
    expect(shownHolds({ ids: new Set(["msg_05"]) }, "msg_04")).toBe(false)
  })

  it("orders a fork's copies (`<id>_<seq>`) by their sequence number, after every message minted before the fork", () => {
    expect(hostOrder("msg_F_5", "msg_F_40")).toBeLessThan(0)
    expect(hostOrder("msg_F_40", "msg_F_5")).toBeGreaterThan(0)
    expect(hostOrder("msg_A9", "msg_F_4")).toBeLessThan(0)
    expect(shownHolds({ ids: new Set(["msg_F_40"]), compactedBefore: "msg_F_40" }, "msg_F_5")).toBe(true)
    expect(shownHolds({ ids: new Set(["msg_F_40"]), compactedBefore: "msg_F_40" }, "msg_G1")).toBe(false)
  })

  it("an undo to a fork's copy keeps the changes of the copies before it, in that order", () => {
    let fork = historyFrom([])
    fork = recordCall(fork, { message: "msg_F_7", callID: "c1" }, plan).history
    fork = recordCall(fork, { message: "msg_F_30", callID: "c2" }, doneA).history
    expect(inEffect(fork, { revert: { message: "msg_F_22" }, holds: () => true }).list).toEqual(plan)
  })
})
