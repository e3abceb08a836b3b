// Random sessions of valid and invalid calls must keep the list invariants and never change a list on failure.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { execute } from "../../src/core/list/execute.ts"
import { checkList } from "../../src/core/list/queries.ts"
import { normalize } from "../../src/core/list/reducers.ts"
import type { Change, Limits, TaskStatus, TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS, OP_NAMES, STATUSES } from "../../src/core/list/types.ts"

const TIGHT: Limits = { maxTaskChars: 24, maxTasks: 12, maxPhases: 4, maxOpsPerCall: 3 }
const WORDS = [
  "Parse",
  "Test",
  "Ship",
  "Docs",
  "Keys",
  "Tag",
  "Wire",
  "Lint",
  " Parse ",
  "task-1",
  "#2",
  "3",
  "",
]
const PHASES = ["Build", "Release", "Later", "Tasks", " Build", "1"]
// Every op the tool has, plus an empty and an unknown name: the calls a model gets wrong.
const OP_CHOICES = [...OP_NAMES, "", "finish"]

/** One op, described by choices that are resolved against the list when the call is made. */
const stepArb = fc.record({
  op: fc.constantFrom(...OP_CHOICES),
  taskFrom: fc.constantFrom("list", "word", "random", "none", "none"),
  phaseFrom: fc.constantFrom("list", "word", "random", "none", "none", "none"),
  pick: fc.nat(),
  random: fc.string({ maxLength: 30 }),
  reason: fc.option(fc.string({ maxLength: 30 }), { nil: undefined }),
  items: fc.array(fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 8 })), { maxLength: 5 }),
  itemsFromList: fc.boolean(),
  phases: fc.array(fc.constantFrom(...PHASES), { minLength: 1, maxLength: 3 }),
})
type Step = typeof stepArb extends fc.Arbitrary<infer T> ? T : never

/** A call: one op, a batch of them, or arbitrary JSON a confused model might send. */
const callArb = fc.oneof(
  { weight: 6, arbitrary: stepArb.map((step) => ({ kind: "op" as const, steps: [step] })) },
  {
    weight: 2,
    arbitrary: fc
      .array(stepArb, { minLength: 1, maxLength: 4 })
      .map((steps) => ({ kind: "batch" as const, steps })),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((json) => ({ kind: "junk" as const, json })) },
)
type Call = typeof callArb extends fc.Arbitrary<infer T> ? T : never

function texts(list: TodoList): string[] {
  return list.flatMap((phase) => phase.tasks.map((task) => task.text))
}

function rawOp(step: Step, list: TodoList): Record<string, unknown> {
  const all = texts(list)
  const raw: Record<string, unknown> = {}
  if (step.op !== "") raw.op = step.op
  const task =
    step.taskFrom === "list" && all.length > 0
      ? all[step.pick % all.length]
      : step.taskFrom === "word"
        ? WORDS[step.pick % WORDS.length]
        : step.taskFrom === "random"
          ? step.random
          : undefined
  if (task !== undefined) raw.task = task
  const phase =
    step.phaseFrom === "list" && list.length > 0
      ? list[step.pick % list.length]!.name
      : step.phaseFrom === "word"
        ? PHASES[step.pick % PHASES.length]
        : step.phaseFrom === "random"
          ? step.random
          : undefined
  if (phase !== undefined) raw.phase = phase
  if (step.reason !== undefined) raw.reason = step.reason
  // rename's new text and append's task to insert after, drawn like a task.
  if (step.op === "rename")
    raw.to = step.pick % 3 === 0 ? step.random : WORDS[(step.pick >> 2) % WORDS.length]
  if (step.op === "append" && step.pick % 2 === 1 && all.length > 0)
    raw.after = all[(step.pick >> 1) % all.length]
  // Items drawn partly from the list exercise duplicate rejection.
  const items =
    step.itemsFromList && all.length > 0 ? [...step.items, all[step.pick % all.length]!] : step.items
  if (step.op === "init" && step.pick % 2 === 0)
    raw.list = step.phases.map((p, i) => ({ phase: p, items: items.slice(i) }))
  else if (step.op === "init" || step.op === "append" || (step.op === "" && step.pick % 3 !== 0))
    raw.items = items
  return raw
}

function rawCall(call: Call, list: TodoList): unknown {
  if (call.kind === "junk") return call.json
  if (call.kind === "op") return rawOp(call.steps[0]!, list)
  return { ops: call.steps.map((step) => rawOp(step, list)) }
}

const SEED: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Parse", status: "completed" },
      { text: "Test", status: "in_progress" },
      { text: "Wire", status: "pending" },
    ],
  },
  {
    name: "Release",
    tasks: [
      { text: "Keys", status: "blocked", blocker: "ops" },
      { text: "Docs", status: "abandoned" },
      { text: "Tag", status: "pending" },
    ],
  },
]

function statusOf(list: TodoList): Map<string, TaskStatus> {
  const map = new Map<string, TaskStatus>()
  for (const phase of list) for (const task of phase.tasks) map.set(task.text, task.status)
  return map
}

function checkInvariants(list: TodoList, limits: Limits): void {
  const all = list.flatMap((phase) => phase.tasks)
  const running = all.filter((task) => task.status === "in_progress").length
  expect(running).toBeLessThanOrEqual(1)
  expect(new Set(all.map((task) => task.text)).size).toBe(all.length)
  expect(checkList(list, limits)).toBeUndefined()
  if (all.some((task) => task.status === "pending")) expect(running).toBe(1)
  for (const task of all)
    if (task.status !== "blocked" && task.status !== "abandoned") expect("blocker" in task).toBe(false)
}

/**
 * Replays the changes over the statuses of `before`: each change must start from the status the task had
 * at that point, auto changes only move tasks between pending and in progress (so never touch a closed or
 * blocked task), and a closed task no op touched ends the call as it started.
 */
function checkAutoChanges(before: TodoList, after: TodoList, changes: readonly Change[]): void {
  const was = statusOf(before)
  const current = new Map(was)
  const touched = new Set<string>()
  let replaced = false
  // init's change counts its tasks without naming them, and every one starts pending: a task no change
  // has named since an init is one of init's.
  const statusNow = (text: string) => current.get(text) ?? (replaced ? "pending" : undefined)
  for (const change of changes) {
    if (change.kind === "init") {
      // Every task after init is new, even one that reuses an old text.
      current.clear()
      replaced = true
    } else if (change.kind === "removed") {
      for (const text of change.tasks) {
        current.delete(text)
        touched.add(text)
      }
    } else if (change.kind === "added") {
      for (const text of change.tasks) current.set(text, "pending")
    } else if (change.kind === "renamed") {
      if (change.what === "task") {
        const status = statusNow(change.from)
        expect(status).toBeDefined()
        current.delete(change.from)
        current.set(change.to, status!)
        if (was.has(change.from)) {
          was.set(change.to, was.get(change.from)!)
          was.delete(change.from)
        }
        if (touched.has(change.from)) touched.add(change.to)
      }
    } else if (change.kind === "status") {
      expect(statusNow(change.task)).toBe(change.from)
      if (change.auto !== undefined) {
        expect(["pending", "in_progress"]).toContain(change.from)
        expect(["pending", "in_progress"]).toContain(change.to)
      } else touched.add(change.task)
      current.set(change.task, change.to)
    }
  }
  if (replaced) return
  const now = statusOf(after)
  for (const [text, status] of was)
    if ((status === "completed" || status === "abandoned") && !touched.has(text))
      expect(now.get(text)).toBe(status)
}

/** Auto-start runs once per call, after every op: nothing an op did comes after a promotion (a start's demotion is the op's). */
function checkOneAutoStart(changes: readonly Change[]): void {
  const first = changes.findIndex((c) => c.kind === "status" && c.auto === "promoted")
  if (first < 0) return
  for (const change of changes.slice(first))
    expect(change.kind === "status" && change.auto !== undefined).toBe(true)
}

/** A rename keeps every task and phase where it was, with its status and reason: only texts change. */
function checkRenameKeepsShape(before: TodoList, after: TodoList): void {
  const shape = (list: TodoList) =>
    list.map((phase) => phase.tasks.map((task) => [task.status, task.blocker ?? null]))
  expect(shape(after)).toEqual(shape(before))
}

function runSession(start: TodoList, calls: readonly Call[], limits: Limits): void {
  let list = start
  for (const call of calls) {
    const before = list
    const snapshot = structuredClone(list)
    const raw = rawCall(call, list)
    const result = execute(list, raw, limits)
    // Success or not, the input is never mutated.
    expect(before).toEqual(snapshot)
    if (!result.ok) {
      expect(result.list).toBe(before)
      expect(result.error.length).toBeGreaterThan(0)
      continue
    }
    checkAutoChanges(before, result.list, result.changes)
    checkInvariants(result.list, limits)
    checkOneAutoStart(result.changes)
    if (call.kind !== "junk" && call.steps.every((step) => step.op === "rename"))
      checkRenameKeepsShape(before, result.list)
    list = result.list
  }
}

describe("engine properties", () => {
  it("random sessions from a seeded list keep every invariant", () => {
    fc.assert(
      fc.property(fc.array(callArb, { maxLength: 25 }), (calls) => runSession(SEED, calls, DEFAULT_LIMITS)),
      { numRuns: 300 },
    )
  })

  it("random sessions from an empty list under tight limits keep every invariant", () => {
    fc.assert(
      fc.property(fc.array(callArb, { maxLength: 25 }), (calls) => runSession([], calls, TIGHT)),
      { numRuns: 300 },
    )
  })

  it("the model knows a task init made when a later op of the same batch renames it", () => {
    const step: Step = {
      op: "",
      taskFrom: "none",
      phaseFrom: "none",
      pick: 0,
      random: "",
      reason: undefined,
      items: [],
      itemsFromList: false,
      phases: ["Build"],
    }
    const call: Call = {
      kind: "batch",
      steps: [
        { ...step, op: "init", itemsFromList: true, pick: 2 },
        { ...step, op: "rename", taskFrom: "list", pick: 2 },
      ],
    }
    expect(rawCall(call, SEED)).toEqual({
      ops: [
        { op: "init", list: [{ phase: "Build", items: ["Wire"] }] },
        { op: "rename", task: "Wire", to: "Parse" },
      ],
    })
    runSession(SEED, [call], DEFAULT_LIMITS)
  })

  it("sessions are not vacuous: calls both succeed and fail", () => {
    let successes = 0
    let failures = 0
    fc.assert(
      fc.property(fc.array(callArb, { minLength: 5, maxLength: 15 }), (calls) => {
        let list = SEED
        for (const call of calls) {
          const result = execute(list, rawCall(call, list))
          if (result.ok) successes++
          else failures++
          list = result.list
        }
      }),
      { numRuns: 100 },
    )
    expect(successes).toBeGreaterThan(100)
    expect(failures).toBeGreaterThan(100)
  })

  it("normalize leaves blocked and closed tasks exactly as they were", () => {
    const taskArb = fc.record({ status: fc.constantFrom(...STATUSES), blocked: fc.boolean() })
    fc.assert(
      fc.property(fc.array(fc.array(taskArb, { maxLength: 5 }), { maxLength: 4 }), (shape) => {
        let n = 0
        const list: TodoList = shape.map((tasks, p) => ({
          name: `P${p}`,
          tasks: tasks.map(({ status, blocked }) =>
            status === "blocked" && blocked
              ? { text: `t${n++}`, status, blocker: "why" }
              : { text: `t${n++}`, status },
          ),
        }))
        const snapshot = structuredClone(list)
        const { list: out, changes } = normalize(list)
        expect(list).toEqual(snapshot)
        const before = list.flatMap((phase) => phase.tasks)
        const after = out.flatMap((phase) => phase.tasks)
        expect(after.map((task) => task.text)).toEqual(before.map((task) => task.text))
        before.forEach((task, i) => {
          if (task.status !== "pending" && task.status !== "in_progress") expect(after[i]).toEqual(task)
        })
        const running = after.filter((task) => task.status === "in_progress").length
        expect(running).toBe(
          after.some((task) => task.status === "pending" || task.status === "in_progress") ? 1 : 0,
        )
        for (const change of changes) expect(change.kind === "status" && change.auto !== undefined).toBe(true)
        if (changes.length === 0) expect(out).toBe(list)
      }),
      { numRuns: 300 },
    )
  })
})
