// The demo's printed story (scripts/lib/demo-story.ts) and its checks (demo-checks.ts): the demo's own
// script stepped through the core, the user's edit made through the dialog's path on a real store,
// then told as the demo tells it. The story's steps come in order, no step prints the list twice, no
// two sidebar frames in a row are the same, and the checks themselves catch each of those faults. The
// run against the real host is `npm run demo`, which applies the same checks to what it printed.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { framesOf, storyProblems } from "../../scripts/lib/demo-checks.ts"
import {
  COLOUR,
  callText,
  closingLines,
  frameLines,
  itemOfPart,
  LABELS,
  PLACEHOLDER,
  PLAIN,
  plainText,
  printable,
  START,
  type StoryItem,
  tell,
  v2PartReader,
  withoutList,
} from "../../scripts/lib/demo-story.ts"
import { dialogAction } from "../../scripts/lib/demo-user.ts"
import {
  DEMO_AFTER_REMINDER,
  DEMO_FIRST,
  DEMO_PLAN,
  DEMO_USER_DROPS,
  decide,
} from "../../scripts/lib/scenarios.mjs"
import { STORED_LIMITS } from "../../src/core/config.ts"
import { execute } from "../../src/core/list/execute.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { formatOutcome } from "../../src/core/model/format.ts"
import { noticesText, reminderText } from "../../src/core/model/prompts.ts"
import { createStore } from "../../src/store/store.ts"

const TASKS = DEMO_PLAN.flatMap((p) => p.items)
const PHASES = DEMO_PLAN.map((p) => p.phase)
const SESSION = "ses_demo"

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/**
 * The demo's session as story items, stepped through the core instead of the host: each todo call
 * runs on the stored list, the user drops a task through the dialog's path after the second todo
 * result, the next request carries the notice, and the reminder follows the first stop.
 */
async function simulatedStory(typed?: string): Promise<{ items: StoryItem[]; outputs: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), "demo-story-"))
  dirs.push(dir)
  const store = createStore({ dir, parse: (raw) => parseSnapshot(raw, STORED_LIMITS), warn: () => {} })
  const items: StoryItem[] = [{ kind: "user", text: "The parser crashes on empty input. Please fix it." }]
  const outputs: string[] = []
  let list: TodoList = []
  let todoResults = 0
  let notice: string | undefined
  const play = async (reply: (typeof DEMO_FIRST)[number]) => {
    if (notice) {
      items.push({ kind: "notice", text: notice })
      notice = undefined
    }
    if ("text" in reply) return items.push({ kind: "assistant", text: reply.text })
    for (const call of reply.toolCalls) {
      if (call.name !== "todo") {
        items.push({ kind: "tool", tool: call.name, input: call.args, output: "" })
        continue
      }
      const outcome = execute(list, call.args)
      const output = formatOutcome(list, outcome)
      if (outcome.ok) list = outcome.list
      await store.update(SESSION, (current) => ({ next: { ...current, list } }))
      outputs.push(output)
      items.push({ kind: "todo", input: call.args, output, list })
      todoResults++
      if (todoResults === 2) {
        const edit = await dialogAction({ dir, session: SESSION, task: DEMO_USER_DROPS, action: "drop" })
        list = edit.list
        items.push({
          kind: "user-edit",
          action: edit.action,
          task: DEMO_USER_DROPS,
          ...(typed === undefined ? {} : { typed }),
          toast: edit.toasts.map((t) => t.message).join("\n"),
          list,
        })
        const stored = await store.read(SESSION)
        const note = stored.edits[0] as { lines: string[]; removed: string[] }
        notice = noticesText({ edits: { lines: note.lines, removed: note.removed, omitted: 0 } }, list)
      }
    }
  }
  for (const reply of DEMO_FIRST) await play(reply)
  items.push({ kind: "reminder", text: reminderText(list) })
  for (const reply of DEMO_AFTER_REMINDER) await play(reply)
  return { items, outputs }
}

function told(items: readonly StoryItem[], paint = PLAIN): string[] {
  let state = START
  const lines: string[] = []
  for (const item of items) {
    const step = tell(state, item, paint)
    state = step.state
    lines.push(...step.lines)
  }
  return lines
}

/** The story told; on OpenCode 2 (`host` "2") the user's drop is typed and run over RPC. */
async function fullStory(paint = PLAIN, host: "1" | "2" = "1"): Promise<string> {
  const { items, outputs } = await simulatedStory(host === "2" ? `drop "${DEMO_USER_DROPS}"` : undefined)
  const closing = closingLines(
    { mainRequests: 11, titleRequests: 1, reminders: 1, todoOutputs: outputs },
    host,
  )
  return [...told(items, paint), ...closing].join("\n")
}

describe("the demo's story", () => {
  it("tells every step in order, prints each list once and never repeats a sidebar frame", async () => {
    const text = await fullStory()
    expect(storyProblems(text, TASKS, PHASES)).toEqual([])
    // One frame per change the user can see: the plan, four closed tasks and the user's drop.
    expect(framesOf(text.split("\n"))).toHaveLength(6)
  })

  it("shows the user's drop, its toast, and the notice the model gets for it", async () => {
    const text = await fullStory()
    expect(text).toContain(`${LABELS.edit} "${DEMO_USER_DROPS}" → Drop`)
    expect(text).toMatch(/toast: "Update the changelog": pending → dropped\n\s+Now 1\/4 done · 1 dropped\./)
    // The last frame: all the work that stayed is done, the dropped task apart.
    expect(framesOf(text.split("\n")).at(-1)).toMatch(/^│ 4\/4 done · 1 dropped +│\n/)
    const notice = text.slice(text.indexOf(LABELS.notice))
    expect(notice).toContain("The user changed the todo list")
    expect(notice.split("\n").filter((l) => l.includes(DEMO_USER_DROPS)).length).toBe(1)
  })

  it("explains the markers once, before the first sidebar", async () => {
    const lines = (await fullStory()).split("\n")
    const legend = lines.filter((l) => l.includes("✓ done") && l.includes("▶ in progress"))
    expect(legend).toHaveLength(1)
    expect(lines.indexOf(legend[0]!)).toBeLessThan(lines.findIndex((l) => l.trim().startsWith("┌")))
  })

  it("ends with the figures and the install command", async () => {
    const text = await fullStory()
    const figures = text.slice(text.indexOf(LABELS.figures))
    expect(figures).toContain("model requests: 11 (plus 1 title request)")
    expect(figures).toContain("reminders: 1")
    expect(figures).toMatch(/todo results the model read: 5 calls, \d+ characters/)
    expect(figures).toContain("npm run install-plugin")
  })

  it("passes the same checks on OpenCode 2, where the drop is typed and ends with that host's install", async () => {
    const text = await fullStory(PLAIN, "2")
    expect(storyProblems(text, TASKS, PHASES)).toEqual([])
    expect(text).toContain(`${LABELS.typed} /todo drop "${DEMO_USER_DROPS}"`)
    expect(text).not.toContain(LABELS.edit)
    expect(text).toMatch(/toast: "Update the changelog": pending → dropped/)
    expect(text.slice(text.indexOf(LABELS.next))).toMatch(/^Next step: npm run install-plugin -- --host=2\n/)
  })

  it("paints the same text on a terminal", async () => {
    const coloured = await fullStory(COLOUR)
    expect(coloured).toContain("\u001b[")
    expect(plainText(coloured)).toBe(await fullStory())
  })
})

describe("the story's checks catch what they check", () => {
  it("a story without the user's edit is reported", async () => {
    const text = (await fullStory())
      .split("\n")
      .filter((line) => !line.includes(LABELS.edit))
      .join("\n")
    expect(storyProblems(text, TASKS, PHASES)).toContain(
      'step "the user edits the list" is missing or out of order',
    )
  })

  const list = execute([], { list: DEMO_PLAN }) as { ok: true; list: TodoList }

  it("a call that prints the list as text and as a sidebar is reported", () => {
    const output = formatOutcome([], execute([], { list: DEMO_PLAN }))
    const text = [
      `  ${LABELS.tool} todo init`,
      ...output.split("\n"),
      ...frameLines(list.list),
      LABELS.figures,
    ].join("\n")
    expect(storyProblems(text, TASKS, PHASES).join("\n")).toMatch(/prints the list twice/)
  })

  it("two identical frames in a row are reported", () => {
    const text = [
      `  ${LABELS.tool} todo init`,
      ...frameLines(list.list),
      `  ${LABELS.tool} todo view`,
      ...frameLines(list.list),
    ].join("\n")
    expect(storyProblems(text, TASKS, PHASES)).toContain("sidebar frame 2 is the same as the one before it")
  })

  it("steps out of order are reported", async () => {
    const text = await fullStory()
    const reminderAt = text.indexOf(LABELS.reminder)
    const swapped = text.slice(reminderAt) + text.slice(0, reminderAt)
    expect(storyProblems(swapped, TASKS, PHASES).join("\n")).toMatch(/out of order/)
  })

  it("a second tell of an unchanged list prints no frame", () => {
    const item: StoryItem = { kind: "todo", input: { op: "view" }, output: "x", list: list.list }
    const first = tell(START, item)
    const second = tell(first.state, item)
    expect(framesOf(first.lines)).toHaveLength(1)
    expect(framesOf(second.lines)).toHaveLength(0)
  })
})

describe("the story's pieces", () => {
  it("folds the list's own lines out of a tool result", () => {
    const result = execute([], { list: DEMO_PLAN })
    const folded = withoutList(formatOutcome([], result), result.ok ? result.list : []).split("\n")
    expect(folded[0]).toBe(PLACEHOLDER)
    expect(folded.join("\n")).not.toContain("Investigate")
    // The summary and the marks' legend stay: the model reads them beside the list.
    expect(folded.slice(-2).join("\n")).toMatch(/0\/5 done\.\nMarks: /)
  })

  it("writes each call in one short line", () => {
    expect(callText({ list: DEMO_PLAN })).toBe("init: 3 phases, 5 tasks")
    expect(callText({ op: "done", task: "A" })).toBe('done "A"')
    expect(
      callText({
        ops: [
          { op: "done", task: "A" },
          { op: "block", task: "B", reason: "why" },
        ],
      }),
    ).toBe('done "A", block "B" (why)')
    expect(callText({ op: "append", phase: "Fix", items: ["a", "b"] })).toBe('append 2 tasks in "Fix"')
  })

  it("never prints a control character it was given", () => {
    expect(printable("a\u001b[31mb\u0007")).toBe("a [31mb ")
    const { lines } = tell(START, { kind: "assistant", text: "hi\u001b]0;title\u0007" })
    expect(lines.join("")).not.toMatch(/[\u001b\u0007]/)
  })

  it("reads finished parts and skips the rest", () => {
    expect(itemOfPart({ type: "tool", tool: "todo", state: { status: "running" } })).toBeUndefined()
    expect(itemOfPart({ type: "text", text: "the user's prompt" })).toBeUndefined()
    expect(itemOfPart({ type: "text", text: "done", time: { end: 1 } })).toEqual({
      kind: "assistant",
      text: "done",
    })
    const reminder = reminderText([{ name: "P", tasks: [{ text: "A", status: "pending" }] }])
    expect(itemOfPart({ type: "text", text: reminder, synthetic: true })?.kind).toBe("reminder")
    const todo = itemOfPart({
      type: "tool",
      tool: "todo",
      state: { status: "completed", input: { op: "view" }, output: "out", metadata: { list: [] } },
    })
    expect(todo).toEqual({ kind: "todo", input: { op: "view" }, output: "out", list: [] })
    expect(itemOfPart({ type: "tool", tool: "bash", state: { status: "error", error: "boom" } })).toEqual({
      kind: "tool",
      tool: "bash",
      input: undefined,
      output: "boom",
    })
  })

  // Recorded from OpenCode 2.0.15's /api/event stream (the fields the reader uses).
  it("reads OpenCode 2's events as the parts it tells", () => {
    const read = v2PartReader("ses_a")
    const event = (type: string, data: Record<string, unknown>) =>
      read({ type, data: { sessionID: "ses_a", ...data } })
    expect(event("session.tool.input.started", { id: "call_1", name: "todo" })).toBeUndefined()
    expect(
      event("session.tool.called", { id: "call_1", input: { op: "view" }, executed: false }),
    ).toBeUndefined()
    const list = [{ name: "P", tasks: [{ text: "A", status: "pending" as const }] }]
    const done = event("session.tool.success", {
      id: "call_1",
      content: [{ type: "text", text: "out" }],
      metadata: { title: "t", ok: true, list },
    })
    expect(done?.callID).toBe("call_1")
    expect(itemOfPart(done!)).toEqual({ kind: "todo", input: { op: "view" }, output: "out", list })
    event("session.tool.input.started", { id: "call_2", name: "bash" })
    const failed = event("session.tool.failed", {
      id: "call_2",
      error: { type: "tool.execution", message: "No tool" },
    })
    expect(itemOfPart(failed!)).toEqual({ kind: "tool", tool: "bash", input: undefined, output: "No tool" })
    expect(itemOfPart(event("session.text.ended", { ordinal: 0, text: "done" })!)).toEqual({
      kind: "assistant",
      text: "done",
    })
    const reminder = reminderText(list)
    const queued = event("session.inbox.enqueued", {
      inboxID: "msg_1",
      item: { type: "synthetic", payload: { text: reminder }, delivery: "steer" },
    })
    expect(itemOfPart(queued!)).toEqual({ kind: "reminder", text: reminder })
    // The user's own prompt, another session's events, and events the story does not tell.
    expect(
      event("session.inbox.enqueued", { item: { type: "user", payload: { text: "hi" } } }),
    ).toBeUndefined()
    expect(read({ type: "session.text.ended", data: { sessionID: "ses_b", text: "x" } })).toBeUndefined()
    expect(event("session.step.ended", { finish: "stop" })).toBeUndefined()
  })

  it("calls the shell the host offers: bash on 1.18, shell (command only) on OpenCode 2", () => {
    const body = { messages: [{ role: "user", content: "scenario:demo fix it" }] }
    const first = (toolNames: string[]) =>
      decide(body, { kind: "main", toolNames, toolResults: [{ id: "c1", name: "todo" }], userCount: 1 })
    expect(first(["bash", "todo"])).toEqual(DEMO_FIRST[1])
    expect(first(["shell", "todo"])).toEqual({
      toolCalls: [{ name: "shell", args: { command: "echo 'parse(\"\") -> TypeError'" } }],
    })
  })
})
