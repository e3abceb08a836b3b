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
  historyFrom,
  type ListHistory,
  listFingerprint,
  type Point,
} from "../../src/core/history/history.ts"
import { recordCall, recordEdit, settleEdit } from "../../src/core/history/placement.ts"
import { decodeHistory, encodeHistory } from "../../src/core/history/stored.ts"
import {
  type Action,
  actionsArb,
  Naive,
  PLAN,
  type Player,
  PROPERTY_TIMEOUT_MS,
  playSession,
} from "../fixtures/history-model.ts"

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
  const player: Player = {
    before(step) {
      if (!delivery.restart[step % delivery.restart.length]) return
      const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(stored))), currentList(stored))
      expect(read.warning).toBeUndefined()
      stored = read.history
    },
    tell(happened, step) {
      const seen = delivery.seen[step % delivery.seen.length]!
      switch (happened.kind) {
        case "message":
          // The host commits a pending undo before every prompt; the record hears of it when a process next
          // looks. A command's message settles its edit in the process that ran it, which saw the commit first.
          if (seen || happened.command) settle()
          break
        case "call":
          expect(settle().list).toEqual(happened.before)
          if (happened.list === undefined) break
          stored = recordCall(
            stored,
            { message: happened.message, part: happened.part, callID: `call-${happened.part}` },
            happened.list,
          ).history
          break
        case "edit": {
          // A user edit is made on the list the process shows, after it agreed with the host.
          expect(settle().list).toEqual(happened.before)
          if (happened.list === undefined) break
          const { after, ops } = happened
          stored = recordEdit(stored, after === undefined ? { ops } : { after, ops }, happened.list).history
          break
        }
        case "settle":
          stored = settleEdit(stored, happened.id, listFingerprint(happened.list)).history
          break
        case "revert":
        case "unrevert":
          // The process where the undo or redo happened writes it, now or (its events queued) before its next step.
          settle()
          break
        case "commit":
          if (seen) settle()
          break
        case "removed":
          // Removals come only from a prompt on the real host: covered by "message" and "commit".
          break
      }
    },
    after() {
      // A second process that read the record and asked the host shows the same list, before and after writing.
      expect(inEffect(stored, hostOf(model)).list).toEqual(model.current())
      counted++
    },
  }
  // The host reverts only to a place it holds (unknown ids are the history's own tests' concern).
  playSession(model, actions, player, { unknownReverts: false, removals: false })
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
  it(
    "short sessions full of undo, redo, edits while undone, commits, restarts and a second process",
    () => {
      const short = fc.tuple(actionsArb(0, 2, 8), actionsArb(10, 0, 25), delivery)
      fc.assert(
        fc.property(short, ([start, churn, d]) => {
          runSession([...PLAN, ...start, ...churn], d)
        }),
        { numRuns: 250 },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )
})
