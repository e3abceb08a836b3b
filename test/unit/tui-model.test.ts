import { describe, expect, it } from "vitest"
import { historyFrom, recordCall, recordEdit, revert } from "../../src/core/history/history.ts"
import { executeOps } from "../../src/core/list/execute.ts"
import { appendPhase } from "../../src/core/list/queries.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS, STATUSES } from "../../src/core/list/types.ts"
import {
  actionOp,
  countsText,
  editorCommand,
  errorLine,
  taskActions,
  taskEntries,
} from "../../src/core/view/dialog.ts"
import {
  clipSegments,
  displayWidth,
  lineText,
  SIDEBAR_WIDTH,
  sidebarModel,
} from "../../src/core/view/sidebar.ts"
import {
  COMMAND_PART_KEY,
  hostRevert,
  latestToolList,
  listInEffect,
  partsBefore,
  refreshTarget,
  toolPartList,
} from "../../src/core/view/tui-protocol.ts"
import { phase, task } from "../fixtures/lists.ts"

const sample: TodoList = [
  phase("Design", task("Sketch the data model", "completed"), task("Write the parser", "in_progress")),
  phase(
    "Build",
    task("Wire the sidebar"),
    task("Add the dialog", "blocked", "needs review"),
    task("Old idea", "abandoned"),
  ),
]

const texts = (list: TodoList, maxRows = 14, width = SIDEBAR_WIDTH) =>
  sidebarModel(list, { maxRows, width })!.map(lineText)

describe("sidebarModel", () => {
  it("is undefined for an empty list", () => {
    expect(sidebarModel([], { maxRows: 10 })).toBeUndefined()
  })

  it("shows the header, phases with counts, and open tasks with glyphs and blockers", () => {
    expect(texts(sample)).toEqual([
      "Todo  2/5 done, 1 blocked",
      "Design 1/2",
      "  ▶ Write the parser",
      "Build 1/3",
      "  ○ Wire the sidebar",
      "  ⊘ Add the dialog — needs review",
    ])
  })

  it("gives each status its own tone, the blocker muted and the header's blocked count as an error", () => {
    const lines = sidebarModel(sample, { maxRows: 14 })!
    expect(lines[0]!.segments).toEqual([
      { text: "Todo", tone: "title" },
      { text: "  2/5 done", tone: "muted" },
      { text: ", 1 blocked", tone: "error" },
    ])
    expect(lines[2]!.segments).toEqual([{ text: "  ▶ Write the parser", tone: "in_progress" }])
    expect(lines[4]!.segments).toEqual([{ text: "  ○ Wire the sidebar", tone: "pending" }])
    expect(lines[5]!.segments).toEqual([
      { text: "  ⊘ Add the dialog", tone: "blocked" },
      { text: " — needs review", tone: "muted" },
    ])
  })

  it("marks the active phase in the text tone and the others muted", () => {
    const lines = sidebarModel(sample, { maxRows: 14 })!
    expect(lines[1]!.segments[0]).toEqual({ text: "Design", tone: "text" })
    expect(lines[3]!.segments[0]).toEqual({ text: "Build", tone: "muted" })
  })

  it("keeps within the row budget and says what it hides", () => {
    const many: TodoList = [phase("Work", ...["a", "b", "c", "d", "e", "f"].map((t) => task(t)))]
    const lines = texts(many, 5)
    expect(lines).toEqual(["Todo  0/6 done", "Work 0/6", "  ○ a", "  ○ b", "    … 4 more"])
    expect(lines).toHaveLength(5)
  })

  it("cuts long rows to the width with an ellipsis", () => {
    const long: TodoList = [phase("P", task("x".repeat(60), "in_progress"))]
    const row = sidebarModel(long, { maxRows: 14, width: 20 })![2]!
    expect(lineText(row)).toBe(`  ▶ ${"x".repeat(15)}…`)
    expect(displayWidth(lineText(row))).toBe(20)
    expect(row.segments).toEqual([{ text: `  ▶ ${"x".repeat(15)}…`, tone: "in_progress" }])
  })

  it("counts wide characters as two columns", () => {
    const wide: TodoList = [phase("P", task("漢字漢字漢字漢字漢字漢字", "in_progress"))]
    const row = lineText(sidebarModel(wide, { maxRows: 14, width: 12 })![2]!)
    expect(row).toBe("  ▶ 漢字漢…")
    expect(displayWidth(row)).toBeLessThanOrEqual(12)
  })
})

describe("clipSegments", () => {
  it("leaves fitting segments alone, dropping empty ones", () => {
    expect(
      clipSegments(
        [
          { text: "ab", tone: "text" },
          { text: "", tone: "muted" },
        ],
        5,
      ),
    ).toEqual([{ text: "ab", tone: "text" }])
  })

  it("ends the cut in the tone of the segment it falls in", () => {
    expect(
      clipSegments(
        [
          { text: "abc", tone: "text" },
          { text: " defgh", tone: "muted" },
        ],
        6,
      ),
    ).toEqual([
      { text: "abc", tone: "text" },
      { text: " d…", tone: "muted" },
    ])
  })

  it("trims the space before the ellipsis", () => {
    expect(clipSegments([{ text: "abcd efgh", tone: "text" }], 6)).toEqual([{ text: "abcd…", tone: "text" }])
  })
})

describe("dialog entries", () => {
  it("lists every task in order under its phase, with its status or blocker", () => {
    expect(taskEntries(sample)).toEqual([
      {
        title: "✓ Sketch the data model",
        text: "Sketch the data model",
        status: "completed",
        category: "Design 1/2",
        description: "done",
      },
      {
        title: "▶ Write the parser",
        text: "Write the parser",
        status: "in_progress",
        category: "Design 1/2",
        description: "in progress",
      },
      {
        title: "○ Wire the sidebar",
        text: "Wire the sidebar",
        status: "pending",
        category: "Build 1/3",
        description: "pending",
      },
      {
        title: "⊘ Add the dialog",
        text: "Add the dialog",
        status: "blocked",
        category: "Build 1/3",
        description: "blocked: needs review",
      },
      {
        title: "✗ Old idea",
        text: "Old idea",
        status: "abandoned",
        category: "Build 1/3",
        description: "dropped",
      },
    ])
  })

  it("summarises counts", () => {
    expect(countsText(sample)).toBe("2/5 done, 1 blocked")
    expect(countsText([])).toBe("empty")
    expect(countsText([phase("Empty")])).toBe("empty")
  })

  it("offers per status only actions the engine accepts", () => {
    expect(taskActions("pending").map((a) => a.action)).toEqual(["start", "done", "block", "drop", "rm"])
    expect(taskActions("in_progress").map((a) => a.action)).toEqual(["done", "block", "drop", "rm"])
    expect(taskActions("blocked").map((a) => a.action)).toEqual([
      "unblock",
      "start",
      "done",
      "block",
      "drop",
      "rm",
    ])
    expect(taskActions("completed").map((a) => a.action)).toEqual(["start", "rm"])
    expect(taskActions("abandoned").map((a) => a.action)).toEqual(["start", "done", "rm"])
    for (const status of STATUSES) {
      const list: TodoList = [
        phase("P", task("other", "in_progress"), task("t", status, status === "blocked" ? "why" : undefined)),
      ]
      for (const { action } of taskActions(status)) {
        const result = executeOps(list, [actionOp(action, "t", "because")], DEFAULT_LIMITS)
        expect(result.ok, `${action} on ${status}`).toBe(true)
      }
    }
  })

  it("builds ops for actions, with a trimmed reason or none", () => {
    expect(actionOp("done", "t")).toEqual({ op: "done", target: { kind: "task", text: "t" } })
    expect(actionOp("block", "t", "  waiting  ")).toEqual({
      op: "block",
      target: { kind: "task", text: "t" },
      reason: "waiting",
    })
    expect(actionOp("block", "t", "   ")).toEqual({ op: "block", target: { kind: "task", text: "t" } })
    expect(actionOp("rm", "t")).toEqual({ op: "rm", target: { kind: "task", text: "t" } })
  })

  it("appends to the phase in progress, else the last one", () => {
    expect(appendPhase(sample)).toBe("Design")
    expect(appendPhase([phase("A", task("a")), phase("B", task("b"))])).toBe("B")
    expect(appendPhase([])).toBe("Tasks")
  })
})

describe("small parsers", () => {
  it("reads the line a Markdown error names", () => {
    expect(errorLine('Line 12: unknown status mark "[?]"')).toBe(12)
    expect(errorLine("Too many tasks")).toBeUndefined()
  })

  it("picks $VISUAL, then $EDITOR, then vi, split on spaces", () => {
    expect(editorCommand({ VISUAL: "code --wait", EDITOR: "nano" })).toEqual(["code", "--wait"])
    expect(editorCommand({ VISUAL: "  ", EDITOR: "nano -w" })).toEqual(["nano", "-w"])
    expect(editorCommand({})).toEqual(["vi"])
  })

  it("recognises the server's refresh notifications only", () => {
    expect(refreshTarget("opencode-todo.refresh")).toEqual({ all: true })
    expect(refreshTarget("opencode-todo.changed:ses_1")).toEqual({ session: "ses_1" })
    expect(refreshTarget("opencode-todo.changed:")).toEqual({ all: true })
    expect(refreshTarget("session.new")).toBeUndefined()
    expect(refreshTarget(undefined)).toBeUndefined()
  })

  it("takes the list of the newest completed todo tool part", () => {
    const done = (list: unknown) => ({
      type: "tool",
      tool: "todo",
      state: { status: "completed", metadata: { ok: true, list } },
    })
    const parts = [
      done(["first"]),
      { type: "text", text: "hi" },
      done(["second"]),
      { type: "tool", tool: "todo", state: { status: "running", input: {} } },
      { type: "tool", tool: "bash", state: { status: "completed", metadata: { list: ["not ours"] } } },
      { type: "tool", tool: "todo", state: { status: "error", error: "x" } },
    ]
    expect(latestToolList(parts)).toEqual(["second"])
    const command = { type: "text", text: "…", metadata: { [COMMAND_PART_KEY]: { list: ["from command"] } } }
    expect(latestToolList([...parts, command])).toEqual(["from command"])
    expect(latestToolList([command, ...parts])).toEqual(["second"])
    expect(toolPartList({ type: "text", text: "plain" })).toBeUndefined()
    expect(toolPartList({ type: "text", text: "x", metadata: { other: { list: [] } } })).toBeUndefined()
    expect(latestToolList([])).toBeUndefined()
    expect(toolPartList(null)).toBeUndefined()
    expect(toolPartList({ type: "tool", tool: "todo", state: { status: "completed", metadata: {} } })).toBe(
      undefined,
    )
  })

  it("reads the revert point from a session's info, and nothing from a session not reverted", () => {
    expect(hostRevert({ id: "ses_1", revert: { messageID: "msg_2", snapshot: "x", diff: "" } })).toEqual({
      message: "msg_2",
    })
    expect(hostRevert({ revert: { messageID: "msg_2", partID: "prt_5" } })).toEqual({
      message: "msg_2",
      part: "prt_5",
    })
    expect(hostRevert({ revert: { messageID: "msg_2", partID: "" } })).toEqual({ message: "msg_2" })
    for (const info of [
      { id: "ses_1" },
      { revert: null },
      { revert: { messageID: 3 } },
      { revert: {} },
      null,
      "x",
    ])
      expect(hostRevert(info)).toBeUndefined()
  })

  it("keeps the parts strictly before a revert point, at a message or at a part", () => {
    const part = (id: string) => ({ id, type: "text", text: id })
    const messages = [
      { id: "msg_1", parts: [part("prt_1")] },
      { id: "msg_2", parts: [part("prt_2"), part("prt_3"), part("prt_4")] },
      { id: "msg_3", parts: [part("prt_5")] },
    ]
    const ids = (parts: unknown[]) => parts.map((p) => (p as { id: string }).id)
    expect(ids(partsBefore(messages))).toEqual(["prt_1", "prt_2", "prt_3", "prt_4", "prt_5"])
    expect(ids(partsBefore(messages, { message: "msg_2" }))).toEqual(["prt_1"])
    expect(ids(partsBefore(messages, { message: "msg_2", part: "prt_4" }))).toEqual([
      "prt_1",
      "prt_2",
      "prt_3",
    ])
    expect(ids(partsBefore(messages, { message: "msg_1" }))).toEqual([])
    // A point between stored messages (its message already gone) still cuts by id order.
    expect(ids(partsBefore(messages, { message: "msg_25" }))).toEqual(["prt_1", "prt_2", "prt_3", "prt_4"])
  })
})

describe("the list in effect under the host's revert", () => {
  const planned = [phase("Build", task("Parse", "in_progress"), task("Old idea"), task("Ship"))]
  const newest = [phase("Build", task("Parse", "completed"), task("Ship", "in_progress"))]
  const done = (text: string) => ({ op: "done" as const, target: { kind: "task" as const, text } })
  // Two todo calls: the plan, then Parse done and Old idea removed, in the second assistant message.
  const calls = recordCall(
    recordCall(historyFrom([]), { message: "msg_2", part: "prt_2", callID: "c1" }, planned).history,
    { message: "msg_4", part: "prt_4", callID: "c2" },
    newest,
  ).history
  const limits = DEFAULT_LIMITS
  const second = { message: "msg_3" }

  it("is the newest list while the host has the session not reverted", () => {
    expect(listInEffect(calls, undefined, false, limits)).toEqual(newest)
  })

  it("is the list before the host's revert point at once, whether or not the server recorded the revert yet", () => {
    expect(listInEffect(calls, second, false, limits)).toEqual(planned)
    expect(listInEffect(revert(calls, second).history, second, false, limits)).toEqual(planned)
    expect(listInEffect(calls, { message: "msg_4", part: "prt_4" }, false, limits)).toEqual(planned)
    expect(listInEffect(calls, { message: "msg_1" }, false, limits)).toEqual([])
    // Undo twice: the host's newer point wins over the one the server recorded.
    expect(listInEffect(revert(calls, { message: "msg_1" }).history, second, false, limits)).toEqual(planned)
  })

  it("keeps an edit made while reverted in view; redo makes it again on the newest list, a commit keeps the view", () => {
    const reverted = revert(calls, second).history
    const edited = executeOps(planned, [done("Ship")], limits)
    if (!edited.ok) throw new Error(edited.error)
    const withEdit = recordEdit(reverted, { ops: [done("Ship")] }, edited.list).history
    expect(listInEffect(withEdit, second, false, limits)).toEqual(edited.list)
    // Redo: the newest list with Ship done again on it; nothing dropped.
    const redone = listInEffect(withEdit, undefined, false, limits)
    expect(redone[0]!.tasks.find((t) => t.text === "Ship")?.status).toBe("completed")
    expect(redone[0]!.tasks.some((t) => t.text === "Old idea")).toBe(false)
    // Commit: the states after the point are gone; the edit stays.
    expect(listInEffect(withEdit, undefined, true, limits)).toEqual(edited.list)
  })

  it("on redo, drops an edit made while reverted on a task the newest list no longer has", () => {
    const reverted = revert(calls, second).history
    const edited = executeOps(planned, [done("Old idea")], limits)
    if (!edited.ok) throw new Error(edited.error)
    const withEdit = recordEdit(reverted, { ops: [done("Old idea")] }, edited.list).history
    expect(listInEffect(withEdit, second, false, limits)).toEqual(edited.list)
    expect(listInEffect(withEdit, undefined, false, limits)).toEqual(newest)
  })
})
