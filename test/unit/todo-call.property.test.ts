// Random calls on random lists through the core's todo call (src/core/session/todo-call.ts): a failing call
// never changes the list, a successful one answers exactly what formatOutcome says, and the tracker hears last.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { historyFrom } from "../../src/core/history/history.ts"
import { execute } from "../../src/core/list/execute.ts"
import { type Limits, OP_NAMES, STATUSES, type TodoList } from "../../src/core/list/types.ts"
import { formatOutcome } from "../../src/core/model/format.ts"
import { answerCall, runCall } from "../../src/core/session/todo-call.ts"

const LIMITS: Limits = { maxTaskChars: 24, maxTasks: 12, maxPhases: 4, maxOpsPerCall: 3 }
const ERRORS = { busy: "busy", failed: "failed" }
const TEXTS = ["Parse", "Test", "Ship", "Docs", "Wire"]

/** A valid list: distinct task texts, up to three phases. */
const listArb: fc.Arbitrary<TodoList> = fc
  .uniqueArray(fc.constantFrom(...TEXTS), { maxLength: 5 })
  .chain((texts) =>
    fc.tuple(
      fc.constant(texts),
      fc.array(fc.constantFrom(...STATUSES), { minLength: texts.length, maxLength: texts.length }),
    ),
  )
  .map(([texts, statuses]) =>
    texts.length === 0
      ? []
      : [{ name: "Build", tasks: texts.map((text, i) => ({ text, status: statuses[i]! })) }],
  )
  .filter((list) => execute(list, { op: "view" }, LIMITS).ok)

/** A call a model might make: a known op on a known or unknown task, or arbitrary JSON. */
const argsArb = fc.oneof(
  fc.record({
    op: fc.constantFrom(...OP_NAMES, "finish"),
    task: fc.constantFrom(...TEXTS, "Nope"),
    reason: fc.constantFrom("waiting", ""),
    items: fc.array(fc.constantFrom(...TEXTS, "New"), { maxLength: 2 }),
    phase: fc.constantFrom("Build", "Later"),
  }),
  fc.jsonValue(),
)

const callArb = fc.option(
  fc.record({ message: fc.constantFrom("m1", "m2"), callID: fc.constantFrom("c1", "c2") }),
  {
    nil: undefined,
  },
)

describe("the core's todo call", () => {
  it("a failing call asks for no write and answers the list it was given; a success answers formatOutcome", () => {
    fc.assert(
      fc.property(listArb, argsArb, callArb, fc.boolean(), (list, args, call, toasts) => {
        const { next, run } = runCall({ list, history: historyFrom(list) }, args, call, LIMITS)
        const kept = next?.list ?? list
        const { actions, output } = answerCall(run, { busy: false, list: kept }, { toasts }, ERRORS)
        expect(output.ok).toBe(run.result.ok)
        if (!run.result.ok) {
          expect(next).toBeUndefined()
          expect(output).toMatchObject({ changed: false, title: "todo: error", list })
        } else expect(output.changed).toBe(next !== undefined)
        expect(output.output).toBe(formatOutcome(list, run.result))
        // The tracker's event is the last action, and the only one for a call that changed nothing.
        expect(actions.at(-1)).toEqual({
          type: "track",
          event: {
            type: "todo.finished",
            ok: run.result.ok,
            ops: run.result.ok ? run.result.ops.map((o) => o.op) : [],
          },
        })
        if (next === undefined) expect(actions.map((a) => a.type)).toEqual(["track"])
        if (!toasts) expect(actions.filter((a) => a.type === "toast")).toEqual([])
      }),
      { numRuns: 200 },
    )
  })

  it("a busy store or a run that threw answers unstored with the kept list, and the tracker hears a failure", () => {
    fc.assert(
      fc.property(listArb, fc.boolean(), fc.boolean(), (list, busy, toasts) => {
        const { actions, output } = answerCall(undefined, { busy, list }, { toasts }, ERRORS)
        expect(output).toEqual({
          ok: false,
          changed: false,
          title: busy ? "todo: busy" : "todo: error",
          output: `Error: ${busy ? ERRORS.busy : ERRORS.failed}`,
          list,
          unstored: true,
        })
        expect(actions).toEqual([{ type: "track", event: { type: "todo.finished", ok: false, ops: [] } }])
      }),
    )
  })
})
