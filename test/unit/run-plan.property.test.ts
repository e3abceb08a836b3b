// runPlan hands every plan to the effect of its own kind, once, with the plan as parsed, and returns what that
// effect returns: the server's /todo and the TUI's typed verbs dispatch the same way.

import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type CommandPlan, parseCommand } from "../../src/core/list/command.ts"
import { type PlanEffects, runPlan } from "../../src/core/list/run-plan.ts"
import type { TodoList } from "../../src/core/list/types.ts"

const list: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "in_progress" },
      { text: "Test parser", status: "pending" },
    ],
  },
]

const LINES = [
  "show",
  "help",
  "copy",
  "edit",
  "export",
  "export notes.md --force",
  "import",
  "import notes.md",
  'done "Write parser"',
  "start Test",
  "block Test -- waiting",
  "append Ship Tag the release",
  "rename Test -- Test the parser",
  "rm Build",
]

/** A table that records which effect ran with which plan. */
function recording(): { effects: PlanEffects<string>; calls: [string, CommandPlan][] } {
  const calls: [string, CommandPlan][] = []
  const effect =
    (kind: string) =>
    (plan: CommandPlan): string => {
      calls.push([kind, plan])
      return `ran ${kind}`
    }
  const effects: PlanEffects<string> = {
    show: effect("show"),
    help: effect("help"),
    copy: effect("copy"),
    edit: effect("edit"),
    export: effect("export"),
    import: effect("import"),
    ops: effect("ops"),
  }
  return { effects, calls }
}

describe("runPlan", () => {
  it("runs exactly the effect named by the plan's kind, with the plan, and returns its result", () => {
    fc.assert(
      fc.property(fc.constantFrom(...LINES), (line) => {
        const parsed = parseCommand(line, list)
        expect(parsed.ok).toBe(true)
        if (!parsed.ok) return
        const { effects, calls } = recording()
        expect(runPlan(parsed.value, effects)).toBe(`ran ${parsed.value.kind}`)
        expect(calls).toEqual([[parsed.value.kind, parsed.value]])
      }),
    )
  })

  it("covers every verb kind the parser makes", () => {
    const kinds = new Set(
      LINES.map((line) => parseCommand(line, list)).flatMap((p) => (p.ok ? [p.value.kind] : [])),
    )
    expect([...kinds].sort()).toEqual(["copy", "edit", "export", "help", "import", "ops", "show"])
  })
})
