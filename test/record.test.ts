// The on-disk record, without a file system: encode and decode are inverse, and every way a text can be
// unreadable has a reason.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { encodeHistory, historyFrom } from "../src/core/history.ts"
import { parseSnapshot } from "../src/core/parse.ts"
import type { TodoList } from "../src/core/types.ts"
import {
  decodeRecord,
  EMPTY,
  encodeRecord,
  nextSnapshot,
  RECORD_VERSION,
  type Snapshot,
} from "../src/store/record.ts"

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
