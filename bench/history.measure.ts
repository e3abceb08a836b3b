// The list history (src/core/history/) against session length: recording a todo call, and the list
// before a point near the end (the common undo), on a history of 10 changes and of 5,000 changes to a
// 50-task list, compared interleaved (bench/lib.ts) so a loaded machine does not move the ratio. A far
// revert (a replay from the nearest checkpoint) and reading a stored history back (which checks every
// checkpoint, so it grows with the history) are reported with their times. Targets: the ratios stay
// under MAX_RATIO, and the record after 1,000 changes stays under 128 KB.

import { expect, it } from "vitest"
import { currentList, listAt, type Point } from "../src/core/history/history.ts"
import { recordCall, recordEdit } from "../src/core/history/placement.ts"
import { revert } from "../src/core/history/revert.ts"
import { decodeHistory, encodeHistory } from "../src/core/history/stored.ts"
import { executeOps } from "../src/core/list/execute.ts"
import { encodeRecord } from "../src/store/record.ts"
import { historySession } from "../test/fixtures/history-session.ts"
import { compareInterleaved, fixed, formatNs, measure, record } from "./lib.ts"

const SIZES = [10, 5_000] as const
const MAX_RATIO = 2
const MAX_RECORD_BYTES = 128 * 1024

const LONG = historySession(SIZES[1])

/**
 * The next call of a session of `size` changes: the task in progress done, in a new assistant message.
 * Every size ends in the same list (the long session's), so the sizes differ by their history only.
 */
function nextCall(size: number) {
  const session = size === SIZES[1] ? LONG : historySession(size - 1)
  const last = session.messages[session.messages.length - 1]!
  const list = currentList(LONG.history)
  const h = session === LONG ? LONG.history : recordEdit(session.history, { after: last.id }, list).history
  const current = list.flatMap((p) => p.tasks).find((t) => t.status === "in_progress")!
  const run = executeOps(list, [{ op: "done", target: { kind: "task", text: current.text } }])
  if (!run.ok) throw new Error(run.error)
  const anchor = { message: `${last.id}z`, part: `${last.parts.at(-1) ?? last.id}z`, callID: "toolu_bench" }
  // Undo of the newest turn: back to before the last message.
  const near: Point = { message: last.id }
  const far: Point = { message: session.messages[1]!.id }
  return { h, anchor, after: run.list, near, far, messages: session.messages.length }
}

it("keeps recording a change and a revert near the end flat from 10 to 5,000 changes", async () => {
  const cases = SIZES.map(nextCall)
  const record1 = await compareInterleaved(cases.map((c) => fixed(() => recordCall(c.h, c.anchor, c.after))))
  const near = await compareInterleaved(cases.map((c) => fixed(() => listAt(c.h, c.near))))
  const undo = await compareInterleaved(cases.map((c) => fixed(() => revert(c.h, c.near))))
  const long = cases[cases.length - 1]!
  const far = measure(() => listAt(long.h, long.far), { perBatch: 5 })
  const stored = JSON.parse(JSON.stringify(encodeHistory(long.h)))
  const read = measure(() => decodeHistory(stored, currentList(long.h)), { perBatch: 1 })

  const thousand = historySession(1_000).history
  const list = currentList(thousand)
  const bytes = Buffer.byteLength(
    encodeRecord("ses_bench", { list, history: thousand, revision: 1_000, edits: [], persisted: true }),
  )

  const row = (name: string, c: Awaited<ReturnType<typeof compareInterleaved>>) => [
    name,
    ...c.bestNs.map(formatNs),
    `${c.ratios[1]!.toFixed(2)}x (${c.ratioRange[1]!.map((r) => r.toFixed(2)).join("–")})`,
  ]
  record("history", [
    {
      title: "List history: cost against session length",
      note: `Changes recorded to a 50-task list (${long.messages} messages at ${SIZES[1]}). Ratio: ${SIZES[1]} over ${SIZES[0]}, median of interleaved trials (range); the gate is ${MAX_RATIO}x.`,
      columns: ["step", `${SIZES[0]} changes`, `${SIZES[1]} changes`, "ratio"],
      rows: [
        row("record a todo call", record1),
        row("list before the last message", near),
        row("revert to the last message", undo),
      ],
    },
    {
      title: "List history: far reverts, reading back, record size",
      columns: ["measure", "value"],
      rows: [
        [`list before the 2nd message (${SIZES[1]} changes)`, formatNs(far.medianNs)],
        [`read a stored history back (${SIZES[1]} changes)`, formatNs(read.medianNs)],
        ["record after 1,000 changes to a 50-task list", `${(bytes / 1024).toFixed(1)} KB (limit 128 KB)`],
      ],
    },
  ])

  expect(bytes).toBeLessThan(MAX_RECORD_BYTES)
  for (const c of [record1, near, undo]) expect(c.ratios[1]).toBeLessThan(MAX_RATIO)
})
