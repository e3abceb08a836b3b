// The worst event-loop stall a stored history can cause, on the largest record the caps allow
// (HISTORY_CAPS: a history line of 4 MB, spans of MAX_SPAN_ENTRIES steps over lists of 2,200 rows, every
// step a splice that moves the whole list), and the cost of a restart's first hook on a session with 1,000
// recorded changes (the server reads the record and asks the host where it stands, core/history/effect.ts).
// The stall is what the host feels: the longest stretch the event loop did not turn while the store read (or
// wrote) the record, seen by a ticker scheduled with setImmediate. Target: its fastest batch stays under
// MAX_STALL_MS, reading and writing (a read parses the history one span at a time, store/record.ts; a write
// joins the spans' kept texts, store/history-text.ts).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { expect, it } from "vitest"
import { STORED_LIMITS } from "../src/core/config.ts"
import { inEffect } from "../src/core/history/effect.ts"
import { HISTORY_CAPS, listAt, stateAtCall } from "../src/core/history/history.ts"
import { MAX_SPAN_ENTRIES } from "../src/core/history/spans.ts"
import { decodeHistory } from "../src/core/history/stored.ts"
import { parseSnapshot } from "../src/core/list/parse.ts"
import type { TodoList } from "../src/core/list/types.ts"
import { fileName } from "../src/store/files.ts"
import { decodeRecord, encodeRecord } from "../src/store/record.ts"
import { createStore } from "../src/store/store.ts"
import { historySession } from "../test/fixtures/history-session.ts"
import { startHost } from "../test/fixtures/host.ts"
import { formatNs, measure, record, SHORT } from "./lib.ts"

const MAX_STALL_MS = 50
// CI's short run holds the fastest batch under CI_STALL_BOUND_MS, five times the goal: on the shared 2-core
// machine at load 10 to 12 the fastest batch of a read or write was 17 to 92 ms, since a loaded machine makes the
// process wait for a core in some turn of almost every batch (a read has about 65 turns), and the record decoded
// in one go measured 49 to 156 ms in the same runs, so no wall-clock share of it held either. That a read turns
// the event loop every PIECE_CHARS of history is asserted by count in test/unit/history-text.test.ts, and that a
// write stringifies only the spans that changed; the full run (`npm run bench`) asserts the goal itself.
const CI_STALL_BOUND_MS = 250

/** The largest record the caps allow: spans of splice steps over 2,200-row lists, up to the history cap. */
function largestRecord(): { text: string; list: TodoList; firstMessage: string } {
  const phases = STORED_LIMITS.maxPhases
  const perPhase = Math.floor((HISTORY_CAPS.rows - phases) / phases)
  const list: TodoList = Array.from({ length: phases }, (_, p) => ({
    name: `Phase ${p}`,
    tasks: Array.from({ length: perPhase }, (_, t) => ({
      text: `Task ${p}.${t}`,
      status: "pending" as const,
    })),
  }))
  const rows = list.flatMap((p) => [`#${p.name}`, ...p.tasks.map((t) => `p${t.text}`)])
  const spans: unknown[] = []
  let n = 0
  let chars = 0
  const id = () => `0msg_${String(++n).padStart(8, "0")}`
  while (chars < HISTORY_CAPS.historyChars - 200_000) {
    // Each step takes the list's second row out or puts it back: every one moves the whole list.
    const e = Array.from({ length: MAX_SPAN_ENTRIES }, (_, i) => [
      id(),
      0,
      "",
      i % 2 === 0 ? [1, 1, [], "", []] : [1, 0, [rows[1]], "", []],
    ])
    const span = { l: rows, e }
    chars += JSON.stringify(span).length + 1
    spans.push(span)
  }
  const history = JSON.stringify({ v: 1, spans })
  const head = encodeRecord("ses_caps", { list, revision: 1, edits: [], persisted: true })
  const text = head.replace(/"history": .*\n}\n$/s, `"history": ${history}\n}\n`)
  return { text, list, firstMessage: "msg_00000002" }
}

/** The longest the event loop went without turning while `run` ran, in ns (a setImmediate ticker watches). */
async function worstStall(run: () => Promise<unknown>): Promise<number> {
  let worst = 0
  let last = process.hrtime.bigint()
  let on = true
  const tick = () => {
    const now = process.hrtime.bigint()
    worst = Math.max(worst, Number(now - last))
    last = now
    if (on) setImmediate(tick)
  }
  setImmediate(tick)
  await run()
  on = false
  worst = Math.max(worst, Number(process.hrtime.bigint() - last))
  return worst
}

/** Per batch, a new store reads the record, then another changes its list; the worst stall of each, per batch. */
async function storeStalls(text: string, session: string, batches: number) {
  const dir = mkdtempSync(join(tmpdir(), "todo-caps-"))
  const file = join(dir, fileName(session))
  const parse = (raw: unknown) => parseSnapshot(raw, STORED_LIMITS)
  const fresh = () => createStore({ dir, parse, warn: () => {} })
  const reads: number[] = []
  const writes: number[] = []
  const wholes: number[] = []
  try {
    for (let b = 0; b < batches + 1; b++) {
      const t0 = process.hrtime.bigint()
      decodeRecord(text, session, parse)
      const whole = Number(process.hrtime.bigint() - t0)
      writeFileSync(file, text)
      const read = await worstStall(() => fresh().read(session))
      writeFileSync(file, text)
      const store = fresh()
      const write = await worstStall(() =>
        store.update(session, (current) => ({
          next: {
            ...current,
            list: current.list.map((p, i) => (i === 0 ? { ...p, name: `Renamed ${b}` } : p)),
          },
        })),
      )
      // The first batch warms the JIT up.
      if (b === 0) continue
      reads.push(read)
      writes.push(write)
      wholes.push(whole)
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  const at = (runs: number[]) => {
    const sorted = [...runs].sort((a, b) => a - b)
    return { minNs: sorted[0]!, medianNs: sorted[Math.floor(runs.length / 2)]! }
  }
  return { read: at(reads), write: at(writes), whole: at(wholes) }
}

import { writeFileSync as wf } from "node:fs"

wf("/tmp/big.json", largestRecord().text)
it("measures the worst stall on the largest record the caps allow (goal: 50 ms)", async () => {
  const big = largestRecord()
  const parse = (raw: unknown) => parseSnapshot(raw, STORED_LIMITS)
  const decoded = decodeRecord(big.text, "ses_caps", parse)
  expect(decoded.kind).toBe("ok")
  if (decoded.kind !== "ok") return
  expect(decoded.warning).toBeUndefined()
  const history = decoded.snap.history!
  const stalls = await storeStalls(big.text, "ses_caps", SHORT ? 11 : 15)
  const whole = stalls.whole
  const raw = JSON.parse(big.text).history
  const replayOnly = measure(() => decodeHistory(raw, big.list), { batches: SHORT ? 5 : 15, perBatch: 1 })
  const far = measure(() => listAt(history, { message: big.firstMessage }), { batches: 15, perBatch: 1 })
  const fork = measure(() => stateAtCall(history, ["call_nowhere"]), { batches: 15, perBatch: 1 })
  // A commit no process recorded, found by halving: the host holds only the first messages.
  const gone = measure(() => inEffect(history, { revert: null, holds: (p) => p.message <= "msg_00000100" }), {
    batches: SHORT ? 5 : 15,
    perBatch: 1,
  })

  // A restart's first hook on a session with 1,000 recorded changes: a new server reads the record and asks
  // the host (the fake one, in process) for the session's revert point and its newest message.
  const session = historySession(1_000)
  const first = await startHost()
  const id = "ses_restart"
  const messages = session.messages.map((m) => ({
    info: { id: m.id, role: "assistant" },
    parts: m.parts.map((p) => ({ id: p })),
  }))
  first.transcripts.set(id, { info: { id, title: "restart", time: { created: 1 } }, messages })
  const list = decodeHistory(JSON.parse(JSON.stringify({ v: 1, spans: session.history.spans })), []).history
    .top
  await first.store.update(id, (current) => ({ next: { ...current, list, history: session.history } }))
  const hookTimes: number[] = []
  for (let i = 0; i < (SHORT ? 5 : 15); i++) {
    const h = await startHost({ sharing: first })
    const message = {
      id: `msg_zzzz${i}`,
      sessionID: id,
      role: "user",
      agent: "build",
      model: { providerID: "m", modelID: "m" },
    }
    const parts = [{ id: `prt_zzzz${i}`, sessionID: id, messageID: message.id, type: "text", text: "go on" }]
    const t0 = process.hrtime.bigint()
    await h.hooks["chat.message"]!({ sessionID: id, agent: "build" } as never, { message, parts } as never)
    hookTimes.push(Number(process.hrtime.bigint() - t0))
  }
  first.cleanup()
  hookTimes.sort((a, b) => a - b)
  const hookMedian = hookTimes[Math.floor(hookTimes.length / 2)]!

  const mb = (big.text.length / 1024 / 1024).toFixed(2)
  record("history-caps", [
    {
      title: "Stored history at its caps: the worst stall",
      note: `The largest record the caps allow: ${mb} MB, ${JSON.parse(big.text).history.spans.length} spans of ${MAX_SPAN_ENTRIES} splice steps over ${HISTORY_CAPS.rows}-row lists. Fastest batch (median); the goal is ${MAX_STALL_MS} ms on the fastest batch of the worst stall of a store's read and write (CI: ${CI_STALL_BOUND_MS} ms). The rows below them are synchronous steps, for scale: the whole record decoded in one go is what a read cost before it parsed the history in pieces.`,
      columns: ["step", "fastest", "median"],
      rows: [
        [
          "worst stall: a new store reads the record",
          formatNs(stalls.read.minNs),
          formatNs(stalls.read.medianNs),
        ],
        [
          "worst stall: a new store changes the list (read, write)",
          formatNs(stalls.write.minNs),
          formatNs(stalls.write.medianNs),
        ],
        [
          "the whole record decoded in one go (parse, check every span, replay the newest)",
          formatNs(whole.minNs),
          formatNs(whole.medianNs),
        ],
        [
          "read its history alone (parsed already)",
          formatNs(replayOnly.minNs),
          formatNs(replayOnly.medianNs),
        ],
        [
          "the list before its first message (one span replayed)",
          formatNs(far.minNs),
          formatNs(far.medianNs),
        ],
        ["a fork's lookup of a call it does not hold", formatNs(fork.minNs), formatNs(fork.medianNs)],
        ["a commit no process recorded, found by halving", formatNs(gone.minNs), formatNs(gone.medianNs)],
      ],
    },
    {
      title: "A restart's first hook",
      note: "A new server's first chat.message on a session whose record holds 1,000 changes to a 50-task list (fake host in process: its answers cost no network).",
      columns: ["measure", "fastest", "median"],
      rows: [["first hook after a restart", formatNs(hookTimes[0]!), formatNs(hookMedian)]],
    },
  ])
  expect(stalls.read.minNs / 1e6).toBeLessThan(SHORT ? CI_STALL_BOUND_MS : MAX_STALL_MS)
  expect(stalls.write.minNs / 1e6).toBeLessThan(SHORT ? CI_STALL_BOUND_MS : MAX_STALL_MS)
})
