// The list in effect (core/history/effect.ts) against the naive model of the conversation: random sessions of
// calls, user edits, /todo commands, undo, redo and prompts (commits), where the host's undo and redo reach the
// history late or never through the process that recorded the rest, restarts read the record back, and a
// second process computes the list from the record and the host's facts alone. Every process must show the
// model's list at every step. The run's seed replays it (TEST_SEED).

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type HostFacts, inEffect } from "../../src/core/history/effect.ts"
import {
  currentList,
  decodeHistory,
  encodeHistory,
  historyFrom,
  type ListHistory,
  listFingerprint,
  type Point,
  recordCall,
  recordEdit,
  settleEdit,
} from "../../src/core/history/history.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { type Action, actionsArb, Naive, opsFor, PLAN, pickPoint } from "../fixtures/history-model.ts"

/** What the host says now: the model's revert point and the messages it still has. */
function hostOf(model: Naive): HostFacts {
  return {
    revert: model.rev?.at ?? null,
    holds: (point: Point) => {
      const message = model.messages.find((m) => m.id === point.message)
      if (message === undefined) return false
      return point.part === undefined || message.parts.includes(point.part)
    },
  }
}

/** How the steps reach the stored history: which are seen at once, and when the record is read back. */
interface Delivery {
  /** Per step: the process that saw the host's undo or redo at once writes it (else it is noticed later). */
  readonly seen: readonly boolean[]
  /** Per step: the server restarts (reads its record back) before the step. */
  readonly restart: readonly boolean[]
}

function runSession(actions: readonly Action[], delivery: Delivery): number {
  const model = new Naive()
  let stored: ListHistory = historyFrom([])
  let counted = 0
  /** A process with the record and the host's facts now: the list it shows, and the history it writes. */
  const settle = () => {
    const effect = inEffect(stored, hostOf(model))
    expect(effect.unsure).toBeUndefined()
    stored = effect.history
    return effect
  }
  for (const [step, action] of actions.entries()) {
    if (delivery.restart[step % delivery.restart.length]) {
      const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(stored))), currentList(stored))
      expect(read.warning).toBeUndefined()
      stored = read.history
    }
    const seen = delivery.seen[step % delivery.seen.length]!
    switch (action.kind) {
      case "message":
        // The host commits a pending undo before every prompt; the record hears of it when a process next looks.
        if (model.rev) model.commit()
        model.messages.push({ id: model.mint("msg"), parts: [] })
        if (seen) settle()
        break
      case "part":
        if (!model.rev && model.messages.length > 0) model.messages.at(-1)!.parts.push(model.mint("prt"))
        break
      case "call": {
        if (model.rev) break
        if (model.messages.length === 0) model.messages.push({ id: model.mint("msg"), parts: [] })
        const message = model.messages.at(-1)!
        const part = model.mint("prt")
        message.parts.push(part)
        const list = settle().list
        expect(list).toEqual(model.newest())
        const run = executeOps(list, opsFor(list, action.ops))
        if (!run.ok) break
        model.push([message.id, 1, part], run.list, false)
        stored = recordCall(stored, { message: message.id, part, callID: `call-${part}` }, run.list).history
        break
      }
      case "edit":
      case "command": {
        // A user edit is made on the list the process shows, after it agreed with the host.
        const shown = settle().list
        expect(shown).toEqual(model.current())
        const ops = opsFor(shown, action.ops)
        const run = executeOps(shown, ops)
        const changed = run.ok && JSON.stringify(run.list) !== JSON.stringify(shown)
        if (run.ok) {
          const after = model.messages.at(-1)?.id
          if (model.rev) {
            if (changed) model.rev.edits.push(ops)
          } else model.push([after ?? "", 2, ""], run.list)
          stored = recordEdit(stored, after === undefined ? { ops } : { after, ops }, run.list).history
        }
        if (action.kind === "edit") break
        if (model.rev) model.commit()
        const id = model.mint("msg")
        model.messages.push({ id, parts: [] })
        // The command's message settles its edit in the process that ran it, which saw the commit first.
        settle()
        if (changed && run.ok) {
          model.settle(id, run.list)
          stored = settleEdit(stored, id, listFingerprint(run.list)).history
        }
        break
      }
      case "revert": {
        // The host reverts only to a place it holds (unknown ids are the history's own tests' concern).
        const at = pickPoint(model, action.pick, action.at === "unknown" ? "message" : action.at)
        model.rev = { at, edits: model.rev?.edits ?? [] }
        // The process where the undo happened writes it, now or (its events queued) before its next step.
        settle()
        break
      }
      case "unrevert":
        if (model.rev) model.unrevert()
        settle()
        break
      case "commit":
        if (model.rev) model.commit()
        if (seen) settle()
        break
      case "removed":
        // Removals come only from a prompt on the real host: covered by "message" and "commit".
        break
    }
    // A second process that read the record and asked the host shows the same list, before and after writing.
    const other = inEffect(stored, hostOf(model))
    expect(other.list).toEqual(model.current())
    counted++
  }
  const last = settle()
  expect(last.list).toEqual(model.current())
  // Agreeing again changes nothing.
  expect(inEffect(stored, hostOf(model)).changes).toEqual([])
  return counted
}

const delivery = fc.record({
  seen: fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
  restart: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
})

describe("the list in effect: the record and the host's facts now, whatever events a process saw", () => {
  it("short sessions full of undo, redo, edits while undone, commits, restarts and a second process", () => {
    const short = fc.tuple(actionsArb(0, 2, 8), actionsArb(10, 0, 25), delivery)
    fc.assert(
      fc.property(short, ([start, churn, d]) => {
        runSession([...PLAN, ...start, ...churn], d)
      }),
      { numRuns: 400 },
    )
  })
})
