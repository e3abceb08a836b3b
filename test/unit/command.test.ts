import { describe, expect, it, test } from "vitest"
import {
  COMMAND_DESCRIPTION,
  COMMAND_USAGE,
  nearestVerb,
  parseCommand,
  resolveTarget,
  TYPED_HELP,
  todoArguments,
  tokenize,
  typedError,
  unchangedText,
} from "../../src/core/list/command.ts"
import type { TodoList } from "../../src/core/list/types.ts"

const list: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "completed" },
      { text: "Write parser tests", status: "in_progress" },
      { text: "Wire CLI", status: "pending" },
    ],
  },
  { name: "Ship it", tasks: [{ text: "Tag release", status: "pending" }] },
]

describe("tokenize", () => {
  it("keeps quoted runs together and drops the quotes", () => {
    expect(tokenize(`"Ship it" tag 'the release'  now`)).toEqual(["Ship it", "tag", "the release", "now"])
  })
})

describe("resolveTarget", () => {
  it("prefers an exact match over prefixes of longer names", () => {
    expect(resolveTarget(list, "Write parser")).toEqual({
      ok: true,
      value: { kind: "task", text: "Write parser" },
    })
  })
  it("matches case-insensitively when no exact match exists", () => {
    expect(resolveTarget(list, "wire cli")).toEqual({ ok: true, value: { kind: "task", text: "Wire CLI" } })
  })
  it("takes a unique prefix", () => {
    expect(resolveTarget(list, "Tag")).toEqual({ ok: true, value: { kind: "task", text: "Tag release" } })
  })
  it("takes a unique substring, and reaches phases", () => {
    expect(resolveTarget(list, "ip i")).toEqual({ ok: true, value: { kind: "phase", name: "Ship it" } })
  })
  it("lists the candidates of an ambiguous prefix", () => {
    expect(resolveTarget(list, "Write")).toEqual({
      ok: false,
      error: '"Write" matches 2: task "Write parser", task "Write parser tests". Type more of the name.',
    })
  })
  it("says when nothing matches", () => {
    expect(resolveTarget(list, "deploy")).toEqual({
      ok: false,
      error: 'No task or phase matches "deploy". Run /todo to see the list.',
    })
  })
  it("a partial name counts only tasks the verb can change, then any task", () => {
    const some: TodoList = [
      {
        name: "Build",
        tasks: [
          { text: "Write the parser", status: "completed" },
          { text: "Test the parser", status: "pending" },
          { text: "Fix the parser crash", status: "blocked" },
        ],
      },
    ]
    expect(resolveTarget(some, "parser", undefined, "done")).toEqual({
      ok: false,
      error:
        '"parser" matches 2: task "Test the parser", task "Fix the parser crash". Type more of the name.',
    })
    expect(resolveTarget(some, "parser", undefined, "unblock")).toEqual({
      ok: true,
      value: { kind: "task", text: "Fix the parser crash" },
    })
    expect(resolveTarget(some, "parser", undefined, "block")).toEqual({
      ok: true,
      value: { kind: "task", text: "Test the parser" },
    })
    // Nothing the verb can change matches: the one done task does, and the op says it is done.
    expect(resolveTarget(some, "write", undefined, "done")).toEqual({
      ok: true,
      value: { kind: "task", text: "Write the parser" },
    })
    // Exact text is never skipped; rm takes any status.
    expect(resolveTarget(some, "Write the parser", undefined, "done").ok).toBe(true)
    expect(resolveTarget(some, "parser", undefined, "rm")).toMatchObject({ ok: false, error: /matches 3/ })
    expect(parseCommand("done parser", some)).toMatchObject({ ok: false, error: /matches 2/ })
  })
  it("ignores phases when only tasks are allowed", () => {
    expect(resolveTarget(list, "Build", { task: true, phase: false })).toEqual({
      ok: false,
      error: 'No task matches "Build". Run /todo to see the list.',
    })
  })
})

describe("parseCommand", () => {
  it("shows the list for no verb, show, view and list", () => {
    for (const input of ["", "  ", "show", "view", "list"])
      expect(parseCommand(input, list)).toEqual({ ok: true, value: { kind: "show" } })
  })
  it("maps done with a fuzzy task to a done op", () => {
    expect(parseCommand("done parser t", list)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "done",
        ops: [{ op: "done", target: { kind: "task", text: "Write parser tests" } }],
      },
    })
  })
  it("maps done, drop and rm without a name to the whole list", () => {
    for (const verb of ["done", "drop", "rm"])
      expect(parseCommand(verb, list)).toEqual({
        ok: true,
        value: { kind: "ops", verb, ops: [{ op: verb, target: { kind: "all" } }] },
      })
  })
  it("requires a task for start and refuses phases", () => {
    expect(parseCommand("start", list)).toEqual({
      ok: false,
      error: "start needs a task: /todo start <name>",
    })
    expect(parseCommand("start Build", list)).toEqual({
      ok: false,
      error: 'No task matches "Build". Run /todo to see the list.',
    })
  })
  it("appends to a quoted phase, creating names with spaces", () => {
    expect(parseCommand('append "Clean up" Remove flags', list)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "append",
        ops: [{ op: "append", phase: "Clean up", items: ["Remove flags"] }],
      },
    })
  })
  it("appends to an existing phase named by its first word", () => {
    expect(parseCommand("append Build Add docs", list)).toEqual({
      ok: true,
      value: { kind: "ops", verb: "append", ops: [{ op: "append", phase: "Build", items: ["Add docs"] }] },
    })
  })
  it("appends to the active phase when no phase is named", () => {
    expect(parseCommand("append Fix the flaky test", list)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "append",
        ops: [{ op: "append", phase: "Build", items: ["Fix the flaky test"] }],
      },
    })
  })
  it("takes quotes as grouping words, never as part of a task text", () => {
    const appended = (input: string) => {
      const result = parseCommand(input, list)
      return result.ok && result.value.kind === "ops" ? result.value.ops[0] : result
    }
    expect(appended('append "Work" "Fix it"')).toEqual({ op: "append", phase: "Work", items: ["Fix it"] })
    expect(appended("append 'Ship it' 'Write  notes'")).toEqual({
      op: "append",
      phase: "Ship it",
      items: ["Write  notes"],
    })
    expect(appended('append Build "Add docs"')).toEqual({ op: "append", phase: "Build", items: ["Add docs"] })
    expect(appended('append Fix "the flaky" test')).toEqual({
      op: "append",
      phase: "Build",
      items: ["Fix the flaky test"],
    })
    // A lone quoted run is the task, not a phase.
    expect(appended('append "Fix it"')).toEqual({ op: "append", phase: "Build", items: ["Fix it"] })
    // An apostrophe inside a word is text.
    expect(appended("append Don't break it")).toEqual({
      op: "append",
      phase: "Build",
      items: ["Don't break it"],
    })
  })
  it("refuses a blank task or name instead of reading it as text or as everything", () => {
    const blank = {
      ok: false,
      error: 'The task is blank; give it some words: /todo append ["phase"] <task>',
    }
    expect(parseCommand('append Work " "', list)).toEqual(blank)
    expect(parseCommand('append Build " "', list)).toEqual(blank)
    expect(parseCommand("append ''", list)).toEqual(blank)
    for (const verb of ["done", "drop", "rm", "start", "unblock", "block"])
      expect(parseCommand(`${verb} " "`, list)).toEqual({
        ok: false,
        error: `The name is blank; give the task or phase to ${verb}, or run /todo to see the list.`,
      })
  })
  it("takes quotes in a block reason as grouping too", () => {
    expect(parseCommand('block Tag -- "waiting on CI"', list)).toMatchObject({
      ok: true,
      value: { ops: [{ op: "block", reason: "waiting on CI" }] },
    })
  })
  it("takes the first lone -- as the separator and keeps the rest as typed, more separators and quotes included", () => {
    expect(parseCommand("block Tag -- waiting for ops -- back Monday", list)).toMatchObject({
      ok: true,
      value: {
        ops: [
          {
            op: "block",
            target: { kind: "task", text: "Tag release" },
            reason: "waiting for ops -- back Monday",
          },
        ],
      },
    })
    expect(parseCommand('drop Tag -- the "generated" changelog', list)).toMatchObject({
      ok: true,
      value: { ops: [{ op: "drop", reason: 'the "generated" changelog' }] },
    })
    expect(parseCommand("rename wire -- Wire the CLI -- and the flags", list)).toMatchObject({
      ok: true,
      value: { ops: [{ op: "rename", to: "Wire the CLI -- and the flags" }] },
    })
    // Spacing inside the text stays; a line break folds to one space (a task is one line).
    expect(parseCommand("rename wire -- a  b\n c", list)).toMatchObject({
      ok: true,
      value: { ops: [{ op: "rename", to: "a  b c" }] },
    })
  })
  it("parses a block reason after --", () => {
    expect(parseCommand("block Tag -- waiting for review", list)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "block",
        ops: [{ op: "block", target: { kind: "task", text: "Tag release" }, reason: "waiting for review" }],
      },
    })
  })
  it("parses an unblock reason after --, as block and drop do; unblock still needs a name", () => {
    const blocked: TodoList = [
      { name: "Ship", tasks: [{ text: "Tag release", status: "blocked", blocker: "waiting on CI" }] },
    ]
    expect(parseCommand("unblock Tag -- CI is green", blocked)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "unblock",
        ops: [{ op: "unblock", target: { kind: "task", text: "Tag release" }, reason: "CI is green" }],
      },
    })
    expect(parseCommand("unblock -- CI is green", blocked)).toEqual({
      ok: false,
      error: "unblock needs a task or phase: /todo unblock <name> [-- reason]",
    })
    expect(COMMAND_USAGE).toMatch(/\/todo unblock <task\|phase> \[-- why\]/)
    expect(TYPED_HELP).toMatch(/\/todo block\|drop\|unblock <task> -- reason/)
  })
  it("parses a drop reason after --, and drop with only a reason drops everything", () => {
    expect(parseCommand("drop Tag -- the changelog is generated", list)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "drop",
        ops: [
          { op: "drop", target: { kind: "task", text: "Tag release" }, reason: "the changelog is generated" },
        ],
      },
    })
    expect(parseCommand("drop -- out of scope", list)).toMatchObject({
      ok: true,
      value: { ops: [{ op: "drop", target: { kind: "all" }, reason: "out of scope" }] },
    })
  })
  it("parses rename of a task or a phase, the new text after --", () => {
    expect(parseCommand("rename wire -- Wire the CLI flags", list)).toEqual({
      ok: true,
      value: {
        kind: "ops",
        verb: "rename",
        ops: [{ op: "rename", target: { kind: "task", text: "Wire CLI" }, to: "Wire the CLI flags" }],
      },
    })
    expect(parseCommand('rename "Ship it" -- Release', list)).toMatchObject({
      ok: true,
      value: { ops: [{ op: "rename", target: { kind: "phase", name: "Ship it" }, to: "Release" }] },
    })
    for (const input of ["rename wire", "rename -- New", "rename wire --"])
      expect(parseCommand(input, list)).toEqual({
        ok: false,
        error: "rename needs a name and the new text: /todo rename <task|phase> -- <new text>",
      })
  })
  it("parses export paths and --force", () => {
    expect(parseCommand("export docs/PLAN.md --force", list)).toEqual({
      ok: true,
      value: { kind: "export", path: "docs/PLAN.md", force: true },
    })
    expect(parseCommand("export", list)).toEqual({ ok: true, value: { kind: "export", force: false } })
  })
  it("rejects unknown verbs with the usage", () => {
    const result = parseCommand("finish all", list)
    expect(result.ok).toBe(false)
    if (!result.ok) {
      expect(result.error.split("\n")[0]).toBe('Unknown /todo verb "finish".')
      expect(result.error).toContain("/todo append")
    }
  })

  it("suggests the nearest verb for a typo, and none for a word far from every verb", () => {
    const typo = parseCommand("dnoe Wire CLI", list)
    expect(!typo.ok && typo.error.split("\n")[0]).toBe('Unknown /todo verb "dnoe". Did you mean /todo done?')
    expect(nearestVerb("strat")).toBe("start")
    expect(nearestVerb("unblok")).toBe("unblock")
    expect(nearestVerb("expotr")).toBe("export")
    expect(nearestVerb("finish")).toBeUndefined()
    expect(nearestVerb("x".repeat(100_000))).toBeUndefined()
    const far = parseCommand("finish all", list)
    expect(!far.ok && far.error.split("\n")[0]).toBe('Unknown /todo verb "finish".')
  })

  it("lists the aliases in the usage and the TUI's help", () => {
    expect(parseCommand("add Tidy up", list)).toMatchObject({
      ok: true,
      value: { kind: "ops", verb: "append" },
    })
    expect(COMMAND_USAGE).toMatch(/add = append/)
    expect(TYPED_HELP).toMatch(/add = append/)
    for (const alias of ["view", "list"]) {
      expect(parseCommand(alias, list)).toEqual({ ok: true, value: { kind: "show" } })
      expect(COMMAND_USAGE).toContain(alias)
      expect(TYPED_HELP).toContain(alias)
    }
  })
})

describe("a verb that changes nothing", () => {
  const q = (text: string) => `"${text}"`
  const mixed: TodoList = [
    {
      name: "Port",
      tasks: [
        { text: "Port credential store", status: "in_progress" },
        { text: "Old shim", status: "abandoned" },
        { text: "Docs", status: "pending" },
      ],
    },
    { name: "Shipped", tasks: [{ text: "Tag v1", status: "completed" }] },
  ]
  const run = (typed: string) => {
    const plan = parseCommand(typed, mixed)
    if (!plan.ok || plan.value.kind !== "ops") throw new Error(`not ops: ${typed}`)
    return unchangedText(plan.value.ops, mixed, q)
  }

  it("names the verb, the task it addressed and why", () => {
    expect(run("start credential")).toEqual(['start "Port credential store": it is already in progress'])
    expect(run("drop Old shim")).toEqual(['drop "Old shim": it is already dropped'])
    expect(run("unblock Docs")).toEqual(['unblock "Docs": it is not blocked (it is pending)'])
    expect(run("rename Docs -- Docs")).toEqual(['rename "Docs": it already has that text'])
    expect(run("done Shipped")).toEqual(['done phase "Shipped": nothing in it to change'])
  })
})

describe("a /todo line typed in the TUI", () => {
  test("todoArguments takes /todo alone or followed by whitespace, and nothing else", () => {
    expect(todoArguments("/todo")).toBe("")
    expect(todoArguments("  /todo  ")).toBe("")
    expect(todoArguments("/todo done parser")).toBe("done parser")
    expect(todoArguments("/todo\tdone  the parser ")).toBe("done  the parser")
    expect(todoArguments("/todo block x -- needs\nreview")).toBe("block x -- needs\nreview")
    for (const other of [
      "/todos",
      "/todo-x",
      "/to",
      "todo done x",
      "please /todo done x",
      "/Todo done x",
      "",
    ])
      expect(todoArguments(other)).toBeUndefined()
  })

  test("typedError keeps one line and points to the help instead of the usage", () => {
    const unknown = parseCommand("finish parser", [])
    expect(unknown.ok).toBe(false)
    if (unknown.ok) return
    expect(typedError(unknown.error)).toBe('Unknown /todo verb "finish". /todo help lists the verbs.')
    expect(typedError('No task or phase matches "x". Run /todo to see the list.')).toBe(
      'No task or phase matches "x". Run /todo to see the list.',
    )
  })

  test("the help and the autocomplete description fit their boxes", () => {
    for (const line of TYPED_HELP.split("\n")) expect(line.length).toBeLessThanOrEqual(54)
    // At 80 columns the autocomplete shows about 50 columns of it: the verbs come first.
    expect(COMMAND_DESCRIPTION.slice(0, 50)).toContain("done|start|block")
  })
})
