// Where the list history keeps its entries (core/history/spans.ts): positions and their order, entries
// encoded against the one before, walking and replaying a span, the span a position falls in, its tail.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { diffRows, fromRows, toRows } from "../../src/core/history/rows.ts"
import {
  compare,
  type Entry,
  encodeEntry,
  firstPos,
  isPoint,
  isSpan,
  label,
  type Pos,
  pointOf,
  posOf,
  RECENT,
  replay,
  type Span,
  spanFor,
  tailOf,
  walk,
} from "../../src/core/history/spans.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { phase, task } from "../fixtures/lists.ts"

const at = (m: string, p?: string): Pos => posOf(p === undefined ? { message: m } : { message: m, part: p })
const afterParts = (m: string): Pos => ({ m, k: 2, p: "" })

/** A span from a checkpoint and the lists reached at each position, encoded as the history encodes it. */
function spanOf(start: TodoList, steps: readonly { pos: Pos; list: TodoList }[]): Span {
  const entries: Entry[] = []
  let rows = toRows(start)
  let m = ""
  let p = ""
  for (const { pos, list } of steps) {
    const next = toRows(list)
    entries.push(encodeEntry(pos, m, p, "", diffRows(rows, next)))
    m = pos.m
    if (pos.k === 1) p = pos.p
    rows = next
  }
  return { l: toRows(start), e: entries }
}

const plan = (...done: string[]): TodoList => [
  phase(
    "Build",
    ...["Parse", "Check", "Ship"].map((t) => task(t, done.includes(t) ? "completed" : "pending")),
  ),
]

describe("positions", () => {
  it("order by message, then before its parts < at a part < after its parts, then by part", () => {
    const order = [at("msg_1"), at("msg_1", "prt_1"), at("msg_1", "prt_2"), afterParts("msg_1"), at("msg_2")]
    for (let i = 0; i < order.length; i++)
      for (let j = 0; j < order.length; j++)
        expect(Math.sign(compare(order[i]!, order[j]!)), `${i} vs ${j}`).toBe(Math.sign(i - j))
  })

  it("go to a point and back", () => {
    expect(pointOf(at("msg_1"))).toEqual({ message: "msg_1" })
    expect(pointOf(at("msg_1", "prt_3"))).toEqual({ message: "msg_1", part: "prt_3" })
    expect(isPoint({ message: "msg_1" })).toBe(true)
    for (const bad of [{}, { message: "" }, { message: "m", part: 3 }, { message: "m", part: "" }, null, "m"])
      expect(isPoint(bad)).toBe(false)
  })

  it("are labelled quoted, escaped and cut short (ids come from outside)", () => {
    expect(label('a"b\n')).toBe('"a\\"b\\n"')
    expect(label("x".repeat(60))).toBe(JSON.stringify(`${"x".repeat(39)}…`))
  })
})

describe("a span", () => {
  const steps = [
    { pos: at("msg_0002", "prt_0001"), list: plan("Parse") },
    { pos: at("msg_0002", "prt_0005"), list: plan("Parse", "Check") },
    { pos: afterParts("msg_0004"), list: plan("Parse", "Check", "Ship") },
  ]
  const span = spanOf(plan(), steps)

  it("walks back the positions it was written with, ids shortened against the entry before", () => {
    expect([...walk(span)].map((w) => w.pos)).toEqual(steps.map((s) => s.pos))
    expect(span.e[1]![0]).toBe("") // the same message: no id at all
    expect(firstPos(span)).toEqual(steps[0]!.pos)
    expect(firstPos({ l: [], e: [] })).toBeUndefined()
  })

  it("replays the entries strictly before a position, or all of them", () => {
    const list = (pos?: Pos) => fromRows(replay(span, pos).rows)
    expect(list(at("msg_0001"))).toEqual(plan())
    expect(list(at("msg_0002", "prt_0005"))).toEqual(plan("Parse"))
    expect(list(at("msg_0003"))).toEqual(plan("Parse", "Check"))
    expect(list()).toEqual(plan("Parse", "Check", "Ship"))
    expect(replay(span).count).toBe(3)
    expect(replay(span).broken).toBe(false)
  })

  it("stops at an id it cannot expand, and says a full replay broke", () => {
    const bad: Span = { l: span.l, e: [span.e[0]!, ["9zzz", 0, "", span.e[1]![3]]] }
    expect([...walk(bad)]).toHaveLength(1)
    expect(replay(bad).broken).toBe(true)
    expect(tailOf(bad)).toBeUndefined()
  })

  it("has a tail: its last position, the last part id, and the lists its last entries left", () => {
    const { tail, rows } = tailOf(span)!
    expect(fromRows(rows)).toEqual(plan("Parse", "Check", "Ship"))
    expect(tail.pos).toEqual(afterParts("msg_0004"))
    expect(tail.m).toBe("msg_0004")
    expect(tail.p).toBe("prt_0005")
    expect(tail.recent.map((r) => r.list)).toEqual(steps.map((s) => s.list))
  })

  it("keeps only the last RECENT lists in its tail", () => {
    const many = Array.from({ length: RECENT + 5 }, (_, i) => ({
      pos: afterParts(`msg_${String(i).padStart(4, "0")}`),
      list: [phase("Build", task(`Task ${i}`))],
    }))
    const { tail } = tailOf(spanOf([], many))!
    expect(tail.recent).toHaveLength(RECENT)
    expect(tail.recent[0]!.list).toEqual(many[5]!.list)
  })

  it("is told apart from anything else a record may hold", () => {
    expect(isSpan(span)).toBe(true)
    for (const bad of [null, {}, { l: [], e: {} }, { l: ["?bad"], e: [] }, { l: [], e: [["m", 2, "", []]] }])
      expect(isSpan(bad)).toBe(false)
  })
})

describe("the span a position falls in", () => {
  const spans: Span[] = [
    spanOf([], [{ pos: afterParts("msg_1"), list: plan() }]),
    spanOf(plan(), [{ pos: afterParts("msg_3"), list: plan("Parse") }]),
    spanOf(plan("Parse"), [{ pos: afterParts("msg_5"), list: plan("Parse", "Check") }]),
  ]

  it("is the last whose first entry is strictly before it, else the first", () => {
    expect(spanFor(spans, at("msg_0"))).toBe(0)
    expect(spanFor(spans, at("msg_3"))).toBe(0)
    expect(spanFor(spans, at("msg_4"))).toBe(1)
    expect(spanFor(spans, at("msg_5"))).toBe(1)
    expect(spanFor(spans, at("msg_9"))).toBe(2)
  })
})

describe("encoding (property)", () => {
  it("any increasing run of positions walks back exactly, and a full replay ends at the last list", () => {
    const posArb = fc.record({
      m: fc.integer({ min: 0, max: 40 }),
      k: fc.constantFrom(0 as const, 1 as const, 2 as const),
      p: fc.integer({ min: 0, max: 40 }),
    })
    fc.assert(
      fc.property(fc.array(posArb, { maxLength: 30 }), (raw) => {
        const positions = raw
          .map(({ m, k, p }) => ({
            m: `msg_${String(m).padStart(3, "0")}`,
            k,
            p: k === 1 ? `prt_${String(p).padStart(3, "0")}` : "",
          }))
          .sort(compare)
        const steps = positions.map((pos, i) => ({ pos, list: [phase("P", task(`t${i}`, "completed"))] }))
        const span = spanOf([], steps)
        expect([...walk(span)].map((w) => w.pos)).toEqual(positions)
        expect(fromRows(replay(span).rows)).toEqual(steps.at(-1)?.list ?? [])
      }),
    )
  })
})
