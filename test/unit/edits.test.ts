// User edits made while a session is reverted (core/history/edits.ts): stored as the list they made and a
// fingerprint of the list they were made on, made again exactly on that list, and as operations elsewhere.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { editItems, isPendingEdit, pendingEdit, remake } from "../../src/core/history/edits.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { normalize } from "../../src/core/list/reducers.ts"
import { DEFAULT_LIMITS, type Op, type TodoList } from "../../src/core/list/types.ts"
import { phase, task } from "../fixtures/lists.ts"

const done = (text: string): Op => ({ op: "done", target: { kind: "task", text } })
const apply = (list: TodoList, ops: Op[]): TodoList => {
  const result = executeOps(list, ops, DEFAULT_LIMITS)
  if (!result.ok) throw new Error(result.error)
  return result.list
}

const base: TodoList = [
  phase("Build", task("Parse", "in_progress"), task("Check"), task("Ship")),
  phase("Docs", task("Write the guide")),
]
// The same plan, later: Parse done, a task appended, so the edit's fingerprint no longer fits.
const later: TodoList = apply(base, [done("Parse"), { op: "append", phase: "Build", items: ["Bench"] } as Op])

describe("an edit made by typed ops", () => {
  const ops = [done("Check")]
  const edit = pendingEdit(base, apply(base, ops), ops)

  it("gives back exactly the list the user saw on the list it was made on", () => {
    expect(remake(base, edit, DEFAULT_LIMITS)).toEqual({ list: apply(base, ops), dropped: [] })
  })

  it("runs its ops again on another list", () => {
    expect(remake(later, edit, DEFAULT_LIMITS)).toEqual({ list: apply(later, ops), dropped: [] })
  })

  it("is dropped whole, with the host's error, where its ops no longer apply", () => {
    const gone = apply(base, [{ op: "rm", target: { kind: "task", text: "Check" } } as Op])
    const made = remake(gone, edit, DEFAULT_LIMITS)
    expect(made.list).toBe(gone)
    expect(made.dropped).toHaveLength(1)
    expect(made.dropped[0]).toMatchObject({ kind: "ops", ops })
  })
})

describe("an edit that replaced the whole list (editor, import)", () => {
  const edited: TodoList = [
    phase("Docs", task("Write the guide", "blocked", "needs review")),
    phase("Build", task("Parse", "in_progress"), task("Ship"), task("Fuzz")),
  ]
  const edit = pendingEdit(base, edited)

  it("is stored as the changes it made by name", () => {
    expect(edit.o).toBeUndefined()
    expect(edit.x).toEqual(editItems(base, edited))
    expect(edit.x).toContainEqual(["-", "Check"])
    expect(edit.x).toContainEqual(["+", "Fuzz", "Build", expect.any(String), "Ship"])
    expect(edit.x).toContainEqual(["s", "Write the guide", expect.any(String), "needs review"])
  })

  it("makes those changes again on another list, keeping what the other list changed", () => {
    const made = remake(later, edit, DEFAULT_LIMITS)
    expect(made.dropped).toEqual([])
    const names = made.list.flatMap((p) => p.tasks.map((t) => `${t.text}:${t.status}`))
    expect(names).toContain("Parse:completed") // the later list's change stays
    expect(names).toContain("Bench:pending")
    expect(names).toContain("Fuzz:pending") // the edit's addition
    expect(names).not.toContain("Check:pending") // the edit's removal
    expect(made.list.find((p) => p.name === "Docs")!.tasks[0]).toMatchObject({
      status: "blocked",
      blocker: "needs review",
    })
    expect(normalize(made.list).list).toEqual(made.list)
  })

  it("names a status change whose task is gone as dropped, and makes the rest", () => {
    const statusOnly = pendingEdit(base, apply(base, [done("Ship")]))
    const withoutShip = apply(base, [{ op: "rm", target: { kind: "task", text: "Ship" } } as Op])
    const made = remake(withoutShip, statusOnly, DEFAULT_LIMITS)
    expect(made.dropped).toContainEqual({ kind: "status", task: "Ship", status: "completed" })
  })

  it("is not made at all where it would take the list over the limits", () => {
    const grown: TodoList = [
      ...base.slice(0, 1),
      phase("Docs", task("Write the guide"), task("Fuzz"), task("Lint")),
    ]
    const tight = { ...DEFAULT_LIMITS, maxTasks: 6 } // later has 5 tasks; the edit adds two
    const made = remake(later, pendingEdit(base, grown), tight)
    expect(made.list).toBe(later)
    expect(made.dropped.length).toBeGreaterThan(0)
  })
})

describe("a stored edit", () => {
  it("is told apart from anything else a record may hold", () => {
    const ops = [done("Check")]
    expect(isPendingEdit(pendingEdit(base, apply(base, ops), ops))).toBe(true)
    expect(isPendingEdit(pendingEdit(base, later))).toBe(true)
    const good = pendingEdit(base, later)
    for (const bad of [
      null,
      [],
      { ...good, b: 3 },
      { ...good, a: ["?"] },
      { ...good, o: [done("x")] }, // both forms at once
      { b: good.b, a: good.a }, // neither form
      { ...good, x: [["?", "x"]] },
    ])
      expect(isPendingEdit(bad)).toBe(false)
  })
})

describe("replacing edits (property)", () => {
  it("made again on the very list they were made on, give back exactly the list they made", () => {
    const text = fc.constantFrom("A", "B", "C", "D", "E", "F")
    const status = fc.constantFrom("pending" as const, "completed" as const, "abandoned" as const)
    const listArb = fc
      .uniqueArray(fc.tuple(text, status, fc.constantFrom("P", "Q")), { selector: (t) => t[0], maxLength: 6 })
      .map(
        (rows) =>
          normalize(
            ["P", "Q"]
              .map((name) => phase(name, ...rows.filter((r) => r[2] === name).map((r) => task(r[0], r[1]))))
              .filter((p) => p.tasks.length > 0),
          ).list,
      )
    fc.assert(
      fc.property(listArb, listArb, (before, after) => {
        expect(remake(before, pendingEdit(before, after), DEFAULT_LIMITS).list).toEqual(after)
      }),
    )
  })
})
