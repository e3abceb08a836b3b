import { describe, expect, test } from "vitest"
import type { Task, TodoList } from "../../src/core/list/types.ts"
import { reminderText } from "../../src/core/model/prompts.ts"
import { droppedToast, listToasts, SERVER_MISSING, spokenToasts } from "../../src/core/session/toasts.ts"
import {
  initialTracker,
  stepTracker,
  type TrackerConfig,
  type TrackerState,
} from "../../src/core/session/tracker.ts"

const ON = { toasts: true }
const OFF = { toasts: false }
const CFG: TrackerConfig = {
  reminders: true,
  remindersMax: 3,
  eager: "default",
  mode: "auto",
  nudgeAfter: 2,
  nudgesMax: 2,
}

const list = (...tasks: Task[]): TodoList => [{ name: "Build", tasks }]
const OPEN = list(
  { text: "Write parser", status: "completed" },
  { text: "Add tests", status: "in_progress" },
  { text: "Deploy", status: "pending" },
)

/** A host-box line: the toast is 54 columns wide. */
const BOX = 54

describe("reminder and nudge toasts", () => {
  test("a completion reminder says how many tasks are open", () => {
    const actions = [{ type: "remind", kind: "reminder", text: "…" }]
    expect(spokenToasts(actions, OPEN, ON)).toEqual([
      { variant: "info", title: "Todo", message: "Reminded the agent: 2 tasks open." },
    ])
    // Counted as the reminder counts: its open tasks, and the blocked ones apart ("not counted").
    const withBlocked = list(
      { text: "Add tests", status: "in_progress" },
      { text: "Deploy", status: "pending" },
      { text: "Sign", status: "blocked", blocker: "needs a key" },
    )
    expect(spokenToasts(actions, withBlocked, ON)[0]?.message).toBe(
      "Reminded the agent: 2 tasks open, 1 blocked.",
    )
    const reminder = reminderText(withBlocked).split("\n")
    const openLines = reminder.slice(
      reminder.findIndex((line) => line.startsWith("You stopped")) + 1,
      reminder.indexOf("Blocked (not counted):"),
    )
    expect(openLines).toHaveLength(2)
  })

  test("a nudge the tracker sends, alone or merged with other notices, shows one toast", () => {
    let state: TrackerState = initialTracker()
    const send = (event: Parameters<typeof stepTracker>[1]) => {
      const step = stepTracker(state, event, CFG)
      state = step.state
      return step.actions
    }
    send({
      type: "userMessage",
      parts: [{ type: "text", text: "go" }],
      list: OPEN,
      isNewSession: false,
      isSubagent: false,
    })
    for (let i = 0; i < 2; i++) send({ type: "toolResult", tool: "edit", ok: true, list: OPEN })
    const alone = send({ type: "modelRequest", kind: "main", list: OPEN })
    expect(alone.map((a) => a.kind)).toEqual(["nudge"])
    expect(spokenToasts(alone, OPEN, ON)).toEqual([
      { variant: "info", title: "Todo", message: "Nudged the agent to update its todo list." },
    ])
    // A second nudge goes out in the same text as a user-edit notice.
    send({ type: "userEdit", lines: ['done "Deploy"'], removed: [] })
    for (let i = 0; i < 2; i++) send({ type: "toolResult", tool: "bash", ok: true, list: OPEN })
    const merged = send({ type: "modelRequest", kind: "main", list: OPEN })
    expect(merged.map((a) => a.kind)).toEqual(["notices"])
    expect(spokenToasts(merged, OPEN, ON)).toHaveLength(1)
  })

  test("other notices, the prelude and the compaction context show nothing", () => {
    for (const kind of ["prelude", "resume", "compaction", "user-edit", "compaction-context", "notices"])
      expect(spokenToasts([{ type: "inject", kind }], OPEN, ON)).toEqual([])
  })

  test("toasts: false shows none", () => {
    expect(spokenToasts([{ type: "remind", kind: "reminder" }], OPEN, OFF)).toEqual([])
    expect(spokenToasts([{ type: "inject", kind: "nudge" }], OPEN, OFF)).toEqual([])
  })
})

describe("blocked and all-done toasts", () => {
  test("a task the agent blocks is named with its reason", () => {
    const after = list(
      { text: "Write parser", status: "completed" },
      { text: "Add tests", status: "blocked", blocker: "needs the staging key" },
      { text: "Deploy", status: "pending" },
    )
    expect(listToasts(OPEN, after, ON)).toEqual([
      {
        variant: "warning",
        title: "The agent blocked a task",
        message: '"Add tests": needs the staging key',
      },
    ])
  })

  test("a task blocked before is not told again; several new ones are capped", () => {
    const before = list({ text: "A", status: "blocked", blocker: "old" }, { text: "B", status: "pending" })
    const still = list({ text: "A", status: "blocked", blocker: "old" }, { text: "B", status: "in_progress" })
    expect(listToasts(before, still, ON)).toEqual([])
    const many = list(...["one", "two", "three", "four"].map((text): Task => ({ text, status: "blocked" })), {
      text: "five",
      status: "pending",
    })
    const toast = listToasts(list({ text: "five", status: "pending" }), many, ON)[0]!
    expect(toast.title).toBe("The agent blocked 4 tasks")
    expect(toast.message).toBe('"one"\n"two"\n… and 2 more')
  })

  test("long texts and reasons are cut to the toast box, and folded onto one line", () => {
    const long = "x".repeat(300)
    const after = list({ text: long, status: "blocked", blocker: `why\n${long}` })
    const toast = listToasts(list({ text: long, status: "pending" }), after, ON)[0]!
    expect(toast.message).not.toContain("\n")
    expect(toast.message.length).toBeLessThanOrEqual(2 * BOX)
  })

  test("all done shows once, as the list becomes done", () => {
    const done = list(
      { text: "Write parser", status: "completed" },
      { text: "Add tests", status: "abandoned" },
    )
    expect(listToasts(OPEN, done, ON)).toEqual([
      { variant: "success", title: "Todo", message: "All done: 1/1 tasks · 1 dropped." },
    ])
    expect(listToasts(done, [...done], ON)).toEqual([])
    expect(listToasts(done, done, ON)).toEqual([])
  })

  test("an empty list, or one only dropped, is not all done", () => {
    expect(listToasts(OPEN, [], ON)).toEqual([])
    expect(listToasts(OPEN, list({ text: "Deploy", status: "abandoned" }), ON)).toEqual([])
  })

  test("toasts: false shows none", () => {
    expect(listToasts(OPEN, list({ text: "Deploy", status: "completed" }), OFF)).toEqual([])
  })
})

test("the server-missing notice fits a few lines of the toast box", () => {
  const words = SERVER_MISSING.message.split(" ")
  let lines = 1
  let width = 0
  for (const word of words) {
    if (width > 0 && width + 1 + word.length > BOX) {
      lines++
      width = word.length
    } else width += (width > 0 ? 1 : 0) + word.length
  }
  expect(lines).toBeLessThanOrEqual(4)
  expect(SERVER_MISSING.title.length).toBeLessThanOrEqual(BOX)
})

describe("edits made while undone that no longer apply", () => {
  test("one warning toast names them, as the user made them; none when nothing was dropped", () => {
    expect(droppedToast([])).toBeUndefined()
    const toast = droppedToast([
      { kind: "status", task: "Ship it", status: "in_progress" },
      {
        kind: "ops",
        ops: [{ op: "block", target: { kind: "task", text: "Deploy" }, reason: "token" }],
        error: 'Error: No task "Deploy".',
      },
      { kind: "move", task: "Docs", phase: "Later" },
    ])
    expect(toast?.variant).toBe("warning")
    expect(toast?.title).toBe("Todo: 3 edits no longer apply")
    expect(toast?.message.split("\n")).toEqual([
      "Made while undone, not kept:",
      '"Ship it" (in progress)',
      'block "Deploy"',
      "… and 1 more",
    ])
  })
})
