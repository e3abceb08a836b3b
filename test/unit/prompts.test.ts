import { describe, expect, test } from "vitest"
import type { TodoList } from "../../src/core/list/types.ts"
import {
  commandReplyText,
  compactionContextText,
  isPluginText,
  MARKER,
  noticesText,
  preludeText,
  reminderText,
} from "../../src/core/model/prompts.ts"

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
  '"Build" (1/3)',
  '  [x] "Write parser"',
  '  [>] "Add tests"',
  '  [!] "Deploy" (blocked: "waiting on credentials")',
  '"Docs" (0/1)',
  '  [ ] "Write README"',
  '  [-] "Old notes"',
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

describe("marker", () => {
  test("every injected text starts with the marker on its own line", () => {
    for (const [name, text] of Object.entries(ALL_INJECTED)) {
      expect(text.startsWith(`${MARKER}\n`), name).toBe(true)
      expect(isPluginText(text), name).toBe(true)
    }
  })

  test("the marker says it is automatic and not from the user", () => {
    expect(MARKER).toBe("[todo plugin: automatic message, not written by the user]")
  })

  test("isPluginText recognises only texts that start with the marker", () => {
    expect(isPluginText(`  \n${MARKER}\nhello`)).toBe(true)
    expect(isPluginText("please fix the build")).toBe(false)
    expect(isPluginText(`quoting: ${MARKER}`)).toBe(false)
    expect(isPluginText("")).toBe(false)
    expect(isPluginText("[todo plugin]")).toBe(false)
  })
})

describe("injected texts", () => {
  test("preludes: soft for preferred, mandatory for always, none for default", () => {
    expect(preludeText("default")).toBeUndefined()
    expect(preludeText("preferred")).toBe(
      `${MARKER}\nIf this request is multi-step work, first lay out a phased plan with one todo init call, then work through it.`,
    )
    expect(preludeText("always")).toContain('you MUST call the todo tool with op "init"')
    expect(preludeText("always")).toContain("Before any other tool")
  })

  test("reminder lists open tasks, marks the one in progress and separates blocked ones", () => {
    expect(reminderText(LIST)).toBe(
      [
        MARKER,
        "You stopped, but the todo list still has open tasks:",
        '  "Add tests" (in progress)',
        '  "Write README"',
        "Blocked (not counted):",
        '  "Deploy" ("waiting on credentials")',
        "Continue with the next task. If a task is finished or cannot proceed, mark it done, dropped or blocked with the todo tool. If you need the user's input, ask.",
      ].join("\n"),
    )
  })

  test("reminder leaves out closed tasks and the blocked section when nothing is blocked", () => {
    const text = reminderText([
      {
        name: "P",
        tasks: [
          { text: "A", status: "pending" },
          { text: "B", status: "completed" },
        ],
      },
    ])
    expect(text).not.toContain("Blocked")
    expect(text).not.toContain('"B"')
    expect(text).toContain('  "A"\n')
  })

  test("reminder puts the in-progress task first and caps a long listing", () => {
    const tasks = Array.from({ length: 20 }, (_, i) => ({ text: `T${i}`, status: "pending" as const }))
    const text = reminderText([{ name: "P", tasks: [...tasks, { text: "Now", status: "in_progress" }] }])
    const lines = text.split("\n")
    expect(lines[2]).toBe('  "Now" (in progress)')
    expect(lines).toContain("  … and 9 more")
    expect(lines).not.toContain('  "T11"')
    expect(lines).toContain('  "T10"')
  })

  test("resume notice carries the compact list and says not to re-init", () => {
    expect(noticesText({ resumed: true }, LIST)).toBe(
      `${MARKER}\nThis session's todo list was restored from an earlier run.\nTodo list:\n${COMPACT}\nContinue from it; do not init a new list.`,
    )
  })

  test("post-compaction notice and compaction context carry the list verbatim", () => {
    expect(noticesText({ compacted: true }, LIST)).toContain(`Todo list:\n${COMPACT}\n`)
    expect(compactionContextText(LIST)).toBe(
      `${MARKER}\nThis session has a todo list kept by the todo tool. Include it verbatim in the summary:\n${COMPACT}`,
    )
  })

  test("a combined notice carries the list exactly once", () => {
    const text = ALL_INJECTED.combined!
    expect(text.split('"Build" (1/3)').length).toBe(2)
    expect(text.split(MARKER).length).toBe(2)
    expect(text).toContain("restored from an earlier run, and the conversation was compacted")
    expect(text).toContain('Do not recreate removed tasks ("Old idea").')
    expect(text).toContain("12 edits or commands since the todo list was last updated")
  })

  test("nothing pending renders nothing", () => {
    expect(noticesText({}, LIST)).toBeUndefined()
    expect(noticesText({ nudge: 0 }, LIST)).toBeUndefined()
  })

  test("user-edit notice lists the changes and forbids recreating removed tasks", () => {
    expect(noticesText({ edits: EDITS }, LIST)).toBe(
      [
        MARKER,
        "The user changed the todo list with /todo:",
        '  done "Write parser"',
        '  removed "Old idea"',
        'Do not recreate removed tasks ("Old idea").',
        "Todo list:",
        COMPACT,
        "Work from the list as the user left it.",
      ].join("\n"),
    )
    const noRemoval = noticesText(
      { edits: { lines: ['done "Write parser"'], removed: [], omitted: 3 } },
      LIST,
    )
    expect(noRemoval).not.toContain("recreate")
    expect(
      noticesText(
        { edits: { lines: ['removed phase "Later"'], removed: ["X"], removedPhases: ["Later"], omitted: 0 } },
        LIST,
      ),
    ).toContain('Do not recreate removed phases ("Later") or tasks ("X").')
    expect(noRemoval).toContain("  (3 earlier changes not shown)\n")
  })

  test("nudge names the task in progress and the next one", () => {
    expect(noticesText({ nudge: 12 }, LIST)).toBe(
      `${MARKER}\n12 edits or commands since the todo list was last updated. Mark finished tasks done, or start the task you are actually working on.\nIn progress: "Add tests". Next: "Write README".`,
    )
  })

  test("command replies say what happened and ask for a one-line acknowledgement", () => {
    const ack =
      "No action needed: reply with one short line acknowledging it, then continue any work in progress."
    expect(ALL_INJECTED.commandShown).toBe(
      `${MARKER}\nThe user viewed the todo list with /todo; nothing changed.\n${ack}`,
    )
    expect(ALL_INJECTED.commandChanged).toBe(
      `${MARKER}\nThe user changed the todo list with /todo:\n  done "Write parser"\nTodo list now:\n${COMPACT}\n${ack}`,
    )
    expect(ALL_INJECTED.commandError).toBe(
      `${MARKER}\nThe user's /todo command failed; nothing changed. Error: No task "Foo".\n${ack}`,
    )
    expect(commandReplyText({ unchanged: ['start "Port store": it is already in progress'] })).toBe(
      `${MARKER}\nThe user's /todo command changed nothing:\n  start "Port store": it is already in progress\n${ack}`,
    )
    expect(commandReplyText({ lines: ['removed "X"'], removed: ["X"] })).toContain(
      'Do not recreate removed tasks ("X").',
    )
    // Phases are named as phases, not as tasks.
    const phaseGone = commandReplyText({
      lines: ['removed phase "P"'],
      removed: ["a", "b"],
      removedPhases: ["P"],
    })
    expect(phaseGone).toContain('Do not recreate removed phases ("P") or tasks ("a", "b").')
    expect(
      commandReplyText({ lines: ['removed phase "P"'], removed: [], removedPhases: ["P", "Q"] }),
    ).toContain('Do not recreate removed phases ("P", "Q").')
  })

  test("an empty list renders as an explicit empty-list line", () => {
    expect(compactionContextText([])).toContain("summary:\nThe list is empty.")
  })

  test("injected texts stay short for a small list", () => {
    for (const [name, text] of Object.entries(ALL_INJECTED)) expect(text.length, name).toBeLessThan(700)
  })
})
