// Every read of a stored history is bounded: a record is text from outside, and a history far over its caps
// (one span of 5,000 entries, a checkpoint of 5,000 rows, a history line over 4 MB) keeps its list, drops the
// history it cannot trust and says why, without replaying it. A record within the caps replays its newest
// span only when read, and one span for an undo far back. The tests count rows replayed, not time.
import { describe, expect, it } from "vitest"
import { STORED_LIMITS } from "../../src/core/config.ts"
import {
  currentList,
  HISTORY_CAPS,
  historyFrom,
  type ListHistory,
  listAt,
  type Meter,
} from "../../src/core/history/history.ts"
import { recordCall } from "../../src/core/history/placement.ts"
import { MAX_SPAN_ENTRIES } from "../../src/core/history/spans.ts"
import { decodeHistory, encodeHistory } from "../../src/core/history/stored.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { decodeRecord, encodeRecord } from "../../src/store/record.ts"

const LIST: TodoList = [
  {
    name: "P",
    tasks: [
      { text: "a", status: "in_progress" },
      { text: "b", status: "pending" },
    ],
  },
]

/** A stored history whose one span has `entries` steps flipping task "a" (as a hostile writer could). */
function oneLongSpan(entries: number, rows = 3) {
  const l = ["#P", "ia", "pb", ...Array.from({ length: rows - 3 }, (_, i) => `px${i}`)]
  const e = Array.from({ length: entries }, (_, i) => [
    i === 0 ? "0msg_000001" : "",
    i === 0 ? "0prt_000001" : "",
    "",
    i % 2 === 0 ? "1c" : "1i",
  ])
  return { v: 1, spans: [{ l, e }] }
}

describe("a stored history over its caps", () => {
  it("caps: a list's rows are the most any configuration stores", () => {
    expect(HISTORY_CAPS.rows).toBe(STORED_LIMITS.maxTasks + STORED_LIMITS.maxPhases)
    expect(HISTORY_CAPS.historyChars).toBeGreaterThanOrEqual(4 * 1024 * 1024)
  })

  it("one span far over MAX_SPAN_ENTRIES: the list is kept, the history dropped, nothing replayed", () => {
    const meter: Meter = { steps: 0 }
    const read = decodeHistory(oneLongSpan(5_000), LIST, undefined, meter)
    expect(read.warning).toMatch(/unreadable \(span 1 is malformed\).*list was kept/)
    expect(currentList(read.history)).toEqual(LIST)
    expect(read.history.spans).toHaveLength(1)
    expect(meter.steps).toBe(0)
  })

  it("a checkpoint over the rows cap: the same", () => {
    const read = decodeHistory(oneLongSpan(1, HISTORY_CAPS.rows + 1), LIST)
    expect(read.warning).toMatch(/unreadable/)
    expect(currentList(read.history)).toEqual(LIST)
  })

  it("a record whose history line is over its cap: the list is read, the history not parsed", () => {
    const history = oneLongSpan(1)
    const text = encodeRecord("ses_big", { list: LIST, revision: 3, edits: [], persisted: true })
    // The history line padded past the cap with a string the history never reads.
    const big = text.replace(/"history": \{/, `"history": {"pad":"${"x".repeat(HISTORY_CAPS.historyChars)}",`)
    expect(big.length).toBeGreaterThan(HISTORY_CAPS.historyChars)
    const decoded = decodeRecord(big, "ses_big", (raw) => parseSnapshot(raw))
    expect(decoded.kind).toBe("ok")
    if (decoded.kind !== "ok") return
    expect(decoded.snap.list).toEqual(LIST)
    expect(decoded.warning).toMatch(/over its cap/)
    void history
  })
})

describe("a stored history within its caps", () => {
  /** A long session: `calls` todo calls, each completing and starting tasks of a 40-task list. */
  function longSession(calls: number): ListHistory {
    const tasks = Array.from({ length: 40 }, (_, i) => ({ text: `t${i}`, status: "pending" as const }))
    let h = historyFrom([{ name: "P", tasks }])
    for (let i = 0; i < calls; i++) {
      const list: TodoList = [
        { name: "P", tasks: tasks.map((t, j) => ({ ...t, status: j === i % 40 ? "completed" : "pending" })) },
      ]
      const id = String(i + 1).padStart(6, "0")
      h = recordCall(h, { message: `msg_${id}`, part: `prt_${id}`, callID: `c${i}` }, list).history
    }
    return h
  }

  it("reading replays the newest span only, whatever the length of the session", () => {
    const short = longSession(10)
    const long = longSession(3_000)
    expect(long.spans.length).toBeGreaterThan(5)
    const steps = (h: ListHistory) => {
      const meter: Meter = { steps: 0 }
      const read = decodeHistory(
        JSON.parse(JSON.stringify(encodeHistory(h))),
        currentList(h),
        undefined,
        meter,
      )
      expect(read.warning).toBeUndefined()
      return meter.steps
    }
    // One span's rows and steps at most, at any length.
    const bound = (MAX_SPAN_ENTRIES + 1) * 41
    expect(steps(short)).toBeLessThanOrEqual(bound)
    expect(steps(long)).toBeLessThanOrEqual(bound)
  })

  it("an undo far back replays one span and answers the list there", () => {
    const long = longSession(3_000)
    const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(long))), currentList(long)).history
    const early = listAt(read, { message: "msg_000003" }).list
    expect(early[0]!.tasks.filter((t) => t.status === "completed").map((t) => t.text)).toEqual(["t1"])
  })
})
