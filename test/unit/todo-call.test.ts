// One todo call, decided (src/core/session/todo-call.ts): the refusal, the run under the lock, and the actions
// and answer that follow what the store kept.

import { describe, expect, it } from "vitest"
import { historyFrom } from "../../src/core/history/history.ts"
import { DEFAULT_LIMITS, type TodoList } from "../../src/core/list/types.ts"
import { formatOutcome } from "../../src/core/model/format.ts"
import { SUBAGENT_REFUSAL } from "../../src/core/model/prompts.ts"
import { initialSession, type SessionFacts } from "../../src/core/session/session.ts"
import { answerCall, refusedCall, runCall } from "../../src/core/session/todo-call.ts"

const ERRORS = { busy: "the list is busy", failed: "the change failed" }
const ON = { toasts: true }
const LIST: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "in_progress" },
      { text: "Test parser", status: "pending" },
    ],
  },
]
const stored = (list: TodoList) => ({ list, history: historyFrom(list) })
const CALL = { message: "m1", callID: "c1" }
const facts = (subagent: boolean | null): SessionFacts => ({ ...initialSession().facts, subagent })

describe("refusedCall", () => {
  it("refuses a subagent's call with the refusal text and the list it has", () => {
    expect(refusedCall(facts(true), LIST)).toEqual({
      ok: false,
      changed: false,
      title: "todo: refused",
      output: SUBAGENT_REFUSAL,
      list: LIST,
      refused: true,
    })
  })

  it("lets a main session's call run, and one whose parent is not known yet", () => {
    expect(refusedCall(facts(false), LIST)).toBeUndefined()
    expect(refusedCall(facts(null), LIST)).toBeUndefined()
  })
})

describe("runCall and answerCall", () => {
  it("a change asks for a write and answers formatOutcome's text, its first line the title", () => {
    const { next, run } = runCall(stored(LIST), { op: "done", task: "Write parser" }, CALL, DEFAULT_LIMITS)
    expect(next?.list).toBe(run.result.ok ? run.result.list : undefined)
    expect(run.changed).toBe(true)
    const { actions, output } = answerCall(run, { busy: false, list: next!.list }, ON, ERRORS)
    expect(output.output).toBe(formatOutcome(LIST, run.result))
    expect(output.title).toBe(output.output.split("\n")[0]!.slice(0, 80))
    expect(output).toMatchObject({ ok: true, changed: true, list: next!.list })
    expect(actions).toEqual([{ type: "track", event: { type: "todo.finished", ok: true, ops: ["done"] } }])
  })

  it("a view changes nothing: no write, changed false", () => {
    const { next, run } = runCall(stored(LIST), { op: "view" }, CALL, DEFAULT_LIMITS)
    expect(next).toBeUndefined()
    expect(answerCall(run, { busy: false, list: LIST }, ON, ERRORS).output).toMatchObject({
      ok: true,
      changed: false,
    })
  })

  it("a bad call asks for no write, answers the error and tells the tracker it failed", () => {
    const { next, run } = runCall(stored(LIST), { op: "done", task: "Nope" }, CALL, DEFAULT_LIMITS)
    expect(next).toBeUndefined()
    const { actions, output } = answerCall(run, { busy: false, list: LIST }, ON, ERRORS)
    expect(output).toMatchObject({ ok: false, changed: false, title: "todo: error", list: LIST })
    expect(output.output).toMatch(/^Error: .*Nope/)
    expect(actions).toEqual([{ type: "track", event: { type: "todo.finished", ok: false, ops: [] } }])
  })

  it("toasts come before the tracker's event, against the list the store kept", () => {
    const args = { op: "block", task: "Write parser", reason: "needs a decision" }
    const { next, run } = runCall(stored(LIST), args, CALL, DEFAULT_LIMITS)
    const { actions } = answerCall(run, { busy: false, list: next!.list }, ON, ERRORS)
    expect(actions.map((a) => a.type)).toEqual(["toast", "track"])
    // The store kept no change (it refused the list): nothing to toast.
    expect(answerCall(run, { busy: false, list: LIST }, ON, ERRORS).actions.map((a) => a.type)).toEqual([
      "track",
    ])
  })

  it("a busy store or a change that threw answers the store's error, unstored, and a failed finish", () => {
    const busy = answerCall(undefined, { busy: true, list: LIST }, ON, ERRORS)
    expect(busy.output).toEqual({
      ok: false,
      changed: false,
      title: "todo: busy",
      output: "Error: the list is busy",
      list: LIST,
      unstored: true,
    })
    const failed = answerCall(undefined, { busy: false, list: LIST }, ON, ERRORS)
    expect(failed.output).toMatchObject({ title: "todo: error", output: "Error: the change failed" })
    for (const { actions } of [busy, failed])
      expect(actions).toEqual([{ type: "track", event: { type: "todo.finished", ok: false, ops: [] } }])
  })

  it("a recording warning is the first action", () => {
    const run = { ...runCall(stored(LIST), { op: "view" }, CALL, DEFAULT_LIMITS).run, warning: "cut short" }
    const { actions } = answerCall(run, { busy: false, list: LIST }, ON, ERRORS)
    expect(actions[0]).toEqual({ type: "warn", message: "cut short" })
    expect(actions.at(-1)?.type).toBe("track")
  })
})
