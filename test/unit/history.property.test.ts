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
  type Point,
  recordCall,
  recordEdit,
  revert,
  type Stepped,
  settleEdit,
  unrevert,
} from "../../src/core/history/history.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import type { Op, TodoList } from "../../src/core/list/types.ts"

// ---------------------------------------------------------------------------------------------------------
// The naive model: every recorded state with its position, in order; a revert keeps the ops of its edits.

/** [message, 0 before its parts | 1 at a part | 2 after its parts, part] */
type NPos = readonly [string, 0 | 1 | 2, string]

const cmp = (a: NPos, b: NPos): number => {
  if (a[0] !== b[0]) return a[0] < b[0] ? -1 : 1
  if (a[1] !== b[1]) return a[1] - b[1]
  return a[2] === b[2] ? 0 : a[2] < b[2] ? -1 : 1
}
const npos = (p: Point): NPos => (p.part === undefined ? [p.message, 0, ""] : [p.message, 1, p.part])

interface Message {
  readonly id: string
  readonly parts: string[]
}

class Naive {
  /** `edit`: a user's edit (a call otherwise), which a /todo command's message can settle. */
  pairs: { pos: NPos; list: TodoList; edit: boolean }[] = []
  rev: { at: Point; edits: (readonly Op[])[] } | undefined
  messages: Message[] = []
  private minted = 0

  mint(prefix: string): string {
    this.minted++
    return `${prefix}_${String(this.minted).padStart(6, "0")}`
  }
  newest(): TodoList {
    return this.pairs.at(-1)?.list ?? []
  }
  before(pos: NPos): TodoList {
    let list: TodoList = []
    for (const pair of this.pairs) if (cmp(pair.pos, pos) < 0) list = pair.list
    return list
  }
  push(pos: NPos, list: TodoList, edit = true): void {
    if (JSON.stringify(list) === JSON.stringify(this.newest())) return
    const last = this.pairs.at(-1)?.pos
    this.pairs.push({ pos: last !== undefined && cmp(pos, last) < 0 ? last : pos, list, edit })
  }
  /** A command's message `id`: the newest change moves to it when it is an edit that left `list`. */
  settle(id: string, list: TodoList): void {
    const last = this.pairs.at(-1)
    if (last?.edit && JSON.stringify(last.list) === JSON.stringify(list) && cmp(last.pos, [id, 0, ""]) < 0)
      this.pairs[this.pairs.length - 1] = { ...last, pos: [id, 0, ""] }
  }
  reapply(list: TodoList, edits: readonly (readonly Op[])[]): { list: TodoList; dropped: number } {
    let dropped = 0
    for (const ops of edits) {
      const run = executeOps(list, ops)
      if (run.ok) list = run.list
      else dropped++
    }
    return { list, dropped }
  }
  current(): TodoList {
    return this.rev ? this.reapply(this.before(npos(this.rev.at)), this.rev.edits).list : this.newest()
  }
  lastPos(): NPos {
    return this.pairs.at(-1)?.pos ?? ["", 2, ""]
  }
  /** The host removes the messages from `at` on (and, inside a message, its parts from the part on). */
  removeFrom(at: Point): void {
    const kept: Message[] = []
    for (const m of this.messages) {
      if (m.id < at.message) kept.push(m)
      else if (m.id === at.message && at.part !== undefined)
        kept.push({ id: m.id, parts: m.parts.filter((p) => p < at.part!) })
    }
    this.messages = kept
  }
  commit(removed?: Point): number {
    let at = this.rev?.at
    if (removed !== undefined && (at === undefined || cmp(npos(removed), npos(at)) < 0)) at = removed
    if (at === undefined) return 0
    const cut = npos(at)
    this.pairs = this.pairs.filter((p) => cmp(p.pos, cut) < 0)
    this.removeFrom(at)
    let list = this.newest()
    let dropped = 0
    for (const ops of this.rev?.edits ?? []) {
      const run = executeOps(list, ops)
      if (!run.ok) {
        dropped++
        continue
      }
      list = run.list
      this.push(cut, list)
    }
    this.rev = undefined
    return dropped
  }
  unrevert(): number {
    if (!this.rev) return 0
    let list = this.newest()
    let dropped = 0
    for (const ops of this.rev.edits) {
      const run = executeOps(list, ops)
      if (!run.ok) {
        dropped++
        continue
      }
      list = run.list
      this.push(this.lastPos(), list)
    }
    this.rev = undefined
    return dropped
  }
}

// ---------------------------------------------------------------------------------------------------------
// Random sessions

const TASKS = ["a", "b", "c", "d", "e", "f"]
const PHASES = ["P", "Q", "R"]
const task = fc.constantFrom(...TASKS)
/** An op whose task is picked from the list it will run on (a random text would mostly miss). */
type OpTemplate = (list: TodoList) => Op
const targeted = (op: "done" | "start" | "drop" | "block" | "unblock" | "rm") =>
  fc.nat().map((pick): OpTemplate => {
    const make = (list: TodoList): Op => {
      const texts = list.flatMap((phase) => phase.tasks.map((t) => t.text))
      const text = texts.length === 0 ? TASKS[pick % TASKS.length]! : texts[pick % texts.length]!
      const target = { kind: "task" as const, text }
      return op === "block" ? { op, target, reason: pick % 2 === 0 ? "waiting" : "review" } : { op, target }
    }
    return Object.assign(make, { [fc.toStringMethod]: () => `${op}(task #${pick})` })
  })
const fixed = (arb: fc.Arbitrary<Op>) =>
  arb.map((op): OpTemplate => Object.assign(() => op, { [fc.toStringMethod]: () => JSON.stringify(op) }))
const opArb: fc.Arbitrary<OpTemplate> = fc.oneof(
  { weight: 3, arbitrary: targeted("done") },
  { weight: 1, arbitrary: targeted("start") },
  { weight: 1, arbitrary: targeted("drop") },
  { weight: 1, arbitrary: targeted("block") },
  { weight: 1, arbitrary: targeted("unblock") },
  { weight: 1, arbitrary: targeted("rm") },
  {
    weight: 2,
    arbitrary: fixed(
      fc.record({
        op: fc.constant("append" as const),
        phase: fc.constantFrom(...PHASES),
        items: fc.uniqueArray(task, { minLength: 1, maxLength: 2 }),
      }),
    ),
  },
  {
    weight: 1,
    arbitrary: fixed(
      fc.record({
        op: fc.constant("init" as const),
        list: fc.uniqueArray(
          fc.record({
            phase: fc.constantFrom(...PHASES),
            items: fc.uniqueArray(task, { minLength: 1, maxLength: 3 }),
          }),
          { minLength: 1, maxLength: 2, selector: (s) => s.phase },
        ),
      }),
    ),
  },
)
/** Ops of one call or edit, each made against the list the ones before it left. */
function opsFor(list: TodoList, templates: readonly OpTemplate[]): Op[] {
  const ops: Op[] = []
  let current = list
  for (const template of templates) {
    const op = template(current)
    ops.push(op)
    const run = executeOps(current, [op])
    if (run.ok) current = run.list
  }
  return ops
}
const opsArb = fc.array(opArb, { minLength: 1, maxLength: 2 })

type Action =
  | { readonly kind: "message" }
  | { readonly kind: "part" }
  | { readonly kind: "call"; readonly ops: readonly OpTemplate[] }
  | { readonly kind: "edit"; readonly ops: readonly OpTemplate[] }
  /** A /todo command: an edit, then the command's own message, minted after it. */
  | { readonly kind: "command"; readonly ops: readonly OpTemplate[] }
  | { readonly kind: "revert"; readonly pick: number; readonly at: "message" | "part" | "unknown" }
  | { readonly kind: "unrevert" }
  | { readonly kind: "commit" }
  | { readonly kind: "removed"; readonly pick: number }

/** Sessions; `churn` (an integer) weighs reverts, redo and commits against calls and edits. */
function actionsArb(churn: number, minLength: number, maxLength: number): fc.Arbitrary<Action[]> {
  const steady = [
    { weight: 15, arbitrary: fc.constant<Action>({ kind: "message" }) },
    { weight: 5, arbitrary: fc.constant<Action>({ kind: "part" }) },
    { weight: 40, arbitrary: opsArb.map((ops): Action => ({ kind: "call", ops })) },
    { weight: 15, arbitrary: opsArb.map((ops): Action => ({ kind: "edit", ops })) },
    { weight: 5, arbitrary: opsArb.map((ops): Action => ({ kind: "command", ops })) },
  ]
  const at = fc.constantFrom("message" as const, "part" as const, "unknown" as const)
  const churning = [
    { weight: 2 * churn, arbitrary: fc.record({ kind: fc.constant("revert" as const), pick: fc.nat(), at }) },
    { weight: churn, arbitrary: fc.constant<Action>({ kind: "unrevert" }) },
    { weight: churn, arbitrary: fc.constant<Action>({ kind: "commit" }) },
    { weight: churn, arbitrary: fc.record({ kind: fc.constant("removed" as const), pick: fc.nat() }) },
  ]
  const action = fc.oneof(...steady, ...(churn > 0 ? churning : []))
  // Undo, an edit, redo (or a prompt): the edit made while reverted is made again on the newest list, or dropped.
  const undoEditRedo = fc
    .tuple(fc.nat(), fc.constantFrom("message" as const, "part" as const), opsArb, fc.boolean())
    .map(([pick, at, ops, redo]): Action[] => [
      { kind: "revert", pick, at },
      { kind: "edit", ops },
      redo ? { kind: "unrevert" } : { kind: "message" },
    ])
  const group =
    churn > 0
      ? fc.oneof(
          { weight: 60, arbitrary: action.map((a) => [a]) },
          { weight: churn, arbitrary: undoEditRedo },
        )
      : action.map((a) => [a])
  return fc.array(group, { minLength, maxLength }).map((groups) => groups.flat())
}

/** A session starts with a plan, so undo has something to go back over. */
const PLAN: readonly Action[] = [
  { kind: "message" },
  {
    kind: "call",
    ops: [
      () => ({
        op: "init",
        list: [
          { phase: "P", items: ["a", "b", "c"] },
          { phase: "Q", items: ["d", "e"] },
        ],
      }),
    ],
  },
]

/** Every point of the surviving conversation, and one past its end. */
function points(model: Naive): Point[] {
  const all: Point[] = [{ message: "msg_999999" }]
  for (const m of model.messages) {
    all.push({ message: m.id })
    for (const part of m.parts) all.push({ message: m.id, part })
    all.push({ message: `${m.id}~` })
  }
  return all
}

function pickPoint(model: Naive, pick: number, at: "message" | "part" | "unknown"): Point {
  const messages = model.messages
  if (messages.length === 0 || at === "unknown")
    return { message: `msg_${String(pick % 50).padStart(6, "0")}5` }
  // The first message holds the plan: going back before it is covered by unknown ids and removals.
  const m =
    messages.length > 1 && at !== "part"
      ? messages[1 + (pick % (messages.length - 1))]!
      : messages[pick % messages.length]!
  if (at === "part" && m.parts.length > 0) return { message: m.id, part: m.parts[pick % m.parts.length]! }
  return { message: m.id }
}

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
