import { describe, expect, test } from "vitest"
import {
  ARG_DESCRIPTIONS,
  commandReplyText,
  compactionContextText,
  isPluginText,
  MARKER,
  noticesText,
  preludeText,
  reminderText,
  TOOL_DESCRIPTION,
} from "../src/core/prompts.ts"
import { OP_NAMES, type TodoList } from "../src/core/types.ts"

const LIST: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "completed" },
      { text: "Add tests", status: "in_progress" },
      { text: "Deploy", status: "blocked", blocker: "waiting on credentials" },
    ],
  },
  {
    name: "Docs",
    tasks: [
      { text: "Write README", status: "pending" },
      { text: "Old notes", status: "abandoned" },
    ],
  },
]

const COMPACT = [
  "Build (1/3)",
  "  [x] Write parser",
  "  [>] Add tests",
  "  [!] Deploy (blocked: waiting on credentials)",
  "Docs (1/2)",
  "  [ ] Write README",
  "  [-] Old notes",
].join("\n")

const EDITS = { lines: ['done "Write parser"', 'removed "Old idea"'], removed: ["Old idea"], omitted: 0 }

const ALL_INJECTED: Record<string, string> = {
  preferred: preludeText("preferred")!,
  always: preludeText("always")!,
  nudge: noticesText({ nudge: 12 }, LIST)!,
  reminder: reminderText(LIST),
  resume: noticesText({ resumed: true }, LIST)!,
  postCompaction: noticesText({ compacted: true }, LIST)!,
  compactionContext: compactionContextText(LIST),
  userEdit: noticesText({ edits: EDITS }, LIST)!,
  commandChanged: commandReplyText({ lines: ['done "Write parser"'], list: LIST }),
  commandShown: commandReplyText({ shown: "the todo list" }),
  commandError: commandReplyText({ error: 'No task "Foo".' }),
  combined: noticesText({ resumed: true, compacted: true, edits: EDITS, nudge: 12 }, LIST)!,
}

describe("tool description", () => {
  test("stays under the length budget", () => {
    expect(TOOL_DESCRIPTION.length).toBeLessThan(1100)
  })

  test("names every op and the fields each takes", () => {
    for (const op of OP_NAMES) expect(TOOL_DESCRIPTION).toMatch(new RegExp(`^- ${op}\\b`, "m"))
    expect(TOOL_DESCRIPTION).toContain("init list:[{phase,items:[text]}]")
    expect(TOOL_DESCRIPTION).toContain("block task|phase reason?")
    expect(TOOL_DESCRIPTION).toContain("append phase items")
    expect(TOOL_DESCRIPTION).toContain("ops:[{op,...},...] applies all or nothing")
  })

  test("states the addressing and working rules", () => {
    expect(TOOL_DESCRIPTION).toContain("exact text")
    expect(TOOL_DESCRIPTION).toContain("never by ids")
    expect(TOOL_DESCRIPTION).toContain("One task is in progress at a time")
    expect(TOOL_DESCRIPTION).toContain("starts automatically")
    expect(TOOL_DESCRIPTION).toContain("Mark each task done as soon as it is finished")
    expect(TOOL_DESCRIPTION).toContain("Block a task with a reason")
  })

  test("argument descriptions cover the fields the tool description does not explain, and stay short", () => {
    expect(Object.keys(ARG_DESCRIPTIONS).sort()).toEqual(["list", "ops", "reason"])
    for (const text of Object.values(ARG_DESCRIPTIONS)) expect(text.length).toBeLessThanOrEqual(60)
    for (const op of OP_NAMES) expect(TOOL_DESCRIPTION).toContain(`- ${op} `.trimEnd())
    for (const field of ["task", "phase", "items", "ops:[{op,...}"]) expect(TOOL_DESCRIPTION).toContain(field)
  })
})
