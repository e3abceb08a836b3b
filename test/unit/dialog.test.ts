import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { executeOps } from "../../src/core/list/execute.ts"
import { importMarkdown } from "../../src/core/list/import.ts"
import { parseMarkdown, renderMarkdown } from "../../src/core/list/markdown.ts"
import { appendPhase } from "../../src/core/list/queries.ts"
import { displayWidth } from "../../src/core/list/text-width.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS, STATUSES } from "../../src/core/list/types.ts"
import {
  actionOp,
  changeToast,
  copyConfirmation,
  copyFollowUp,
  copySentText,
  countsText,
  DIALOG_ROW_WIDTH,
  editorCommand,
  errorLine,
  importDecision,
  LIST_CATEGORY,
  MENU,
  mainOptions,
  mainTitle,
  phaseHeading,
  saveDecision,
  taskActions,
  taskEntries,
} from "../../src/core/view/dialog.ts"
import { phase, task } from "../fixtures/lists.ts"

const opened: TodoList = [phase("Build", task("Write the parser", "in_progress"), task("Wire the sidebar"))]
// The agent finished the parser while the editor was open.
const agentChanged: TodoList = [
  phase("Build", task("Write the parser", "completed"), task("Wire the sidebar")),
]
const parsed = (list: TodoList) => parseMarkdown(renderMarkdown(list), DEFAULT_LIMITS)

describe("saveDecision", () => {
  it("an unchanged save while the list changed meanwhile changes nothing and keeps the other change", () => {
    const decision = saveDecision({ opened, current: agentChanged, edited: parsed(opened) })
    expect(decision.kind).toBe("unchanged")
    expect(decision).toMatchObject({
      toast: { variant: "info", message: expect.stringContaining("keeps that update") },
    })
  })

  it("an unchanged save of an unchanged list says only that nothing changed", () => {
    expect(saveDecision({ opened, current: opened, edited: parsed(opened) })).toEqual({
      kind: "unchanged",
      toast: { variant: "info", message: "No changes." },
    })
  })

  it("a save equal to what the list became meanwhile changes nothing", () => {
    expect(saveDecision({ opened, current: agentChanged, edited: parsed(agentChanged) }).kind).toBe(
      "unchanged",
    )
  })

  it("a real edit over a list that changed meanwhile asks before replacing it", () => {
    const mine: TodoList = [
      phase("Build", task("Write the parser", "in_progress"), task("Wire the sidebar", "completed")),
    ]
    const decision = saveDecision({ opened, current: agentChanged, edited: parsed(mine) })
    expect(decision.kind).toBe("confirm")
    expect(decision).toMatchObject({
      confirm: {
        title: "The list changed meanwhile",
        message: expect.stringContaining("undoes the other change"),
      },
    })
  })

  it("a real edit of an unchanged list saves", () => {
    const mine: TodoList = [phase("Build", task("Write the parser", "completed"), task("Wire the sidebar"))]
    expect(saveDecision({ opened, current: opened, edited: parsed(mine) })).toEqual({
      kind: "save",
      headline: "Saved your edit.",
    })
  })

  it("a save that does not parse names the line and offers to reopen", () => {
    const edited = parseMarkdown(`${renderMarkdown(opened)}- [?] not a status\n`, DEFAULT_LIMITS)
    expect(edited.ok).toBe(false)
    const decision = saveDecision({ opened, current: opened, edited })
    expect(decision.kind).toBe("reopen")
    if (decision.kind !== "reopen") return
    expect(decision.confirm.title).toMatch(/^Line \d+ of your edit has an error$/)
    expect(decision.confirm.message).toMatch(/Reopen the editor to fix it\?$/)
    expect(decision.toast.variant).toBe("error")
  })
})

describe("importDecision", () => {
  const imported = (list: TodoList) => importMarkdown(renderMarkdown(list), DEFAULT_LIMITS)

  it("applies at once into an empty list", () => {
    expect(importDecision([], imported(opened), "TODO.md")).toEqual({ kind: "apply" })
    expect(importDecision([phase("Empty")], imported(opened), "TODO.md")).toEqual({ kind: "apply" })
  })

  it("changes nothing when the file holds the list as it is", () => {
    expect(importDecision(opened, imported(opened), "TODO.md").kind).toBe("same")
  })

  it("asks before replacing a different list, with both counts", () => {
    expect(importDecision(opened, imported(agentChanged), "TODO.md")).toEqual({
      kind: "confirm",
      confirm: {
        title: "Replace the list?",
        message: "Replace the current list (0/2 done) with TODO.md (1/2 done)?",
      },
    })
  })

  it("asks before a file with no tasks that is not an export clears the list", () => {
    expect(importDecision(opened, importMarkdown("# My notes\n", DEFAULT_LIMITS), "NOTES.md")).toEqual({
      kind: "confirm",
      confirm: {
        title: "Clear the list?",
        message: "NOTES.md has no tasks and is not a todo export. Clear the current list (0/2 done)?",
      },
    })
  })

  it("with a typed --force, a file with no tasks is an import like any other: it asks to replace", () => {
    const forced = importMarkdown("# My notes\n", DEFAULT_LIMITS, { force: true })
    expect(importDecision(opened, forced, "NOTES.md")).toMatchObject({
      kind: "confirm",
      confirm: { title: "Replace the list?" },
    })
  })

  it("applies a file with no tasks at once when the list has none to lose", () => {
    expect(importDecision([], importMarkdown("", DEFAULT_LIMITS), "TODO.md")).toEqual({ kind: "apply" })
  })

  it("refuses a file that does not parse, naming the line and not the file's text", () => {
    const decision = importDecision(opened, importMarkdown("TOKEN=SECRET123\n", DEFAULT_LIMITS), ".env")
    expect(decision).toEqual({
      kind: "refused",
      toast: {
        variant: "error",
        message: expect.stringMatching(/^\.env: Line 1: .*The list was not changed\.$/),
      },
    })
    expect(JSON.stringify(decision)).not.toContain("SECRET123")
  })
})

describe("changeToast", () => {
  it("a single-task action says the change once, then the counts", () => {
    expect(changeToast({ lines: ['"Wire the sidebar": pending → done'], list: agentChanged })).toEqual({
      variant: "success",
      message: '"Wire the sidebar": pending → done\nNow 1/2 done.',
    })
  })

  it("a whole-list change leads with its headline and caps the lines", () => {
    const lines = ["a", "b", "c", "d", "e"]
    expect(changeToast({ lines, list: opened, headline: "Saved your edit." }).message).toBe(
      "Saved your edit.\na\nb\nc\n… and 2 more\nNow 0/2 done.",
    )
  })

  it("a change that changed nothing says so", () => {
    expect(changeToast({ lines: [], list: opened })).toEqual({
      variant: "info",
      message: "Nothing changed.\nNow 0/2 done.",
    })
  })
})

describe("the main dialog", () => {
  it("lists the list actions first, typed, then every task by phase", () => {
    const options = mainOptions(opened)
    expect(options.slice(0, MENU.length).map((o) => [o.category, o.value])).toEqual(
      MENU.map((m) => [LIST_CATEGORY, { kind: "menu", item: m.item }]),
    )
    expect(options.slice(MENU.length).map((o) => o.value)).toEqual([
      { kind: "task", text: "Write the parser" },
      { kind: "task", text: "Wire the sidebar" },
    ])
  })

  it("keeps the actions within the first rows the host shows at 50 lines, even with 40 tasks", () => {
    const many: TodoList = [phase("Big", ...Array.from({ length: 40 }, (_, i) => task(`Task ${i + 1}`)))]
    const options = mainOptions(many)
    // Rows: the List heading and its entries come first; 19 rows are visible at 50 lines.
    const listRows = 1 + options.filter((o) => o.category === LIST_CATEGORY).length
    expect(options.findIndex((o) => o.category !== LIST_CATEGORY)).toBe(MENU.length)
    expect(listRows).toBeLessThanOrEqual(19)
  })

  it("cuts long task rows with … and keeps the status word whole", () => {
    const long: TodoList = [
      phase("P", task("x".repeat(120), "in_progress"), task("y".repeat(120), "blocked", "z".repeat(80))),
    ]
    for (const entry of taskEntries(long)) {
      expect(entry.title.endsWith("…")).toBe(true)
      expect(displayWidth(entry.title) + 1 + displayWidth(entry.description)).toBeLessThanOrEqual(
        DIALOG_ROW_WIDTH,
      )
    }
    expect(taskEntries(long)[0]!.description).toBe("in progress")
    expect(taskEntries(long)[1]!.description).toMatch(/^blocked: z+…$/)
  })

  it("cuts long phase names so a heading never wraps, keeping the count", () => {
    const heading = phaseHeading("A phase name that goes on and on and on and on and on and on", {
      completed: 3,
      abandoned: 1,
      blocked: 0,
      total: 9,
    })
    expect(displayWidth(heading)).toBeLessThanOrEqual(DIALOG_ROW_WIDTH)
    expect(heading).toMatch(/… 3\/8$/)
  })

  it("every row, heading and title fits one dialog row, whatever the text", () => {
    const text = fc.string({ minLength: 1, maxLength: 200, unit: "grapheme" })
    fc.assert(
      fc.property(text, text, fc.constantFrom(...STATUSES), (name, body, status) => {
        const list: TodoList = [phase(name, task(body, status, status === "blocked" ? body : undefined))]
        for (const o of mainOptions(list)) {
          expect(displayWidth(o.title) + 1 + displayWidth(o.description)).toBeLessThanOrEqual(
            DIALOG_ROW_WIDTH,
          )
          expect(displayWidth(o.category)).toBeLessThanOrEqual(DIALOG_ROW_WIDTH)
        }
        expect(displayWidth(mainTitle(list))).toBeLessThanOrEqual(DIALOG_ROW_WIDTH)
      }),
    )
  })
})

describe("copy", () => {
  it("says the Markdown was sent, not that it was copied, and offers it to view", () => {
    const c = copyConfirmation(opened)
    expect(c.title).toBe("Sent to the terminal clipboard (OSC 52)")
    expect(c.message).toMatch(/^2 tasks as Markdown\. .*Show the Markdown.*Asked once: your answer is kept/)
    expect(copyConfirmation(opened, "run").message).toMatch(/Asked once while this TUI runs/)
  })

  it("asks once: a kept yes shows the Markdown, a kept no only says it was sent, anything else asks", () => {
    expect(copyFollowUp(undefined)).toBe("ask")
    expect(copyFollowUp("yes")).toBe("ask")
    expect(copyFollowUp(true)).toBe("show")
    expect(copyFollowUp(false)).toBe("sent")
    expect(copySentText(opened)).toBe("Sent 2 tasks as Markdown to the terminal clipboard (OSC 52).")
  })
})

const entriesSample: TodoList = [
  phase("Design", task("Sketch the data model", "completed"), task("Write the parser", "in_progress")),
  phase(
    "Build",
    task("Wire the sidebar"),
    task("Add the dialog", "blocked", "needs review"),
    task("Old idea", "abandoned"),
  ),
]

describe("dialog entries", () => {
  it("lists every task in order under its phase, with its status or blocker", () => {
    expect(taskEntries(entriesSample)).toEqual([
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
        category: "Build 0/2",
        description: "pending",
      },
      {
        title: "⊘ Add the dialog",
        text: "Add the dialog",
        status: "blocked",
        category: "Build 0/2",
        description: "blocked: needs review",
      },
      {
        title: "✗ Old idea",
        text: "Old idea",
        status: "abandoned",
        category: "Build 0/2",
        description: "dropped",
      },
    ])
  })

  it("summarises counts", () => {
    expect(countsText(entriesSample)).toBe("1/4 done, 1 blocked · 1 dropped")
    expect(countsText([])).toBe("empty")
    expect(countsText([phase("Empty")])).toBe("empty")
  })

  it("offers per status only actions the engine accepts", () => {
    expect(taskActions("pending").map((a) => a.action)).toEqual([
      "start",
      "done",
      "block",
      "drop",
      "rename",
      "rm",
    ])
    expect(taskActions("in_progress").map((a) => a.action)).toEqual(["done", "block", "drop", "rename", "rm"])
    expect(taskActions("blocked").map((a) => a.action)).toEqual([
      "unblock",
      "start",
      "done",
      "block",
      "drop",
      "rename",
      "rm",
    ])
    expect(taskActions("completed").map((a) => a.action)).toEqual(["start", "rename", "rm"])
    expect(taskActions("abandoned").map((a) => a.action)).toEqual(["start", "done", "rename", "rm"])
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
    expect(actionOp("rename", "t", " t2 ")).toEqual({
      op: "rename",
      target: { kind: "task", text: "t" },
      to: "t2",
    })
  })

  it("appends to the phase in progress, else the last one", () => {
    expect(appendPhase(entriesSample)).toBe("Design")
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
})
