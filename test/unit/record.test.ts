// The on-disk record, without a file system: encode and decode are inverse, and every way a text can be
// unreadable has a reason.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { currentList, historyFrom, listAt, revertPoint } from "../../src/core/history/history.ts"
import { recordCall, recordEdit } from "../../src/core/history/placement.ts"
import { revert, unrevert } from "../../src/core/history/revert.ts"
import { encodeHistory } from "../../src/core/history/stored.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import {
  decodeRecord,
  EMPTY,
  encodeRecord,
  nextSnapshot,
  RECORD_VERSION,
  type Snapshot,
} from "../../src/store/record.ts"

const parse = (raw: unknown) => parseSnapshot(raw)
const LIST: TodoList = [{ name: "P", tasks: [{ text: "a", status: "in_progress" }] }]

describe("encodeRecord / decodeRecord", () => {
  it("round-trip any revision, edits and session id", () => {
    fc.assert(
      fc.property(
        fc.string(),
        fc.nat(),
        fc.array(fc.jsonValue(), { maxLength: 5 }),
        (session, revision, edits) => {
          const snap: Snapshot = { list: LIST, revision, edits, persisted: true }
          const decoded = decodeRecord(encodeRecord(session, snap), session, parse)
          const history = historyFrom(LIST)
          expect(decoded).toEqual({ kind: "ok", snap: { ...JSON.parse(JSON.stringify(snap)), history } })
        },
      ),
    )
  })

  it("writes the version and the session into the record", () => {
    const record = JSON.parse(encodeRecord("s", { ...EMPTY, revision: 2 }))
    expect(record).toEqual({
      version: RECORD_VERSION,
      session: "s",
      revision: 2,
      list: [],
      edits: [],
      history: encodeHistory(historyFrom([])),
    })
  })

  it("leaves a record of a newer version alone", () => {
    const text = JSON.stringify({ version: RECORD_VERSION + 1, session: "s", revision: 1, list: "?" })
    expect(decodeRecord(text, "s", parse)).toEqual({ kind: "newer", version: RECORD_VERSION + 1 })
  })

  it.each([
    ["{", "not valid JSON"],
    ["[]", "not a JSON object"],
    [JSON.stringify({ version: 0, session: "s", revision: 0, list: [] }), "missing or unknown version"],
    [JSON.stringify({ version: 1, session: "t", revision: 0, list: [] }), "it names another session"],
    [JSON.stringify({ version: 1, session: "s", revision: 1.5, list: [] }), "bad revision"],
    [JSON.stringify({ version: 1, session: "s", revision: 0, list: [], edits: 1 }), "edits is not an array"],
  ])("calls %s corrupt: %s", (text, reason) => {
    expect(decodeRecord(text, "s", parse)).toEqual({ kind: "corrupt", reason })
  })
})

describe("nextSnapshot", () => {
  it("bumps the revision and refuses a list that would not read back", () => {
    const current: Snapshot = { list: [], revision: 4, edits: [], persisted: true }
    const next = nextSnapshot(current, { ...current, list: LIST }, parse, false)
    expect(next).toEqual({
      ok: true,
      value: { list: LIST, revision: 5, edits: [], persisted: false, history: expect.anything() },
    })
    const bad = { ...current, list: [{ name: "", tasks: [] }] }
    expect(nextSnapshot(current, bad, parse, true).ok).toBe(false)
  })
})

describe("the list's history in the record", () => {
  const DONE: TodoList = [{ name: "P", tasks: [{ text: "a", status: "completed" }] }]
  const v1 = (list: TodoList) => JSON.stringify({ version: 1, session: "s", revision: 3, list, edits: [] })

  it("reads a version-1 record as a history whose only state is its list", () => {
    expect(decodeRecord(v1(LIST), "s", parse)).toEqual({
      kind: "ok",
      snap: { list: LIST, revision: 3, edits: [], persisted: true, history: historyFrom(LIST) },
    })
  })

  it("round-trips a reverted history with an edit made while reverted", () => {
    let history = recordCall(historyFrom([]), { message: "m1", part: "p1", callID: "c1" }, LIST).history
    history = recordCall(history, { message: "m3", part: "p3", callID: "c2" }, DONE).history
    history = revert(history, { message: "m3" }).history
    const edited: TodoList = [{ name: "P", tasks: [{ text: "a", status: "blocked", blocker: "why" }] }]
    history = recordEdit(history, {}, edited).history
    const snap: Snapshot = { list: edited, history, revision: 7, edits: [], persisted: true }
    const decoded = decodeRecord(encodeRecord("s", snap), "s", parse)
    expect(decoded).toEqual({ kind: "ok", snap })
    if (decoded.kind !== "ok") return
    // The newest list is kept beside the view; redo makes the edit again on it.
    expect(listAt(decoded.snap.history!).list).toEqual(DONE)
    expect(unrevert(decoded.snap.history!).list).toEqual(edited)
  })

  it("keeps the list of a record whose history does not read, with a history of that list and a warning", () => {
    const text = encodeRecord("s", { list: LIST, revision: 2, edits: [], persisted: true }).replace(
      /"history": .*\n/,
      '"history": {"v":1,"spans":[{"l":["?"],"e":[]}]}\n',
    )
    expect(decodeRecord(text, "s", parse)).toEqual({
      kind: "ok",
      snap: { list: LIST, revision: 2, edits: [], persisted: true, history: historyFrom(LIST) },
      warning: expect.stringMatching(/^The stored list history is unreadable/),
    })
  })

  it("writes the history as one compact line", () => {
    const history = recordCall(historyFrom([]), { message: "m1", part: "p1", callID: "c1" }, LIST).history
    const lines = encodeRecord("s", { list: LIST, history, revision: 1, edits: [], persisted: true }).split(
      "\n",
    )
    expect(lines.filter((l) => l.startsWith('  "history": '))).toEqual([
      `  "history": ${JSON.stringify(encodeHistory(history))}`,
    ])
  })
})

describe("nextSnapshot and the history", () => {
  const current: Snapshot = { list: LIST, revision: 1, edits: [], persisted: true }
  const DONE: TodoList = [{ name: "P", tasks: [{ text: "a", status: "completed" }] }]

  it("records a list change the caller did not record, as a user edit at the newest position", () => {
    const next = nextSnapshot(current, { ...current, list: DONE }, parse, true)
    if (!next.ok) throw new Error(next.error)
    expect(currentList(next.value.history!)).toEqual(DONE)
    expect(listAt(next.value.history!, { message: "m1" }).list).toEqual(DONE)
    expect(revert(next.value.history!, { message: "m1" }).list).toEqual(DONE)
  })

  it("keeps a history the caller recorded as it is", () => {
    const step = recordCall(historyFrom(LIST), { message: "m1", part: "p1", callID: "c" }, DONE)
    const next = nextSnapshot(current, { ...current, list: step.list, history: step.history }, parse, true)
    expect(next.ok && next.value.history).toBe(step.history)
    expect(next.ok && listAt(next.value.history!, { message: "m1" }).list).toEqual(LIST)
  })

  it("while reverted, records an unrecorded change as an edit made while reverted", () => {
    let history = recordCall(historyFrom([]), { message: "m1", part: "p1", callID: "c1" }, LIST).history
    history = recordCall(history, { message: "m3", part: "p3", callID: "c2" }, DONE).history
    const undone = revert(history, { message: "m3" })
    const reverted: Snapshot = { ...current, list: undone.list, history: undone.history }
    const edited: TodoList = [{ name: "P", tasks: [{ text: "b", status: "in_progress" }] }]
    const next = nextSnapshot(reverted, { ...reverted, list: edited }, parse, true)
    if (!next.ok) throw new Error(next.error)
    expect(currentList(next.value.history!)).toEqual(edited)
    expect(revertPoint(next.value.history!)).toEqual({ message: "m3" })
    expect(listAt(next.value.history!).list).toEqual(DONE)
  })
})
