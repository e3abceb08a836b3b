import { describe, expect, test } from "vitest"
import type { OpName, TodoList } from "../../src/core/list/types.ts"
import {
  compactionContextText,
  MARKER,
  noticesText,
  preludeText,
  reminderText,
} from "../../src/core/model/prompts.ts"
import { asksUser, QUESTION_CUES } from "../../src/core/session/asks.ts"
import {
  classifyUserMessage,
  EDIT_LINES_MAX,
  initialTracker,
  MUTATING_TOOLS,
  stepTracker,
  type TrackerAction,
  type TrackerConfig,
  type TrackerEvent,
  type TrackerState,
} from "../../src/core/session/tracker.ts"
import { OPEN_SAMPLE } from "../fixtures/lists.ts"

const CFG: TrackerConfig = {
  reminders: true,
  remindersMax: 3,
  eager: "preferred",
  mode: "auto",
  nudgeAfter: 12,
  nudgesMax: 2,
}

const OPEN = OPEN_SAMPLE
const OPEN_LATER: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "completed" },
      { text: "Add tests", status: "completed" },
      { text: "Deploy", status: "blocked", blocker: "waiting on credentials" },
    ],
  },
  { name: "Docs", tasks: [{ text: "Write README", status: "in_progress" }] },
]
const ALL_DONE: TodoList = [{ name: "Build", tasks: [{ text: "Write parser", status: "completed" }] }]
const ONLY_BLOCKED: TodoList = [
  { name: "Build", tasks: [{ text: "Deploy", status: "blocked", blocker: "waiting on credentials" }] },
]

// ---- event builders --------------------------------------------------------------------------

function prompt(
  text: string,
  opts: Partial<{ list: TodoList; isNewSession: boolean; isSubagent: boolean; model: string }> = {},
) {
  return {
    type: "userMessage",
    parts: [{ type: "text", text }],
    list: opts.list ?? [],
    isNewSession: opts.isNewSession ?? true,
    isSubagent: opts.isSubagent ?? false,
    ...(opts.model === undefined ? {} : { model: opts.model }),
  } satisfies TrackerEvent
}
function pluginMessage(text: string, list: TodoList = OPEN) {
  return {
    type: "userMessage",
    parts: [{ type: "text", text, synthetic: true }],
    list,
    isNewSession: true,
    isSubagent: false,
  } satisfies TrackerEvent
}
function tool(name: string, list: TodoList = OPEN, ok = true) {
  return { type: "toolResult", tool: name, ok, list } satisfies TrackerEvent
}
function todo(ops: OpName[], list: TodoList = OPEN, ok = true) {
  return { type: "toolResult", tool: "todo", ok, todoOps: ops, list } satisfies TrackerEvent
}
function request(kind: "main" | "compaction" = "main", list: TodoList = OPEN) {
  return { type: "modelRequest", kind, list } satisfies TrackerEvent
}
function idle(over: Partial<Extract<TrackerEvent, { type: "idle" }>> = {}) {
  return {
    type: "idle",
    list: OPEN,
    lastAssistantText: "Implemented the parser.",
    userMessageWaiting: false,
    aborted: false,
    errored: false,
    openQuestion: false,
    ...over,
  } satisfies TrackerEvent
}

// ---- runner ------------------------------------------------------------------------------------

class Session {
  state: TrackerState = initialTracker()
  constructor(readonly config: TrackerConfig = CFG) {}
  send(event: TrackerEvent): TrackerAction[] {
    const step = stepTracker(this.state, event, this.config)
    this.state = step.state
    return step.actions
  }
  sendAll(events: TrackerEvent[]): TrackerAction[] {
    return events.flatMap((e) => this.send(e))
  }
  /** A session already past its first prompt, in a fresh cycle, with an open list. */
  static started(config: TrackerConfig = CFG): Session {
    const s = new Session(config)
    s.send(prompt("Build the thing", { list: OPEN }))
    return s
  }
}

function edits(s: Session, n: number, list: TodoList = OPEN): void {
  for (let i = 0; i < n; i++) expect(s.send(tool("edit", list))).toEqual([])
}

// ------------------------------------------------------------------------------------------------

test("initial state is plain, serializable data", () => {
  const state = initialTracker()
  expect(JSON.parse(JSON.stringify(state))).toEqual(state)
  expect(state).toEqual({
    prompted: false,
    preluded: false,
    question: false,
    resumed: false,
    subagent: false,
    edits: 0,
    nudges: 0,
    reminders: 0,
    paused: false,
    undoing: false,
    lean: false,
    pending: { resume: false, carried: false, compaction: false, nudge: 0, edits: null, undone: null },
  })
})

test("stepTracker never mutates the state it is given", () => {
  const s = Session.started()
  const before = structuredClone(s.state)
  const frozen = s.state
  stepTracker(frozen, tool("edit"), CFG)
  stepTracker(frozen, idle(), CFG)
  stepTracker(frozen, { type: "userEdit", lines: ['done "A"'], removed: [] }, CFG)
  expect(frozen).toEqual(before)
})

describe("classifyUserMessage", () => {
  test("typed text is real", () => {
    expect(classifyUserMessage([{ type: "text", text: "fix it" }])).toBe("real")
  })
  test("typed text with our hidden attachment is still real", () => {
    expect(
      classifyUserMessage([
        { type: "text", text: "fix it" },
        { type: "text", text: `${MARKER}\nhello`, synthetic: true },
      ]),
    ).toBe("real")
  })
  test("our text alone is plugin, synthetic or not", () => {
    expect(classifyUserMessage([{ type: "text", text: `${MARKER}\nreminder` }])).toBe("plugin")
    expect(classifyUserMessage([{ type: "text", text: `${MARKER}\nreminder`, synthetic: true }])).toBe(
      "plugin",
    )
  })
  test("synthetic, ignored and blank texts are synthetic", () => {
    expect(classifyUserMessage([{ type: "text", text: "Called the Read tool", synthetic: true }])).toBe(
      "synthetic",
    )
    expect(classifyUserMessage([{ type: "text", text: "hidden", ignored: true }])).toBe("synthetic")
    expect(classifyUserMessage([{ type: "text", text: "   " }])).toBe("synthetic")
    expect(classifyUserMessage([])).toBe("synthetic")
  })
  test("a file attachment alone is synthetic (documented choice)", () => {
    expect(classifyUserMessage([{ type: "file" }])).toBe("synthetic")
    expect(classifyUserMessage([{ type: "file" }, { type: "text", text: "see file", synthetic: true }])).toBe(
      "synthetic",
    )
  })
  test("text in a non-text part does not count", () => {
    expect(classifyUserMessage([{ type: "reasoning", text: "thinking" }])).toBe("synthetic")
  })
})

describe("asksUser", () => {
  // [text, waiting for the user]. False reminders are worse than missed ones, so doubtful rows are "waiting".
  const TABLE: readonly (readonly [string, boolean])[] = [
    // The imperative requests for input a trailing "?" misses.
    ["Answer yes or no.", true],
    ["Choose one of the two options.", true],
    ["Reply with the token.", true],
    ["Tell me which branch to use.", true],
    ["Confirm the target directory.", true],
    ["Pick one.", true],
    ["Please advise how to proceed.", true],
    ["Which one?\n1. Rewrite the tokenizer\n2. Patch the existing one", true],
    ["Which approach do you prefer?\n\n1. Rewrite\n2. Patch\n3. Leave it as it is", true],
    ["Two fixes are possible. Pick one:\n- rewrite the tokenizer\n- patch the existing one", true],
    ["If that works for you, reply with the token.", true],
    ["Please choose between the two approaches below.", true],
    ["Select one of the options above.", true],
    ["Decide which database to use and I will continue.", true],
    ["Specify the target version.", true],
    ["Respond with the API key when you have it.", true],
    ["Kindly confirm that the migration can run tonight.", true],
    ["**Tell me** which file to start with.", true],
    // Questions and cue phrases.
    ["Should I also update the docs?", true],
    ["**Shall we proceed?**", true],
    ["Which option do you prefer? 🙂", true],
    ['"Which one?"', true],
    ["Let me know if you want changes.", true],
    ["Please confirm the target branch.", true],
    ["I can also refactor it. Should I go ahead.", true],
    ["WOULD YOU LIKE me to continue.", true],
    ["Waiting for your go-ahead.", true],
    ["Done with step one.\n\nWhat next?\n\n", true],
    ["Is this right⸮", true],
    // Other scripts: full-width, Arabic and Greek question marks.
    ["你想让我继续吗？", true],
    ["要我先修复测试吗？", true],
    ["このまま進めてもよろしいですか？", true],
    ["どちらのブランチを使いますか？", true],
    ["계속 진행할까요？", true],
    ["هل تريد أن أتابع؟", true],
    ["أي فرع أستخدم؟", true],
    ["آیا ادامه بدهم؟", true],
    ["کیا میں جاری رکھوں؟", true],
    ["Θέλετε να συνεχίσω\u037E", true],
    ["Ποιο αρχείο να αλλάξω\u037E", true],
    // Not waiting: statements, summaries, code, and words that only look like requests.
    ["Implemented the parser.", false],
    ["Is it done? Yes, all tests pass.", false],
    ["Should I? No: I went ahead.\nAll done.", false],
    ["This should include the tests.", false],
    ["Marshall Island data loaded.", false],
    ["Per Marshall I wrote the adapter.", false],
    ["const x = 1;", false],
    ["for (let i = 0; i < n; i++) total += i;", false],
    ["Answered all review comments.", false],
    ["Reply handling is implemented.", false],
    ["Select queries are faster now.", false],
    ["Confirmed the target directory exists.", false],
    ["Picked the faster algorithm.", false],
    ["Choosing between the two options was easy: the second is faster.", false],
    ["The user can choose one of two modes in the settings.", false],
    ["Added a confirm dialog to the delete button.", false],
    ["Next: choose the database schema.", false],
    ["I will tell the team once it ships.", false],
    ["Summary:\n1. Fixed the tokenizer\n2. Added tests", false],
    ["Options considered:\n- rewrite\n- patch\nI went with the patch.", false],
    ['Updated the FAQ entry "How do I reset my password?" in the docs.', false],
    ["Wrote the answer to question 3.", false],
    ["Decided to keep the old API.", false],
    ["Pick-list rendering is fixed.", false],
    ["Refactored the `confirm()` helper.", false],
    ["修复完成。", false],
    ["تم إصلاح الخطأ.", false],
    ["", false],
    ["\n  \n", false],
  ]

  test("the table has what it must: both sides, the non-English marks, a code line", () => {
    const waiting = TABLE.filter(([, w]) => w)
    expect(TABLE.length).toBeGreaterThanOrEqual(60)
    expect(waiting.length).toBeGreaterThanOrEqual(25)
    expect(TABLE.length - waiting.length).toBeGreaterThanOrEqual(25)
    expect(TABLE.filter(([t]) => /[\uFF1F\u061F\u037E]$/u.test(t)).length).toBeGreaterThanOrEqual(10)
    expect(TABLE.some(([t, w]) => t.endsWith(";") && !w)).toBe(true)
  })

  test.each(TABLE)("%j waits for the user: %s", (text, waiting) => {
    expect(asksUser(text)).toBe(waiting)
  })

  test("undefined text does not ask", () => {
    expect(asksUser(undefined)).toBe(false)
  })

  test("every exported cue is recognised", () => {
    for (const cue of QUESTION_CUES) expect(asksUser(`Fine. ${cue} something.`), cue).toBe(true)
    expect(QUESTION_CUES).toEqual(
      expect.arrayContaining([
        "please confirm",
        "let me know",
        "should i",
        "would you like",
        "do you want me",
        "shall i",
        "can you confirm",
        "waiting for your",
      ]),
    )
  })
})

describe("eager prelude", () => {
  const PREFERRED = { type: "attach", kind: "prelude", text: preludeText("preferred")! }

  test("preferred: attached to the first real prompt of a new session", () => {
    const s = new Session()
    expect(s.send(prompt("Add a login page"))).toEqual([PREFERRED])
  })

  test("always: the must-call text", () => {
    const s = new Session({ ...CFG, eager: "always" })
    expect(s.send(prompt("Add a login page"))).toEqual([
      { type: "attach", kind: "prelude", text: preludeText("always")! },
    ])
  })

  test("default: nothing", () => {
    const s = new Session({ ...CFG, eager: "default" })
    expect(s.send(prompt("Add a login page"))).toEqual([])
  })

  test("only the first real prompt", () => {
    const s = new Session()
    expect(s.send(prompt("What does this repo do?"))).toEqual([])
    expect(s.send(prompt("Add a login page"))).toEqual([])
  })

  test("plugin and synthetic messages do not use up the first prompt", () => {
    const s = new Session()
    expect(s.send(pluginMessage(`${MARKER}\nx`, []))).toEqual([])
    expect(s.send({ ...prompt("x"), parts: [{ type: "file" }] })).toEqual([])
    expect(s.send(prompt("Add a login page"))).toEqual([PREFERRED])
  })

  test("not for a session that existed before", () => {
    expect(new Session().send(prompt("Add a login page", { isNewSession: false }))).toEqual([])
  })

  test("not after a resumed event, even if the adapter calls it new", () => {
    const s = new Session()
    s.send({ type: "resumed", list: [] })
    expect(s.send(prompt("Add a login page"))).toEqual([])
  })

  test.each([
    "Can you add a login page?",
    "Add a login page!",
    "ログインページ？",
    "すごい！",
    "Add a login page?  \n",
  ])("not when the prompt ends in a question or exclamation: %j", (text) => {
    expect(new Session().send(prompt(text))).toEqual([])
  })

  test("a question mark inside the prompt is fine", () => {
    expect(new Session().send(prompt("Why is login slow? Fix it"))).toEqual([PREFERRED])
  })

  test("not when a list already exists", () => {
    expect(new Session().send(prompt("Add a login page", { list: ALL_DONE }))).toEqual([])
  })

  test("not for subagents", () => {
    expect(new Session().send(prompt("Add a login page", { isSubagent: true }))).toEqual([])
  })
})

describe("mid-run nudge", () => {
  const NUDGE = [{ type: "inject", kind: "nudge", text: noticesText({ nudge: 12 }, OPEN) }]

  test("queued at exactly nudgeAfter edits, not one before", () => {
    const s = Session.started()
    edits(s, 11)
    expect(s.send(request())).toEqual([])
    edits(s, 1)
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("delivered once, on a main request only", () => {
    const s = Session.started()
    edits(s, 12)
    expect(s.send(request("compaction"))).toEqual([
      { type: "inject", kind: "compaction-context", text: compactionContextText(OPEN) },
    ])
    expect(s.send(request())).toEqual(NUDGE)
    expect(s.send(request())).toEqual([])
  })

  test("the count restarts after a nudge", () => {
    const s = Session.started()
    edits(s, 12)
    s.send(request())
    edits(s, 11)
    expect(s.send(request())).toEqual([])
    edits(s, 1)
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("at most nudgesMax per cycle; a real prompt resets", () => {
    const s = Session.started()
    let nudges = 0
    for (let i = 0; i < 60; i++) {
      s.send(tool("bash"))
      nudges += s.send(request()).length
    }
    expect(nudges).toBe(2)
    s.send(prompt("keep going", { list: OPEN }))
    // The edit count restarts with the cycle too: no nudge right after the user's prompt.
    edits(s, 11)
    expect(s.send(request())).toEqual([])
    edits(s, 1)
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("plugin and synthetic messages do not reset the nudge budget", () => {
    const s = Session.started()
    for (let i = 0; i < 2; i++) {
      edits(s, 12)
      expect(s.send(request())).toEqual(NUDGE)
    }
    s.send(pluginMessage(`${MARKER}\nreminder`))
    s.send({ ...prompt("x"), parts: [{ type: "text", text: "tool output", synthetic: true }] })
    edits(s, 12)
    expect(s.send(request())).toEqual([])
  })

  test("a todo update resets the count", () => {
    const s = Session.started()
    edits(s, 11)
    s.send(todo(["done"]))
    edits(s, 11)
    expect(s.send(request())).toEqual([])
    edits(s, 1)
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("a todo view or a failed todo call does not reset the count", () => {
    const s = Session.started()
    edits(s, 6)
    s.send(todo(["view"]))
    s.send(todo(["done"], OPEN, false))
    edits(s, 6)
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("a batch with any non-view op resets the count", () => {
    const s = Session.started()
    edits(s, 11)
    s.send(todo(["view", "start"]))
    edits(s, 1)
    expect(s.send(request())).toEqual([])
  })

  test("a todo update before delivery cancels the queued nudge", () => {
    const s = Session.started()
    edits(s, 12)
    s.send(todo(["done"]))
    expect(s.send(request())).toEqual([])
  })

  test("failed and non-mutating tool results do not count", () => {
    const s = Session.started()
    for (let i = 0; i < 20; i++) {
      s.send(tool("edit", OPEN, false))
      s.send(tool("read"))
      s.send(tool("grep"))
    }
    expect(s.send(request())).toEqual([])
  })

  test("every default mutating tool counts", () => {
    expect([...MUTATING_TOOLS].sort()).toEqual([
      "apply_patch",
      "bash",
      "edit",
      "multiedit",
      "patch",
      "shell",
      "write",
    ])
    const s = Session.started()
    for (let i = 0; i < 2; i++) for (const name of MUTATING_TOOLS) s.send(tool(name))
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("the adapter can override the mutating tools", () => {
    const s = Session.started({ ...CFG, mutatingTools: new Set(["shell"]) })
    edits(s, 12)
    expect(s.send(request())).toEqual([])
    for (let i = 0; i < 12; i++) s.send(tool("shell"))
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("nudgeAfter is configurable", () => {
    const s = Session.started({ ...CFG, nudgeAfter: 3 })
    edits(s, 3)
    expect(s.send(request())).toEqual([
      { type: "inject", kind: "nudge", text: noticesText({ nudge: 3 }, OPEN) },
    ])
  })

  test("not without open work: done or only blocked", () => {
    for (const list of [ALL_DONE, ONLY_BLOCKED, []]) {
      const s = Session.started()
      edits(s, 30, list)
      expect(s.send(request("main", list))).toEqual([])
    }
  })

  test("edits made while nothing is open do not spend the nudge budget", () => {
    const s = Session.started()
    for (let i = 0; i < 3; i++) {
      edits(s, 12, ALL_DONE)
      expect(s.send(request("main", OPEN))).toEqual([])
    }
    // The list gains open work (e.g. the user added a task): both nudges are still available.
    s.send(tool("edit", OPEN))
    expect(s.send(request())).toEqual([
      { type: "inject", kind: "nudge", text: noticesText({ nudge: 37 }, OPEN) },
    ])
    edits(s, 12)
    expect(s.send(request())).toEqual(NUDGE)
  })

  test("not for subagents", () => {
    const s = new Session()
    s.send(prompt("Investigate", { list: OPEN, isSubagent: true }))
    edits(s, 30)
    expect(s.send(request())).toEqual([])
  })

  test("rendered from the list at delivery", () => {
    const s = Session.started()
    edits(s, 12)
    expect(s.send(request("main", OPEN_LATER))).toEqual([
      { type: "inject", kind: "nudge", text: noticesText({ nudge: 12 }, OPEN_LATER) },
    ])
  })

  test("dropped if the list has no open work at delivery", () => {
    const s = Session.started()
    edits(s, 12)
    expect(s.send(request("main", ALL_DONE))).toEqual([])
    expect(s.send(request())).toEqual([])
  })
})

describe("lean guidance (mode lean, or auto with a model that plans unaided)", () => {
  const LEAN: TrackerConfig = { ...CFG, mode: "lean", eager: "always" }
  const REMIND = [{ type: "remind", kind: "reminder", text: reminderText(OPEN) }]

  test("no prelude, whatever eager says", () => {
    expect(new Session(LEAN).send(prompt("Add a login page"))).toEqual([])
  })

  test("no nudge, however many edits", () => {
    const s = Session.started(LEAN)
    edits(s, 40)
    expect(s.send(request())).toEqual([])
  })

  test("the reminder still goes out at a stop with work open, and only then", () => {
    expect(Session.started(LEAN).send(idle())).toEqual(REMIND)
    expect(Session.started(LEAN).send(idle({ list: ALL_DONE }))).toEqual([])
    expect(Session.started(LEAN).send(idle({ lastAssistantText: "Which database should we use?" }))).toEqual(
      [],
    )
  })

  test("what the user did with /todo is still told, and a resume still shows the list", () => {
    const s = Session.started(LEAN)
    s.send({ type: "userEdit", lines: ['done "Write parser"'], removed: [] })
    expect(s.send(request())).toEqual([
      {
        type: "inject",
        kind: "user-edit",
        text: noticesText({ edits: { lines: ['done "Write parser"'], removed: [], omitted: 0 } }, OPEN),
      },
    ])
    const r = new Session(LEAN)
    r.send({ type: "resumed", list: OPEN })
    expect(r.send(prompt("Carry on", { list: OPEN, isNewSession: false }))).toEqual([
      { type: "attach", kind: "resume", text: noticesText({ resumed: true }, OPEN) },
    ])
  })

  test("auto: a prompt to a model that plans unaided is lean, one to another model is not", () => {
    expect(new Session().send(prompt("Add a login page", { model: "claude-sonnet-4-5" }))).toEqual([])
    expect(new Session().send(prompt("Add a login page", { model: "claude-sonnet-4" }))).toEqual([
      { type: "attach", kind: "prelude", text: preludeText("preferred")! },
    ])
  })

  test("auto: the model of the newest prompt decides; a prompt that names none keeps the last", () => {
    const s = new Session()
    s.send(prompt("Build the thing", { list: OPEN, model: "gpt-5.1" }))
    edits(s, 12)
    expect(s.send(request())).toEqual([])
    s.send(prompt("Now the rest", { list: OPEN }))
    edits(s, 12)
    expect(s.send(request())).toEqual([])
    s.send(prompt("And the docs", { list: OPEN, model: "gpt-4.1" }))
    edits(s, 12)
    expect(s.send(request())).toEqual([
      { type: "inject", kind: "nudge", text: noticesText({ nudge: 12 }, OPEN) },
    ])
  })

  test("full: the whole guidance even for a model that plans unaided", () => {
    const s = new Session({ ...CFG, mode: "full" })
    expect(s.send(prompt("Add a login page", { model: "claude-opus-4-5" }))).toEqual([
      { type: "attach", kind: "prelude", text: preludeText("preferred")! },
    ])
  })
})

describe("completion reminder", () => {
  const REMIND = [{ type: "remind", kind: "reminder", text: reminderText(OPEN) }]

  test("sent on idle with open work, rendered from that list", () => {
    expect(Session.started().send(idle())).toEqual(REMIND)
    expect(Session.started().send(idle({ list: OPEN_LATER }))).toEqual([
      { type: "remind", kind: "reminder", text: reminderText(OPEN_LATER) },
    ])
  })

  test("not when reminders are off", () => {
    expect(Session.started({ ...CFG, reminders: false }).send(idle())).toEqual([])
  })

  test("not when remindersMax is 0", () => {
    expect(Session.started({ ...CFG, remindersMax: 0 }).send(idle())).toEqual([])
  })

  test("not without open work; blocked tasks do not count", () => {
    expect(Session.started().send(idle({ list: ALL_DONE }))).toEqual([])
    expect(Session.started().send(idle({ list: ONLY_BLOCKED }))).toEqual([])
    expect(Session.started().send(idle({ list: [] }))).toEqual([])
  })

  test("not when the agent asks the user something", () => {
    expect(Session.started().send(idle({ lastAssistantText: "Which database should we use?" }))).toEqual([])
    expect(Session.started().send(idle({ lastAssistantText: "هل أتابع؟" }))).toEqual([])
    expect(Session.started().send(idle({ lastAssistantText: "Let me know how to proceed." }))).toEqual([])
  })

  test("not when a user message is waiting", () => {
    expect(Session.started().send(idle({ userMessageWaiting: true }))).toEqual([])
  })

  test("not after an error", () => {
    expect(Session.started().send(idle({ errored: true }))).toEqual([])
  })

  test("not while a question or permission request is open", () => {
    expect(Session.started().send(idle({ openQuestion: true }))).toEqual([])
  })

  test("not after the user aborted, and not on a later idle until progress", () => {
    const s = Session.started()
    expect(s.send(idle({ aborted: true }))).toEqual([])
    expect(s.send(idle())).toEqual([])
    s.send(tool("read"))
    expect(s.send(idle())).toEqual(REMIND)
  })

  test("not for subagents, whether the prompt or the idle says so", () => {
    const s = new Session()
    s.send(prompt("Investigate", { list: OPEN, isSubagent: true }))
    expect(s.send(idle())).toEqual([])
    expect(Session.started().send(idle({ isSubagent: true }))).toEqual([])
  })

  test("a session once seen as a subagent stays one", () => {
    const s = new Session()
    s.send(prompt("Investigate", { list: OPEN, isSubagent: true }))
    s.send(prompt("More", { list: OPEN, isSubagent: false }))
    expect(s.send(idle())).toEqual([])
  })

  test("paused after a reminder until progress; a todo view or a failed call is not progress", () => {
    const s = Session.started()
    expect(s.send(idle())).toEqual(REMIND)
    expect(s.send(idle())).toEqual([])
    s.send(todo(["view"]))
    expect(s.send(idle())).toEqual([])
    s.send(tool("edit", OPEN, false))
    s.send(todo(["done"], OPEN, false))
    expect(s.send(idle())).toEqual([])
    s.send(tool("read"))
    expect(s.send(idle())).toEqual(REMIND)
  })

  test("a todo change counts as progress", () => {
    const s = Session.started()
    s.send(idle())
    s.send(todo(["block"]))
    expect(s.send(idle())).toEqual(REMIND)
  })

  test("capped at remindersMax per cycle, then silence; a real prompt resets", () => {
    const s = Session.started()
    let sent = 0
    for (let i = 0; i < 10; i++) {
      sent += s.send(idle()).length
      s.send(tool("edit"))
    }
    expect(sent).toBe(3)
    s.send(prompt("continue please", { list: OPEN }))
    expect(s.send(idle())).toEqual(REMIND)
  })

  test("a real prompt lifts the pause", () => {
    const s = Session.started()
    s.send(idle())
    s.send(prompt("go on", { list: OPEN }))
    expect(s.send(idle())).toEqual(REMIND)
  })

  test("a remind -> idle loop fed back through plugin messages stays within the cap", () => {
    for (const max of [1, 3, 5]) {
      const s = Session.started({ ...CFG, remindersMax: max })
      let sent = 0
      let pendingText: string | undefined
      for (let i = 0; i < 10; i++) {
        if (pendingText) s.send(pluginMessage(pendingText))
        s.send(request())
        s.send(tool("bash"))
        const actions = s.send(idle())
        sent += actions.length
        pendingText = actions[0]?.text
      }
      expect(sent).toBe(max)
    }
  })

  test("synthetic messages (e.g. a /todo command turn) do not reset the budget", () => {
    const s = Session.started({ ...CFG, remindersMax: 1 })
    expect(s.send(idle())).toEqual(REMIND)
    s.send({ ...prompt("x"), parts: [{ type: "text", text: "command output", synthetic: true }] })
    s.send({ ...prompt("x"), parts: [{ type: "file" }] })
    s.send(tool("read"))
    expect(s.send(idle())).toEqual([])
  })

  test("a user edit pauses reminders until the agent makes progress", () => {
    const s = Session.started()
    s.send({ type: "userEdit", lines: ['done "Add tests"'], removed: [] })
    expect(s.send(idle())).toEqual([])
    s.send(tool("read"))
    expect(s.send(idle())).toEqual([{ type: "remind", kind: "reminder", text: reminderText(OPEN) }])
  })
})

describe("resume notice", () => {
  test("delivered with the first real prompt, rendered from the list then, exactly once", () => {
    const s = new Session()
    s.send({ type: "resumed", list: OPEN })
    expect(s.send(request())).toEqual([])
    expect(s.send(pluginMessage(`${MARKER}\nx`))).toEqual([])
    expect(s.send(prompt("continue", { list: OPEN_LATER, isNewSession: false }))).toEqual([
      { type: "attach", kind: "resume", text: noticesText({ resumed: true }, OPEN_LATER) },
    ])
    expect(s.send(request("main", OPEN_LATER))).toEqual([])
    expect(s.send(prompt("and more", { list: OPEN_LATER, isNewSession: false }))).toEqual([])
  })

  test("queued for a list with only blocked tasks (they are still open)", () => {
    const s = new Session()
    s.send({ type: "resumed", list: ONLY_BLOCKED })
    expect(s.send(prompt("go", { list: ONLY_BLOCKED, isNewSession: false }))).toEqual([
      { type: "attach", kind: "resume", text: noticesText({ resumed: true }, ONLY_BLOCKED) },
    ])
  })

  test("not queued when the stored list has nothing open", () => {
    const s = new Session()
    s.send({ type: "resumed", list: ALL_DONE })
    expect(s.send(prompt("go", { list: ALL_DONE, isNewSession: false }))).toEqual([])
  })

  test("decided on the stored list: not queued if it had nothing open, even if work appears later", () => {
    const s = new Session()
    s.send({ type: "resumed", list: ALL_DONE })
    expect(s.send(prompt("go", { list: OPEN, isNewSession: false }))).toEqual([])
  })

  test("dropped when the list was emptied before delivery", () => {
    const s = new Session()
    s.send({ type: "resumed", list: OPEN })
    expect(s.send(prompt("go", { list: [], isNewSession: false }))).toEqual([])
    expect(s.send(prompt("go", { list: OPEN, isNewSession: false }))).toEqual([])
  })
})

describe("a list carried over from elsewhere (a fork, an import)", () => {
  test("the same list the conversation shows: nothing is said, and no prelude or resume notice", () => {
    const s = new Session()
    s.send({ type: "carried", list: OPEN, shown: JSON.parse(JSON.stringify(OPEN)) })
    expect(s.send(prompt("go on", { list: OPEN }))).toEqual([])
    expect(s.send(request())).toEqual([])
  })

  test("a list that differs (edits the conversation does not show): one notice with the list, then silence", () => {
    const s = new Session()
    s.send({ type: "carried", list: OPEN_LATER, shown: OPEN })
    expect(s.send(prompt("go on", { list: OPEN_LATER }))).toEqual([
      { type: "attach", kind: "carried", text: noticesText({ carried: true }, OPEN_LATER) },
    ])
    expect(s.send(request("main", OPEN_LATER))).toEqual([])
    expect(s.send(prompt("more", { list: OPEN_LATER }))).toEqual([])
  })

  test("told on the next model request when no prompt comes first", () => {
    const s = new Session()
    s.send({ type: "carried", list: OPEN, shown: [] })
    expect(s.send(request("main", OPEN))).toEqual([
      { type: "inject", kind: "carried", text: noticesText({ carried: true }, OPEN) },
    ])
  })

  test("what the conversation shows cannot be read: told, even of an empty list", () => {
    const s = new Session()
    s.send({ type: "carried", list: [], shown: null })
    const [notice] = s.send(prompt("go on", { list: [] }))
    expect(notice?.kind).toBe("carried")
    expect(notice?.text).toContain("The list is empty.")
  })

  test("no list and none shown: silent, and no prelude either (the conversation came first)", () => {
    const s = new Session()
    s.send({ type: "carried", list: [], shown: [] })
    expect(s.send(prompt("Build the thing", { list: [] }))).toEqual([])
  })
})

describe("compaction notice", () => {
  test("delivered once on the next main request, never on the compaction request", () => {
    const s = Session.started()
    s.send({ type: "compacted" })
    expect(s.send(request("compaction"))).toEqual([
      { type: "inject", kind: "compaction-context", text: compactionContextText(OPEN) },
    ])
    expect(s.send(request("main", OPEN_LATER))).toEqual([
      { type: "inject", kind: "compaction", text: noticesText({ compacted: true }, OPEN_LATER) },
    ])
    expect(s.send(request())).toEqual([])
  })

  test("not attached to a real prompt on its own", () => {
    const s = Session.started()
    s.send({ type: "compacted" })
    expect(s.send(prompt("next", { list: OPEN }))).toEqual([])
    expect(s.send(request())).toEqual([
      { type: "inject", kind: "compaction", text: noticesText({ compacted: true }, OPEN) },
    ])
  })

  test("nothing to say about an empty list", () => {
    const s = Session.started()
    s.send({ type: "compacted" })
    expect(s.send(request("compaction", []))).toEqual([])
    expect(s.send(request("main", []))).toEqual([])
    expect(s.send(request())).toEqual([])
  })

  test("with a resume also pending, one text carries the list once (main request first)", () => {
    const s = new Session()
    s.send({ type: "resumed", list: OPEN })
    s.send({ type: "compacted" })
    const actions = s.send(request())
    expect(actions).toEqual([
      { type: "inject", kind: "notices", text: noticesText({ resumed: true, compacted: true }, OPEN)! },
    ])
    expect(actions[0]!.text.split("Write parser").length).toBe(2)
    expect(s.send(prompt("go", { list: OPEN, isNewSession: false }))).toEqual([])
  })

  test("with a resume also pending, one text carries the list once (real prompt first)", () => {
    const s = new Session()
    s.send({ type: "resumed", list: OPEN })
    s.send({ type: "compacted" })
    expect(s.send(prompt("go", { list: OPEN, isNewSession: false }))).toEqual([
      { type: "attach", kind: "notices", text: noticesText({ resumed: true, compacted: true }, OPEN)! },
    ])
    expect(s.send(request())).toEqual([])
  })
})

describe("user-edit notice", () => {
  const first = { type: "userEdit", lines: ['done "Add tests"'], removed: [] } as const
  const second = { type: "userEdit", lines: ['removed "Old idea"'], removed: ["Old idea"] } as const
  const merged = { lines: ['done "Add tests"', 'removed "Old idea"'], removed: ["Old idea"], omitted: 0 }

  test("merged and delivered once on the next main request, from the current list", () => {
    const s = Session.started()
    s.send(first)
    s.send(second)
    expect(s.send(request("compaction"))).toEqual([
      { type: "inject", kind: "compaction-context", text: compactionContextText(OPEN) },
    ])
    const actions = s.send(request("main", OPEN_LATER))
    expect(actions).toEqual([
      { type: "inject", kind: "user-edit", text: noticesText({ edits: merged }, OPEN_LATER) },
    ])
    expect(actions[0]!.text).toContain("Do not recreate removed tasks")
    expect(s.send(request())).toEqual([])
  })

  test("or attached to the next real prompt, whichever comes first", () => {
    const s = Session.started()
    s.send(first)
    s.send(second)
    expect(s.send(prompt("ok", { list: OPEN }))).toEqual([
      { type: "attach", kind: "user-edit", text: noticesText({ edits: merged }, OPEN) },
    ])
    expect(s.send(request())).toEqual([])
  })

  test("not attached to plugin or synthetic messages", () => {
    const s = Session.started()
    s.send(first)
    expect(s.send(pluginMessage(`${MARKER}\nx`))).toEqual([])
    expect(s.send(request())).toHaveLength(1)
  })

  test("delivered even when the user emptied the list", () => {
    const s = Session.started()
    s.send({ type: "userEdit", lines: ["cleared the list"], removed: ["Add tests"] })
    expect(s.send(request("main", []))).toEqual([
      {
        type: "inject",
        kind: "user-edit",
        text: noticesText({ edits: { lines: ["cleared the list"], removed: ["Add tests"], omitted: 0 } }, []),
      },
    ])
  })

  test("merged edits carry removed phases apart from removed tasks", () => {
    const s = Session.started()
    s.send({ type: "userEdit", lines: ['removed phase "Later"'], removed: ["X"], removedPhases: ["Later"] })
    s.send({ type: "userEdit", lines: ['removed "Y"'], removed: ["Y"] })
    const text = s.send(request())[0]!.text
    expect(text).toContain('Do not recreate removed phases ("Later") or tasks ("X", "Y").')
  })

  test("merged edits keep only the latest lines and removed texts once", () => {
    const s = Session.started()
    for (let i = 0; i < 30; i++) s.send({ type: "userEdit", lines: [`done "T${i}"`], removed: ["Gone"] })
    const text = s.send(request())[0]!.text
    expect(text).toContain(`(${30 - EDIT_LINES_MAX} earlier changes not shown)`)
    expect(text).not.toContain('done "T9"')
    expect(text).toContain('done "T10"')
    expect(text).toContain('done "T29"')
    expect(text).toContain('Do not recreate removed tasks ("Gone").')
  })

  test("shares one text with a compaction notice and a nudge", () => {
    const s = Session.started()
    s.send({ type: "compacted" })
    s.send(first)
    edits(s, 12)
    expect(s.send(request())).toEqual([
      {
        type: "inject",
        kind: "notices",
        text: noticesText(
          { compacted: true, edits: { lines: ['done "Add tests"'], removed: [], omitted: 0 }, nudge: 12 },
          OPEN,
        )!,
        nudged: true,
      },
    ])
  })
})

describe("real prompt with several notices", () => {
  test("prelude and pending edits go out as separate attachments, each once", () => {
    const s = new Session()
    s.send({ type: "userEdit", lines: ["cleared the list"], removed: [] })
    const actions = s.send(prompt("Build a CLI"))
    expect(actions).toEqual([
      { type: "attach", kind: "prelude", text: preludeText("preferred")! },
      {
        type: "attach",
        kind: "user-edit",
        text: noticesText({ edits: { lines: ["cleared the list"], removed: [], omitted: 0 } }, []),
      },
    ])
    expect(s.send(request("main", []))).toEqual([])
  })
})

describe("an agent that may not call todo freely", () => {
  const PREFERRED = { type: "attach", kind: "prelude", text: preludeText("preferred")! }
  const denied = <E extends TrackerEvent>(event: E): E => ({ ...event, access: "deny" })
  const asking = <E extends TrackerEvent>(event: E): E => ({ ...event, access: "ask" })

  test("deny: no prelude; it waits for the first prompt to an agent that may call todo", () => {
    const s = new Session()
    expect(s.send(denied(prompt("Plan the login page")))).toEqual([])
    expect(s.send(asking(prompt("Still planning")))).toEqual([])
    expect(s.send(prompt("Now build it"))).toEqual([PREFERRED])
    expect(s.send(prompt("And the tests"))).toEqual([])
  })

  test("deny or ask: no nudge; a due one is dropped, not delivered later", () => {
    for (const gate of [denied, asking]) {
      const s = Session.started()
      edits(s, CFG.nudgeAfter)
      expect(s.send(gate(request()))).toEqual([])
      expect(s.send(request())).toEqual([])
    }
  })

  test("deny or ask: no reminder", () => {
    for (const gate of [denied, asking]) {
      const s = Session.started()
      expect(s.send(gate(idle()))).toEqual([])
      expect(s.send(idle())).toHaveLength(1)
    }
  })

  test("deny: notices wait for an agent that may call todo; ask: they go out", () => {
    const s = new Session()
    s.send({ type: "resumed", list: OPEN })
    expect(s.send(denied(prompt("go", { list: OPEN, isNewSession: false })))).toEqual([])
    expect(s.send(denied(request()))).toEqual([])
    // A resume notice rides on a real prompt, whoever the agent is.
    expect(s.send(asking(request()))).toEqual([])
    expect(s.send(asking(prompt("go on", { list: OPEN, isNewSession: false })))).toEqual([
      { type: "attach", kind: "resume", text: noticesText({ resumed: true }, OPEN) },
    ])
    s.send({ type: "userEdit", lines: ['done "Add tests"'], removed: [] })
    expect(s.send(denied(request()))).toEqual([])
    expect(s.send(request()).map((a) => a.kind)).toEqual(["user-edit"])
  })
})

describe("a prompt that asked a question", () => {
  const asked = (): Session => {
    const s = new Session()
    s.send(prompt("Where are we?", { list: OPEN }))
    return s
  }

  test("a turn that only looked (read, search, fetch, todo view) gets no reminder", () => {
    const s = asked()
    for (const name of ["read", "glob", "grep", "list", "webfetch"]) s.send(tool(name))
    s.send(todo(["view"]))
    s.send(todo(["done"], OPEN, false))
    expect(s.send(idle({ lastAssistantText: "Two of four tasks are done." }))).toEqual([])
  })

  test("a turn that did anything else is a stop with work open", () => {
    for (const last of [tool("bash"), tool("task"), todo(["done"])]) {
      const s = asked()
      s.send(tool("read"))
      s.send(last)
      expect(s.send(idle()), JSON.stringify(last)).toHaveLength(1)
    }
  })

  test("a prompt without a question mark, or a later one, is not covered", () => {
    const s = new Session()
    s.send(prompt("Where we are, please", { list: OPEN }))
    expect(s.send(idle())).toHaveLength(1)
    const t = asked()
    t.send(prompt("Carry on.", { list: OPEN }))
    expect(t.send(idle())).toHaveLength(1)
    const u = new Session()
    u.send(prompt("Where are we？ **", { list: OPEN }))
    expect(u.send(idle())).toEqual([])
  })
})

test("state stays bounded and serializable over 10,000 events", () => {
  let seed = 12345
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n
  }
  const lists = [OPEN, OPEN_LATER, ALL_DONE, ONLY_BLOCKED, []]
  const s = new Session()
  let maxSize = 0
  let actions = 0
  for (let i = 0; i < 10_000; i++) {
    const list = lists[rand(lists.length)]!
    const events: TrackerEvent[] = [
      prompt(`prompt ${i}`, { list, isNewSession: rand(2) === 0 }),
      pluginMessage(`${MARKER}\n${i}`, list),
      tool(["edit", "bash", "read", "write"][rand(4)]!, list, rand(5) !== 0),
      todo([(["view", "done", "start"] as const)[rand(3)]!], list),
      request((["main", "compaction"] as const)[rand(2)], list),
      idle({ list, aborted: rand(7) === 0 }),
      { type: "resumed", list },
      { type: "compacted" },
      { type: "userEdit", lines: [`done "task number ${i} with a longer text"`], removed: [`removed ${i}`] },
    ]
    actions += s.send(events[rand(events.length)]!).length
    const size = JSON.stringify(s.state).length
    if (size > maxSize) maxSize = size
  }
  expect(actions).toBeGreaterThan(0)
  expect(maxSize).toBeLessThan(4000)
  expect(JSON.parse(JSON.stringify(s.state))).toEqual(s.state)
})

describe("after an undo", () => {
  test("no pending notice describes a state the undo took back: user edits, compaction and a due nudge go", () => {
    const s = Session.started()
    s.send({ type: "userEdit", lines: ['done "Add tests"'], removed: [] })
    s.send({ type: "compacted" })
    edits(s, CFG.nudgeAfter)
    expect(s.state.pending.nudge).toBeGreaterThan(0)
    s.send({ type: "rewound" })
    expect(s.state.pending).toMatchObject({ compaction: false, nudge: 0, edits: null })
    expect(s.state.edits).toBe(0)
    expect(s.send(request())).toEqual([])
  })

  test("a pending resume notice stays: it shows the list as it is when it goes out", () => {
    const s = new Session()
    s.send({ type: "resumed", list: OPEN })
    s.send({ type: "rewound" })
    expect(s.send(prompt("continue", { list: OPEN_LATER, isNewSession: false }))).toEqual([
      { type: "attach", kind: "resume", text: noticesText({ resumed: true }, OPEN_LATER) },
    ])
  })

  test("an edit made after the undo is told; the reminder waits for the user", () => {
    const s = Session.started()
    s.send({ type: "rewound" })
    expect(s.send(idle())).toEqual([])
    s.send({ type: "userEdit", lines: ['removed "Deploy"'], removed: ["Deploy"] })
    const [told] = s.send(prompt("go on", { list: OPEN, isNewSession: false }))
    expect(told?.text).toContain('removed "Deploy"')
  })

  test("a redo replaces the notes of edits made while undone by what they changed when made again", () => {
    const s = Session.started()
    s.send({ type: "rewound" })
    s.send({ type: "userEdit", lines: ['blocked "Deploy" ("token")'], removed: [] })
    s.send({ type: "userEdit", lines: ['added "Docs" to "Ship" (pending)'], removed: [] })
    // The block no longer applied on the newest list: only the added task is left to tell.
    s.send({ type: "remade", redo: true, lines: ['added "Docs" to "Ship" (pending)'], removed: [] })
    const [told] = s.send(prompt("go on", { list: OPEN, isNewSession: false }))
    expect(told?.text).toContain('added "Docs"')
    expect(told?.text).not.toContain('blocked "Deploy"')
    s.send({ type: "userEdit", lines: ['removed "Docs"'], removed: ["Docs"] })
    s.send({ type: "remade", redo: true, lines: [], removed: [] })
    expect(s.state.pending.edits).toBeNull()
  })

  test("notes an undo took back come back with a redo, and are gone once a prompt commits the undo", () => {
    const drop = { type: "userEdit" as const, lines: ['removed "Deploy"'], removed: ["Deploy"] }
    const redone = Session.started()
    redone.send(drop)
    redone.send({ type: "rewound" })
    redone.send({ type: "userEdit", lines: ['added "Docs" to "Ship" (pending)'], removed: [] })
    // A second undo while undone: the notes held are the first undo's, not those made since.
    redone.send({ type: "rewound" })
    redone.send({ type: "remade", redo: true, lines: [], removed: [] })
    expect(redone.state.pending.edits?.lines).toEqual(['removed "Deploy"'])
    const committed = Session.started()
    committed.send(drop)
    committed.send({ type: "rewound" })
    const [told] = committed.send(prompt("go on", { list: OPEN, isNewSession: false }))
    expect(told?.text ?? "").not.toContain("Deploy")
    committed.send({ type: "remade", redo: true, lines: [], removed: [] })
    expect(committed.state.pending.edits).toBeNull()
    // A commit seen before its prompt (the host's removals come first) that made edits again: only those.
    const removedFirst = Session.started()
    removedFirst.send(drop)
    removedFirst.send({ type: "rewound" })
    removedFirst.send({
      type: "remade",
      redo: false,
      lines: ['added "Docs" to "Ship" (pending)'],
      removed: [],
    })
    expect(removedFirst.state.pending.edits?.lines).toEqual(['added "Docs" to "Ship" (pending)'])
  })

  test("no reminder while the undo is pending: a new turn would commit it", () => {
    const s = Session.started()
    expect(s.send(idle({ reverted: true }))).toEqual([])
    expect(s.send(idle())).toEqual([{ type: "remind", kind: "reminder", text: reminderText(OPEN) }])
  })
})
