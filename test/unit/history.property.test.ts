// The list history against a naive model of the conversation: random sessions of todo calls at parts of
// messages, user edits, new messages, reverts (at messages, at parts, at unknown ids), redo, commits and
// removals seen before their revert must always give, before every point of the surviving conversation,
// the list a plain replay of (position, list) pairs gives. The run's seed replays it (TEST_SEED).

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  currentList,
  historyFrom,
  type ListHistory,
  listAt,
  listFingerprint,
  type Stepped,
} from "../../src/core/history/history.ts"
import { recordCall, recordEdit, settleEdit } from "../../src/core/history/placement.ts"
import { commit, revert, unrevert } from "../../src/core/history/revert.ts"
import { decodeHistory, encodeHistory } from "../../src/core/history/stored.ts"
import {
  type Action,
  actionsArb,
  type Happened,
  Naive,
  npos,
  PLAN,
  type Player,
  PROPERTY_TIMEOUT_MS,
  playSession,
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
  const tell = (happened: Happened) => {
    switch (happened.kind) {
      case "message":
        if (happened.committed) take(commit(h))
        break
      case "call":
        if (happened.list === undefined) break
        expect(
          take(
            recordCall(
              h,
              { message: happened.message, part: happened.part, callID: `call-${happened.part}` },
              happened.list,
            ),
          ).warning,
        ).toBeUndefined()
        break
      case "edit": {
        if (happened.list === undefined) break
        const { after, ops } = happened
        take(recordEdit(h, after === undefined ? { ops } : { after, ops }, happened.list))
        break
      }
      case "settle":
        expect(take(settleEdit(h, happened.id, listFingerprint(happened.list))).warning).toBeUndefined()
        break
      case "revert":
        expect(take(revert(h, happened.at)).warning).toBeUndefined()
        break
      case "unrevert":
        expect(take(unrevert(h)).dropped).toHaveLength(happened.dropped)
        break
      case "commit":
        expect(take(commit(h)).dropped).toHaveLength(happened.dropped)
        break
      case "removed":
        expect(take(commit(h, happened.at)).dropped).toHaveLength(happened.dropped)
        break
    }
  }
  const player: Player = {
    before(step) {
      if (step === spansAfter?.steps) expect(h.spans.length).toBeGreaterThanOrEqual(spansAfter.least)
    },
    tell,
    after() {
      expect(currentList(h)).toEqual(model.current())
      const all = points(model)
      const checked = every ? all : all.filter((_, i) => i % Math.max(1, Math.floor(all.length / 6)) === 0)
      for (const point of checked) expect(listAt(h, point).list).toEqual(model.before(npos(point)))
    },
  }
  playSession(model, actions, player, { unknownReverts: true, removals: true })
  // What the record keeps reads back to the same history.
  const read = decodeHistory(JSON.parse(JSON.stringify(encodeHistory(h))), currentList(h))
  expect(read.warning).toBeUndefined()
  expect(currentList(read.history)).toEqual(model.current())
  for (const point of points(model))
    expect(listAt(read.history, point).list).toEqual(model.before(npos(point)))
}

describe("list history against a naive replay of the surviving conversation", () => {
  it(
    "short sessions full of reverts, redo and commits",
    () => {
      const short = fc.tuple(actionsArb(0, 2, 8), actionsArb(10, 0, 25))
      fc.assert(
        fc.property(short, ([start, churn]) => runSession([...PLAN, ...start, ...churn])),
        { numRuns: 250 },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )

  it(
    "long sessions (several checkpoints), then reverts, redo and commits",
    () => {
      const long = fc.tuple(actionsArb(0, 700, 900), actionsArb(10, 10, 30))
      fc.assert(
        fc.property(long, ([steady, churn]) =>
          runSession([...PLAN, ...steady, ...churn], false, { steps: PLAN.length + steady.length, least: 2 }),
        ),
        // A failure is reported as found: shrinking sessions this long takes minutes.
        { numRuns: 8, endOnFailure: true },
      )
    },
    PROPERTY_TIMEOUT_MS,
  )
})
