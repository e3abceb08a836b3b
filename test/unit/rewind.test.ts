// The host's undo, redo and commit as the session facts follow them (core/history/rewind.ts): rules one by one, then
// properties over random event orders, the way a loaded host may deliver them.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  COMMANDS_MAX,
  comparePoints,
  editAnchor,
  INITIAL_REWIND,
  type Point,
  type RewindAction,
  type RewindEvent,
  type RewindFacts,
  stepRewind,
  TODO_PARTS_MAX,
  todoPartOf,
  undoToConfirm,
} from "../../src/core/history/rewind.ts"

function run(events: readonly RewindEvent[], facts: RewindFacts = INITIAL_REWIND) {
  const actions: RewindAction[] = []
  for (const event of events) {
    const step = stepRewind(facts, event)
    facts = step.facts
    actions.push(...step.actions)
  }
  return { facts, actions }
}

const msg = (id: string, user = false): RewindEvent => ({ type: "message", messageID: id, user })
const revert = (point: Point | null): RewindEvent => ({ type: "revert", point })
const removed = (message: string, part?: string): RewindEvent => ({
  type: "removed",
  point: part === undefined ? { message } : { message, part },
})

describe("following the host", () => {
  it("revert, then redo: the point is followed, then cleared", () => {
    const { facts, actions } = run([msg("m1", true), msg("m2"), revert({ message: "m1" }), revert(null)])
    expect(actions).toEqual([{ type: "revert", point: { message: "m1" } }, { type: "unrevert" }])
    expect(facts.revert).toBeNull()
  })

  it("the same point sent again (the host resends the session) does nothing", () => {
    const { actions } = run([
      revert({ message: "m1" }),
      revert({ message: "m1" }),
      revert(null),
      revert(null),
    ])
    expect(actions).toEqual([{ type: "revert", point: { message: "m1" } }, { type: "unrevert" }])
  })

  it("two reverts in a row move the point", () => {
    const { facts, actions } = run([revert({ message: "m3" }), revert({ message: "m1" })])
    expect(actions.at(-1)).toEqual({ type: "revert", point: { message: "m1" } })
    expect(facts.revert).toEqual({ message: "m1" })
  })

  it("the first removal commits at the revert point; the rest of the removals and the clearing do nothing", () => {
    const { facts, actions } = run([
      msg("m4"),
      revert({ message: "m3", part: "p2" }),
      removed("m4"),
      removed("m3", "p2"),
      removed("m3", "p3"),
      revert(null),
    ])
    expect(actions).toEqual([
      { type: "revert", point: { message: "m3", part: "p2" } },
      { type: "commit", point: { message: "m3", part: "p2" } },
    ])
    expect(facts.revert).toBeNull()
    // The newest message seen was removed: the next edit asks the host.
    expect(facts.newest).toBeNull()
  })

  it("a prompt while reverted commits before it counts (the hooks may run before the removals arrive)", () => {
    const { facts, actions } = run([msg("m2"), revert({ message: "m2" }), msg("m5", true), removed("m2")])
    expect(actions).toEqual([
      { type: "revert", point: { message: "m2" } },
      { type: "commit", point: { message: "m2" } },
    ])
    expect(facts.newest).toBe("m5")
  })

  it("a prompt commits the revert the record holds when this process never heard of it, then its command settles", () => {
    const recorded = { message: "m2" }
    const command: RewindEvent = { type: "command", made: "f1", mark: "c1" }
    const message: RewindEvent = { type: "message", messageID: "m5", user: true, command: "c1", recorded }
    const { facts, actions } = run([command, message])
    expect(actions).toEqual([
      { type: "commit", point: recorded },
      { type: "settle", message: "m5", made: "f1", mark: "c1" },
    ])
    expect(facts.committed).toEqual(recorded)
    // An assistant message commits nothing, whatever the record holds.
    expect(run([{ type: "message", messageID: "m6", user: false, recorded }]).actions).toEqual([])
  })

  it("an assistant message while reverted commits nothing", () => {
    const { actions } = run([revert({ message: "m2" }), msg("m1")])
    expect(actions).toEqual([{ type: "revert", point: { message: "m2" } }])
  })

  it("a removal before the revert point commits there", () => {
    const { actions } = run([revert({ message: "m3" }), removed("m2")])
    expect(actions.at(-1)).toEqual({ type: "commit", point: { message: "m2" } })
  })

  it("a removal with no revert known commits at the removed message, once", () => {
    const { actions } = run([msg("m3"), removed("m2"), removed("m3")])
    expect(actions).toEqual([{ type: "commit", point: { message: "m2" } }])
  })

  it("a late removal of a committed message does not cut what came after the commit", () => {
    const { actions } = run([revert({ message: "m2" }), msg("m5", true), removed("m3")])
    expect(actions.filter((a) => a.type === "commit")).toHaveLength(1)
  })
})

describe("a prompt after an undo", () => {
  it("asks the host whether the undo still stands when one is heard of or recorded, and only then", () => {
    const seen = run([msg("m1", true), msg("m2")]).facts
    expect(undoToConfirm(seen, undefined)).toBe(false)
    expect(undoToConfirm(seen, { message: "m1" })).toBe(true)
    const reverted = run([revert({ message: "m1" })], seen).facts
    expect(undoToConfirm(reverted, undefined)).toBe(true)
    expect(undoToConfirm(run([revert(null)], reverted).facts, undefined)).toBe(false)
  })
})

describe("anchors", () => {
  it("a user edit goes at the revert point while reverted, else after the newest message seen", () => {
    expect(editAnchor(INITIAL_REWIND)).toBeUndefined()
    const seen = run([msg("m1", true), msg("m2"), msg("m1")]).facts
    expect(editAnchor(seen)).toEqual({ kind: "after", message: "m2" })
    const reverted = run([revert({ message: "m1" })], seen).facts
    expect(editAnchor(reverted)).toEqual({ kind: "reverted", point: { message: "m1" } })
  })

  it("a todo call's part is found by its call id; the memory of parts is bounded", () => {
    const parts = Array.from(
      { length: TODO_PARTS_MAX + 5 },
      (_, i): RewindEvent => ({ type: "todo.part", callID: `c${i}`, messageID: "m1", partID: `p${i}` }),
    )
    const { facts } = run(parts)
    expect(facts.todoParts).toHaveLength(TODO_PARTS_MAX)
    expect(todoPartOf(facts, `c${TODO_PARTS_MAX + 4}`)?.partID).toBe(`p${TODO_PARTS_MAX + 4}`)
    expect(todoPartOf(facts, "c0")).toBeUndefined()
    // The same part announced again (pending, running, completed) keeps the facts as they are.
    const again = stepRewind(facts, parts.at(-1)!)
    expect(again.facts).toBe(facts)
  })

  it("points order by message, then part; a message's own point comes before its parts", () => {
    expect(comparePoints({ message: "m1" }, { message: "m1", part: "p0" })).toBeLessThan(0)
    expect(comparePoints({ message: "m1", part: "p9" }, { message: "m2" })).toBeLessThan(0)
    expect(comparePoints({ message: "m2", part: "p1" }, { message: "m2", part: "p1" })).toBe(0)
  })
})

// ---- properties ---------------------------------------------------------------------------------------

const id = fc.constantFrom("m1", "m2", "m3", "m4", "m5")
const point = fc
  .tuple(id, fc.option(fc.constantFrom("p1", "p2"), { nil: undefined }))
  .map(([message, part]): Point => (part === undefined ? { message } : { message, part }))
const event: fc.Arbitrary<RewindEvent> = fc.oneof(
  point.map((p) => revert(p)),
  fc.constant(revert(null)),
  point.map((p): RewindEvent => ({ type: "removed", point: p })),
  fc.tuple(id, fc.boolean()).map(([m, user]) => msg(m, user)),
  fc
    .tuple(fc.constantFrom("c1", "c2", "c3"), id, fc.constantFrom("p1", "p2"))
    .map(([callID, messageID, partID]): RewindEvent => ({ type: "todo.part", callID, messageID, partID })),
)

describe("properties", () => {
  it("the facts stay plain, bounded data, and every step answers", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const { facts } = run(events)
        expect(JSON.parse(JSON.stringify(facts))).toStrictEqual(facts)
        expect(facts.todoParts.length).toBeLessThanOrEqual(TODO_PARTS_MAX)
      }),
    )
  })

  it("a commit is never at or after a revert point it follows, and nothing is left reverted after it", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        let facts = INITIAL_REWIND
        for (const e of events) {
          const before = facts.revert
          const step = stepRewind(facts, e)
          facts = step.facts
          const done = step.actions.find((a) => a.type === "commit")
          if (done?.type !== "commit") continue
          expect(facts.revert).toBeNull()
          if (before !== null) expect(comparePoints(done.point, before)).toBeLessThanOrEqual(0)
          else expect(e.type).toBe("removed")
        }
      }),
    )
  })

  it("an unrevert follows a revert, never a commit", () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 60 }), (events) => {
        const { actions } = run(events)
        let reverted = false
        for (const a of actions) {
          if (a.type === "unrevert") expect(reverted).toBe(true)
          reverted = a.type === "revert"
        }
      }),
    )
  })
})

describe("a /todo command's edit settles on the command's own message", () => {
  it("the next user message is the command's: its commit first, then the settle", () => {
    const { facts, actions } = run([
      msg("m1", true),
      msg("m2"),
      revert({ message: "m1" }),
      { type: "command", made: "f1" },
      msg("m3"),
      msg("m4", true),
    ])
    expect(actions).toEqual([
      { type: "revert", point: { message: "m1" } },
      { type: "commit", point: { message: "m1" } },
      { type: "settle", message: "m4", made: "f1" },
    ])
    expect(facts.commands).toEqual([])
  })

  it("a command that changed nothing settles nothing; without marks, commands settle in the order they ran", () => {
    expect(run([{ type: "command", made: null }, msg("m1", true)]).actions).toEqual([])
    const { actions, facts } = run([
      { type: "command", made: "f1" },
      { type: "command", made: "f2" },
      msg("m1", true),
      msg("m2", true),
    ])
    expect(actions).toEqual([
      { type: "settle", message: "m1", made: "f1" },
      { type: "settle", message: "m2", made: "f2" },
    ])
    expect(facts.commands).toEqual([])
  })

  it("two commands at once: each settles on the message that carries its mark, in whatever order they come", () => {
    const { actions, facts } = run([
      { type: "command", made: "f1", mark: "a" },
      { type: "command", made: null, mark: "b" },
      { type: "command", made: "f3", mark: "c" },
      { type: "message", user: true, messageID: "m2", command: "c" },
      // A prompt of the user's own (no mark) takes no command's edit; the command that changed nothing, none.
      { type: "message", user: true, messageID: "m4" },
      { type: "message", user: true, messageID: "m3", command: "b" },
      { type: "message", user: true, messageID: "m1", command: "a" },
    ])
    expect(actions).toEqual([
      { type: "settle", message: "m2", made: "f3", mark: "c" },
      { type: "settle", message: "m1", made: "f1", mark: "a" },
    ])
    expect(facts.commands).toEqual([])
  })

  it("waiting commands are bounded", () => {
    const many = Array.from({ length: COMMANDS_MAX + 3 }, (_, i) => ({
      type: "command" as const,
      made: `f${i}`,
      mark: `k${i}`,
    }))
    expect(run(many).facts.commands.length).toBe(COMMANDS_MAX)
  })

  it("a user message without an id ends the wait without a settle", () => {
    const { facts, actions } = run([
      { type: "command", made: "f1" },
      { type: "message", user: true },
    ])
    expect(actions).toEqual([])
    expect(facts.commands).toEqual([])
  })
})
