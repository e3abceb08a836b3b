// A record's history line read in pieces (store/history-text.ts, decodeRecordInPieces in store/record.ts):
// it answers what a read of the whole text answers, for the records the store writes, for any text one
// character away from them, and for records in other forms; it pauses as often as the history is long; and
// writing a record read this way stringifies only the spans that changed since.

import fc from "fast-check"
import { afterEach, describe, expect, it, vi } from "vitest"
import { currentList, historyFrom, type ListHistory } from "../../src/core/history/history.ts"
import { recordCall, recordEdit } from "../../src/core/history/placement.ts"
import { revert } from "../../src/core/history/revert.ts"
import { encodeHistory } from "../../src/core/history/stored.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { historyText } from "../../src/store/history-text.ts"
import {
  type Decoded,
  decodeRecord,
  decodeRecordInPieces,
  encodeRecord,
  PIECE_CHARS,
  type Snapshot,
} from "../../src/store/record.ts"
import { historySession } from "../fixtures/history-session.ts"

const parse = (raw: unknown) => parseSnapshot(raw)

/** Reads `text` in pieces, counting the pauses. */
async function inPieces(text: string, session = "s"): Promise<{ decoded: Decoded; pauses: number }> {
  let pauses = 0
  const decoded = await decodeRecordInPieces(text, session, parse, async () => {
    pauses++
  })
  return { decoded, pauses }
}

/** Task texts with every character the scanner must step over inside a string. */
const TEXTS = ['say "hi"', "back\\slash", "]}{[", "a,b:c", '\\"', "é🙂", "x\\", "0"]

/** A history whose lists hold those texts, with several spans, ending reverted with an edit made while reverted. */
function hostileHistory(changes: number): { history: ListHistory; list: TodoList } {
  let history = historyFrom([])
  for (let i = 0; i < changes; i++) {
    const list: TodoList = [
      {
        name: TEXTS[i % TEXTS.length]!,
        tasks: TEXTS.map((text, k) => ({
          text: `${text} ${k}`,
          status: k === i % TEXTS.length ? "in_progress" : k < i % TEXTS.length ? "completed" : "pending",
        })),
      },
    ]
    const m = `msg_${String(i).padStart(6, "0")}`
    history = recordCall(history, { message: m, part: `prt_${m}`, callID: `call_${i}` }, list).history
  }
  history = revert(history, { message: "msg_000003" }).history
  const list: TodoList = [{ name: "P", tasks: [{ text: 'edit "while" \\ reverted', status: "in_progress" }] }]
  history = recordEdit(history, { ops: [] }, list).history
  return { history, list }
}

function recordOf(history: ListHistory, list: TodoList): string {
  const snap: Snapshot = { list, history, revision: 3, edits: [{ note: "x" }], persisted: true }
  return encodeRecord("s", snap)
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe("a record's history read in pieces", () => {
  it("writes the history line JSON.stringify would, spans with quotes, backslashes and brackets included", () => {
    const { history } = hostileHistory(400)
    expect(history.spans.length).toBeGreaterThan(2)
    expect(historyText(history)).toBe(JSON.stringify(encodeHistory(history)))
  })

  it("answers what reading the whole text answers, for the store's own records", async () => {
    const { history, list } = hostileHistory(400)
    const text = recordOf(history, list)
    const { decoded } = await inPieces(text)
    expect(decoded.kind).toBe("ok")
    expect(decoded).toEqual(decodeRecord(text, "s", parse))
    // Read again and written, the record is the same text.
    if (decoded.kind === "ok") expect(encodeRecord("s", decoded.snap) === text).toBe(true)
  })

  it("answers what reading the whole text answers, for any text one character away", async () => {
    const { history, list } = hostileHistory(40)
    const text = recordOf(history, list)
    const start = text.indexOf('"history"')
    const edit = fc.record({
      at: fc.integer({ min: start, max: text.length }),
      drop: fc.integer({ min: 0, max: 2 }),
      put: fc.constantFrom("", '"', "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "1", "-", "a"),
    })
    await fc.assert(
      fc.asyncProperty(edit, async ({ at, drop, put }) => {
        const changed = text.slice(0, at) + put + text.slice(at + drop)
        expect((await inPieces(changed)).decoded).toEqual(decodeRecord(changed, "s", parse))
      }),
      { numRuns: 300 },
    )
  })

  it("reads records in other forms whole: pretty-printed, keys reordered, a version-1 record", async () => {
    const { history, list } = hostileHistory(40)
    const text = recordOf(history, list)
    const record = JSON.parse(text)
    const others = [
      JSON.stringify(record, null, 2),
      `${text.replace('"history": {"v":1,"spans"', '"history": {"spans"').replace(/\]\}\n\}\n$/, '],"v":1}\n}\n')}`,
      JSON.stringify({ version: 1, session: "s", revision: 2, list, edits: [] }),
    ]
    for (const other of others) {
      const whole = decodeRecord(other, "s", parse)
      expect(whole.kind).toBe("ok")
      expect((await inPieces(other)).decoded).toEqual(whole)
    }
  })

  it("pauses at least once for every PIECE_CHARS of history, and reads a short one without pausing more than once", async () => {
    const long = historySession(4_000)
    const list = decodeRecord(recordOf(long.history, []), "s", parse)
    expect(list.kind).toBe("ok")
    if (list.kind !== "ok") return
    const text = recordOf(long.history, list.snap.list)
    const historyChars = historyText(long.history).length
    expect(historyChars).toBeGreaterThan(2 * PIECE_CHARS)
    const { pauses } = await inPieces(text)
    expect(pauses).toBeGreaterThanOrEqual(Math.floor(historyChars / PIECE_CHARS))
    const { history, list: short } = hostileHistory(5)
    expect((await inPieces(recordOf(history, short))).pauses).toBeLessThanOrEqual(1)
  })

  it("writing a record read in pieces stringifies only what changed since", async () => {
    // Spans written plain are kept as read (one with escapes in it is written again from its value).
    const { history } = historySession(1_000)
    const text = recordOf(history, currentList(history))
    // A fresh read: the spans are new objects, with the texts they were read from.
    const { decoded } = await inPieces(text.replace('"revision": 3', '"revision": 4'))
    if (decoded.kind !== "ok") throw new Error("not read")
    const stringify = vi.spyOn(JSON, "stringify")
    const next = recordOf(decoded.snap.history!, currentList(history))
    const chars = stringify.mock.results.reduce(
      (sum, r) => sum + (typeof r.value === "string" ? r.value.length : 0),
      0,
    )
    stringify.mockRestore()
    expect(next === text).toBe(true)
    const spans = decoded.snap.history!.spans
    expect(chars).toBeLessThan(historyText(decoded.snap.history!).length / spans.length)
  })
})
