// The list history against a naive model of the conversation: random sessions of todo calls at parts of
// messages, user edits, new messages, reverts (at messages, at parts, at unknown ids), redo, commits and
// removals seen before their revert must always give, before every point of the surviving conversation,
// the list a plain replay of (position, list) pairs gives. The run's seed replays it (TEST_SEED).

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  commit,
  currentList,
  decodeHistory,
  encodeHistory,
  historyFrom,
  type ListHistory,
  listAt,
  listFingerprint,
  recordCall,
  recordEdit,
  revert,
  type Stepped,
  settleEdit,
  unrevert,
} from "../../src/core/history/history.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import {
  type Action,
  actionsArb,
  Naive,
  npos,
  opsFor,
  PLAN,
  pickPoint,
  points,
} from "../fixtures/history-model.ts"

/** Plays a session on the history and the model; `every` checks every point after every step, else a sample. */
function runSession(
  actions: readonly Action[],
  every = true,
  spansAfter?: { steps: number; least: number },
): void {
  const model = new Naive()
  let h: ListHistory = historyFrom([])
  const take = (step: Stepped): Stepped => {
    h = step.history
    return step
  }
  for (const [step, action] of actions.entries()) {
    if (step === spansAfter?.steps) expect(h.spans.length).toBeGreaterThanOrEqual(spansAfter.least)
    switch (action.kind) {
      case "message":
        // Every prompt commits a pending revert first.
        if (model.rev) {
          model.commit()
          take(commit(h))
        }
        model.messages.push({ id: model.mint("msg"), parts: [] })
        break
      case "part":
        if (!model.rev && model.messages.length > 0) model.messages.at(-1)!.parts.push(model.mint("prt"))
        break
      case "call": {
        // No model request runs while the session is reverted.
        if (model.rev) break
        if (model.messages.length === 0) model.messages.push({ id: model.mint("msg"), parts: [] })
        const message = model.messages.at(-1)!
        const part = model.mint("prt")
        message.parts.push(part)
        const run = executeOps(model.newest(), opsFor(model.newest(), action.ops))
        if (!run.ok) break
        model.push([message.id, 1, part], run.list, false)
        const step = take(recordCall(h, { message: message.id, part, callID: `call-${part}` }, run.list))
        expect(step.warning).toBeUndefined()
        break
      }
      case "edit":
      case "command": {
        const ops = opsFor(model.current(), action.ops)
        const run = executeOps(model.current(), ops)
        const changed = run.ok && JSON.stringify(run.list) !== JSON.stringify(model.current())
        if (run.ok) {
          const after = model.messages.at(-1)?.id
          if (model.rev) {
            if (changed) model.rev.edits.push(ops)
          } else model.push([after ?? "", 2, ""], run.list)
          take(recordEdit(h, after === undefined ? { ops } : { after, ops }, run.list))
        }
        if (action.kind === "edit") break
        // The command's own message: it commits a pending revert, then the edit settles on it.
        if (model.rev) {
          model.commit()
          take(commit(h))
        }
        const id = model.mint("msg")
        model.messages.push({ id, parts: [] })
        if (!changed || !run.ok) break
        model.settle(id, run.list)
        expect(take(settleEdit(h, id, listFingerprint(run.list))).warning).toBeUndefined()
        break
      }
      case "revert": {
        const at = pickPoint(model, action.pick, action.at)
        model.rev = { at, edits: model.rev?.edits ?? [] }
        const step = take(revert(h, at))
        expect(step.warning).toBeUndefined()
        break
      }
      case "unrevert": {
        const dropped = model.unrevert()
        expect(take(unrevert(h)).dropped).toHaveLength(dropped)
        break
      }
      case "commit": {
        const dropped = model.commit()
        expect(take(commit(h)).dropped).toHaveLength(dropped)
        break
      }
      case "removed": {
        // A removal event, possibly before its revert event: the messages from there on are gone.
        if (model.messages.length === 0) break
        const at = pickPoint(model, action.pick, "message")
        const dropped = model.commit(at)
        expect(take(commit(h, at)).dropped).toHaveLength(dropped)
        break
      }
    }
    expect(currentList(h)).toEqual(model.current())
    const all = points(model)
    const checked = every ? all : all.filter((_, i) => i % Math.max(1, Math.floor(all.length / 6)) === 0)
    for (const point of checked) expect(listAt(h, point).list).toEqual(model.before(npos(point)))
  }
  // What the record keeps reads back to the same history.
  const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(h))), currentList(h))
  expect(read.warning).toBeUndefined()
  expect(currentList(read.history)).toEqual(model.current())
  for (const point of points(model))
    expect(listAt(read.history, point).list).toEqual(model.before(npos(point)))
}

describe("list history against a naive replay of the surviving conversation", () => {
  it("short sessions full of reverts, redo and commits", () => {
    const short = fc.tuple(actionsArb(0, 2, 8), actionsArb(10, 0, 25))
    fc.assert(
      fc.property(short, ([start, churn]) => runSession([...PLAN, ...start, ...churn])),
      { numRuns: 500 },
    )
  })

  it("long sessions (several checkpoints), then reverts, redo and commits", () => {
    const long = fc.tuple(actionsArb(0, 700, 900), actionsArb(10, 10, 30))
    fc.assert(
      fc.property(long, ([steady, churn]) =>
        runSession([...PLAN, ...steady, ...churn], false, { steps: PLAN.length + steady.length, least: 2 }),
      ),
      // A failure is reported as found: shrinking sessions this long takes minutes.
      { numRuns: 8, endOnFailure: true },
    )
  })
})
