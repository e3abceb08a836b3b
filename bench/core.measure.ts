// Core speed: one op against lists of 10, 100 and 1,000 tasks, the result text, and
// the TODO.md round trip. Target: a single op on 1,000 tasks well under a millisecond.

import { expect, it } from "vitest"
import { execute } from "../src/core/list/execute.ts"
import { parseMarkdown, renderMarkdown } from "../src/core/list/markdown.ts"
import type { TodoList } from "../src/core/list/types.ts"
import { formatOutcome } from "../src/core/model/format.ts"
import { buildSidebarView } from "../src/core/view/sidebar.ts"
import { formatNs, measure, record } from "./lib.ts"

const LIMITS = { maxTaskChars: 300, maxTasks: 5_000, maxPhases: 200, maxOpsPerCall: 50 }

function makeList(tasks: number): TodoList {
  const perPhase = 10
  const list: { name: string; tasks: { text: string; status: "pending" | "in_progress" | "completed" }[] }[] =
    []
  for (let i = 0; i < tasks; i++) {
    const p = Math.floor(i / perPhase)
    if (!list[p]) list[p] = { name: `Phase ${p + 1} of the benchmark plan`, tasks: [] }
    const status = i < tasks / 2 ? "completed" : i === Math.floor(tasks / 2) ? "in_progress" : "pending"
    list[p]!.tasks.push({ text: `Task number ${i + 1}: a description about fifty chars`, status })
  }
  return list
}

it("measures the core on lists of 10, 100 and 1,000 tasks", () => {
  const rows: string[][] = []
  let opOn1000 = Number.POSITIVE_INFINITY
  for (const size of [10, 100, 1_000]) {
    const list = makeList(size)
    const middle = `Task number ${Math.floor(size / 2) + 1}: a description about fifty chars`
    const last = `Task number ${size}: a description about fifty chars`
    const done = measure(() => execute(list, { op: "done", task: middle }, LIMITS))
    const start = measure(() => execute(list, { op: "start", task: last }, LIMITS))
    const failing = measure(() => execute(list, { op: "done", task: "no such task" }, LIMITS))
    const outcome = execute(list, { op: "done", task: middle }, LIMITS)
    const format = measure(() => formatOutcome(list, outcome))
    const view = measure(() => formatOutcome(list, execute(list, { op: "view" }, LIMITS)))
    const markdown = renderMarkdown(list)
    const roundTrip = measure(() => parseMarkdown(renderMarkdown(list), LIMITS), {
      perBatch: size >= 1_000 ? 5 : 50,
    })
    const hud = measure(() => buildSidebarView(list, { maxRows: 40 }))
    expect(parseMarkdown(markdown, LIMITS)).toEqual({ ok: true, value: list })
    // The gate takes the fastest batch: load only adds time, so it is the figure a busy machine moves least.
    if (size === 1_000) opOn1000 = done.minNs
    rows.push([
      String(size),
      formatNs(done.medianNs),
      formatNs(start.medianNs),
      formatNs(failing.medianNs),
      formatNs(format.medianNs),
      formatNs(view.medianNs),
      formatNs(roundTrip.medianNs),
      formatNs(hud.medianNs),
    ])
  }
  record("core", [
    {
      title: "Core operations (median per call)",
      note: "`done`: one task completed and the next promoted; `error`: a call naming an unknown task; `format`: the result text of a `done`; `view`: execute plus the whole-list text; `md`: render plus parse of TODO.md; `hud`: the sidebar view model at 40 rows.",
      columns: ["tasks", "done", "start", "error", "format", "view", "md round trip", "hud"],
      rows,
    },
  ])
  expect(opOn1000).toBeLessThan(1_000_000)
})
