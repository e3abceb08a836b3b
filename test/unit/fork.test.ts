import { describe, expect, test } from "vitest"
import {
  copiedCalls,
  copiedCount,
  matchSource,
  originOf,
  pickCandidates,
  type SourceMatch,
  sourceStateAt,
  sourceTitle,
} from "../../src/core/history/fork.ts"
import { historyFrom, listAt, stateAtCall } from "../../src/core/history/history.ts"
import { recordCall, recordEdit } from "../../src/core/history/placement.ts"
import { transcriptList } from "../../src/core/history/rebuild.ts"
import { revert } from "../../src/core/history/revert.ts"
import { DEFAULT_LIMITS, type TodoList } from "../../src/core/list/types.ts"
import { OPEN_SAMPLE, phase, task } from "../fixtures/lists.ts"
import { LATER, msg } from "../fixtures/transcripts.ts"

describe("a fork's source", () => {
  test("the source title: the host's rule read backwards", () => {
    expect(sourceTitle("Fix the parser (fork #1)")).toBe("Fix the parser")
    expect(sourceTitle("Fix the parser (fork #3)")).toBe("Fix the parser (fork #2)")
    expect(sourceTitle("Fix the parser")).toBeUndefined()
    expect(sourceTitle("Fix (fork #0)")).toBeUndefined()
    expect(sourceTitle(" (fork #1)")).toBeUndefined()
  })

  test("the copies are the leading messages written before the fork was created", () => {
    const fork = [msg("m1"), msg("m2"), msg("m9"), msg("m3")]
    expect(copiedCount(fork, 5)).toBe(2)
    expect(copiedCount(fork, 100)).toBe(4)
    expect(copiedCount([{ ...msg("m1"), created: undefined }], 5)).toBe(0)
  })

  const source = [
    msg("m1", { role: "user" }),
    msg("m2", { calls: ["call_1"] }),
    msg("m3", { role: "user" }),
    msg("m4", { calls: ["call_2"] }),
  ]
  const copies = [
    { ...msg("c1", { role: "user" }), created: 1 },
    { ...msg("c2", { calls: ["call_1"] }), created: 2 },
  ]

  test("the candidate whose first messages are the copies is the source; the fork point is the next message", () => {
    const other = [msg("m1", { role: "user" }), msg("m2", { calls: ["call_9"] })]
    expect(
      matchSource(copies, 2, [
        { id: "ses_other", messages: other },
        { id: "ses_src", messages: source },
      ]),
    ).toEqual({ kind: "found", sourceID: "ses_src", point: "m3" })
    expect(matchSource(copies, 2, [{ id: "ses_src", messages: source.slice(0, 2) }])).toEqual({
      kind: "found",
      sourceID: "ses_src",
      point: undefined,
    })
    expect(copiedCalls([...copies, msg("n1", { calls: ["call_7"] })], 2)).toEqual(["call_1"])
  })

  test("candidates: the source title exactly, created before the fork, closest to the first copy first, at most max", () => {
    const listed = [
      { id: "old", title: "Fix", created: 1 },
      { id: "fork", title: "Fix", created: 30 },
      { id: "near", title: "Fix", created: 9 },
      { id: "forked-later", title: "Fix", created: 14 },
      { id: "other", title: "Fix it", created: 6 },
      { id: "after", title: "Fix", created: 31 },
      { id: "untimed", title: "Fix", created: undefined },
    ]
    const fork = { id: "fork", title: "Fix", created: 30, firstCopied: 10 }
    expect(pickCandidates(listed, fork, 5)).toEqual(["near", "forked-later", "old"])
    expect(pickCandidates(listed, fork, 1)).toEqual(["near"])
  })

  test("no copy, no fitting candidate, or two that fit: not decided", () => {
    expect(matchSource(copies, 0, [{ id: "a", messages: source }])).toEqual({ kind: "none" })
    expect(matchSource(copies, 2, [{ id: "a", messages: source.slice(1) }])).toEqual({ kind: "none" })
    expect(
      matchSource(copies, 2, [
        { id: "a", messages: source },
        { id: "b", messages: source.slice(0, 3) },
      ]),
    ).toEqual({ kind: "ambiguous", ids: ["a", "b"] })
  })
})

describe("the source's list at the fork point, from its anchored history", () => {
  const EDITED: TodoList = [
    phase("Build", task("Write parser", "in_progress"), task("Add tests", "abandoned")),
  ]
  let h = historyFrom([])
  h = recordCall(h, { message: "m2", callID: "call_1" }, [
    phase("Build", task("Write parser", "in_progress"), task("Add tests")),
  ]).history
  h = recordEdit(h, { after: "m2" }, EDITED).history
  h = recordCall(h, { message: "m4", callID: "call_2" }, LATER).history

  const source = [
    msg("m1", { role: "user" }),
    msg("m2", { calls: ["call_1"] }),
    msg("m3", { role: "user" }),
    msg("m4", { calls: ["call_2"] }),
  ]
  const copies = (n: number, calls = ["call_1"]) =>
    source.slice(0, n).map((m, i) => ({ ...m, id: `c${i + 1}`, calls: m.calls.length > 0 ? calls : [] }))

  test("strictly before the fork point, a user edit made before it included", () => {
    expect(sourceStateAt(h, source, copies(2), 2)).toMatchObject({
      list: EDITED,
      knowsCopies: true,
      base: [],
    })
    expect(sourceStateAt(h, source, copies(4), 4)).toMatchObject({ list: LATER, knowsCopies: true })
  })

  test("the lists after each copied message, anchored at the copies: the fork's own history", () => {
    const state = sourceStateAt(h, source, copies(2), 2)!
    expect(state.reached).toEqual([
      { message: "c1", list: [] },
      { message: "c2", callID: "call_1", list: EDITED },
    ])
    const started = originOf({ kind: "none" }, { kind: "found", sourceID: "s", point: "m3" }, state)!.history
    expect(listAt(started, { message: "c2" }).list).toEqual([])
    expect(listAt(started).list).toEqual(EDITED)
    expect(stateAtCall(started, ["call_1"])?.after).toEqual(EDITED)
  })

  test("a history that saw none of the copied messages cannot say what the list was at the fork point", () => {
    const later = recordCall(historyFrom([]), { message: "m4", callID: "call_2" }, LATER).history
    expect(sourceStateAt(later, source, copies(2, ["call_other"]), 2)?.knowsCopies).toBe(false)
    expect(sourceStateAt(historyFrom(LATER), source, copies(2), 2)?.knowsCopies).toBe(false)
  })

  test("copied calls that changed nothing (not recorded): a user edit anchored in a copied message proves the history saw them", () => {
    const edited = recordEdit(historyFrom([]), { after: "m2" }, EDITED).history
    expect(sourceStateAt(edited, source, copies(2, ["call_view"]), 2)).toMatchObject({
      list: EDITED,
      knowsCopies: true,
    })
  })

  test("a source undone to a point: a fork at or after it gets the changes made while undone, one before it not", () => {
    const docs = [{ op: "append" as const, phase: "Build", items: ["Docs"] }]
    const undone = revert(h, { message: "m3" }).history
    const withDocs = (list: TodoList) => [{ ...list[0]!, tasks: [...list[0]!.tasks, task("Docs")] }]
    const edited = recordEdit(undone, { ops: docs }, withDocs(EDITED)).history
    expect(sourceStateAt(edited, source, copies(2), 2)?.list).toEqual(withDocs(EDITED))
    expect(sourceStateAt(edited, source, copies(4), 4)?.list).toEqual(withDocs(LATER))
    expect(sourceStateAt(edited, source, copies(1), 1)?.list).toEqual([])
  })

  test("no call copied: nothing to check; nothing copied: nothing to say", () => {
    expect(sourceStateAt(h, source, copies(1), 1)).toMatchObject({ list: [], knowsCopies: true })
    expect(sourceStateAt(h, source, [], 0)).toBeUndefined()
  })
})

describe("where a session with no record starts", () => {
  const found = transcriptList([msg("m1", { lists: [OPEN_SAMPLE] })], DEFAULT_LIMITS)
  const forked: SourceMatch = { kind: "found", sourceID: "ses_src", point: "m3" }
  const known = {
    list: LATER,
    knowsCopies: true,
    base: [],
    reached: [{ message: "c2", callID: "call_1", list: LATER }],
  }

  test("a matched fork whose source knows the copied calls starts from the source's list at the fork point", () => {
    const origin = originOf(found, forked, known)
    expect(origin).toMatchObject({ list: LATER, shown: OPEN_SAMPLE, from: "source", notes: [] })
    expect(listAt(origin!.history).list).toEqual(LATER)
  })

  test("a source whose history did not see the copies, or has no history, leaves the fork its own conversation's list", () => {
    expect(originOf(found, forked, { ...known, knowsCopies: false })).toMatchObject({
      list: OPEN_SAMPLE,
      from: "transcript",
      notes: [expect.stringMatching(/did not see the copied messages/)],
    })
    expect(originOf(found, forked, undefined)).toMatchObject({ list: OPEN_SAMPLE, from: "transcript" })
  })

  test("two sources that fit: the conversation's list, and the log says why", () => {
    expect(originOf(found, { kind: "ambiguous", ids: ["a", "b"] }, undefined)).toMatchObject({
      list: OPEN_SAMPLE,
      notes: ["the fork matches 2 sessions, so it starts from its own conversation"],
    })
  })

  test("a fork of a list made only with /todo: the source's list, shown to the model as none", () => {
    expect(originOf({ kind: "none" }, forked, known)).toMatchObject({
      list: LATER,
      shown: [],
      from: "source",
      notes: [],
    })
  })

  test("rebuilt from the conversation: its history holds each list where the conversation reached it", () => {
    const transcript = [
      msg("m1", { role: "user" }),
      { ...msg("m2"), calls: ["call_1"], lists: [{ list: OPEN_SAMPLE, version: 1, callID: "call_1" }] },
      msg("m3", { role: "user" }),
      { ...msg("m4"), calls: ["call_2"], lists: [{ list: LATER, version: 1, callID: "call_2" }] },
    ]
    const origin = originOf(transcriptList(transcript, DEFAULT_LIMITS), { kind: "none" }, undefined)!
    expect(origin.list).toEqual(LATER)
    expect(listAt(origin.history, { message: "m3" }).list).toEqual(OPEN_SAMPLE)
    expect(listAt(origin.history, { message: "m2" }).list).toEqual([])
    expect(stateAtCall(origin.history, ["call_2"])?.before).toEqual(OPEN_SAMPLE)
  })

  test("nothing to go on: empty as any new session; unreadable lists: an empty list the model is told of", () => {
    expect(originOf({ kind: "none" }, { kind: "none" }, undefined)).toBeUndefined()
    expect(originOf({ kind: "unreadable", skipped: ["x"] }, { kind: "none" }, undefined)).toMatchObject({
      list: [],
      shown: null,
      from: "transcript",
      notes: ["x"],
    })
  })
})
