import { describe, expect, it } from "vitest"
import { diffLists } from "../../src/core/list/diff.ts"
import type { TodoList } from "../../src/core/list/types.ts"

const before: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Parser", status: "in_progress" },
      { text: "Tests", status: "pending" },
      { text: "Old idea", status: "pending" },
    ],
  },
  { name: "Legacy", tasks: [{ text: "Port shim", status: "pending" }] },
]

describe("diffLists", () => {
  it("reports nothing for identical lists", () => {
    expect(diffLists(before, before)).toEqual({ lines: [], removed: [], removedPhases: [] })
  })

  it("reports status changes, additions, moves and removals in list order", () => {
    const after: TodoList = [
      {
        name: "Build",
        tasks: [
          { text: "Parser", status: "completed" },
          { text: "Tests", status: "blocked", blocker: "CI down" },
        ],
      },
      {
        name: "Ship",
        tasks: [
          { text: "Port shim", status: "pending" },
          { text: "Tag", status: "pending" },
        ],
      },
    ]
    expect(diffLists(before, after)).toEqual({
      lines: [
        'removed phase "Legacy"',
        'added phase "Ship"',
        '"Parser": in progress → done',
        'blocked "Tests" ("CI down")',
        'moved "Port shim" to "Ship"',
        'added "Tag" to "Ship" (pending)',
        'removed "Old idea"',
      ],
      removed: ["Old idea"],
      removedPhases: ["Legacy"],
    })
  })

  it("names a removed phase as a phase, and its tasks as removed tasks without a line each", () => {
    const after: TodoList = [before[0]!]
    expect(diffLists(before, after)).toEqual({
      lines: ['removed phase "Legacy"'],
      removed: ["Port shim"],
      removedPhases: ["Legacy"],
    })
  })

  it("reports a changed blocker reason", () => {
    const a: TodoList = [{ name: "P", tasks: [{ text: "T", status: "blocked", blocker: "one" }] }]
    const b: TodoList = [{ name: "P", tasks: [{ text: "T", status: "blocked", blocker: "two" }] }]
    expect(diffLists(a, b).lines).toEqual(['blocked "T" ("two")'])
  })

  it("reads a task or a phase with a new text in the same place as a rename, and a drop's reason", () => {
    const after: TodoList = [
      {
        name: "Make",
        tasks: [
          { text: "Parser", status: "in_progress" },
          { text: "Tests", status: "pending" },
          { text: "Old idea", status: "pending" },
        ],
      },
      { name: "Legacy", tasks: [{ text: "Port the shim", status: "pending" }] },
    ]
    expect(diffLists(before, after)).toEqual({
      lines: ['renamed phase "Build" to "Make"', 'renamed "Port shim" to "Port the shim"'],
      removed: [],
      removedPhases: [],
    })
    const dropped: TodoList = [
      before[0]!,
      { name: "Legacy", tasks: [{ text: "Port shim", status: "abandoned", blocker: "no longer shipped" }] },
    ]
    expect(diffLists(before, dropped).lines).toEqual(['dropped "Port shim" ("no longer shipped")'])
  })
})
