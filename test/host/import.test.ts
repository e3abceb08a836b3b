// A Markdown list that replaces the session's list (import, $EDITOR edit) ends in the normal form, and
// the notes say what was read how and what the normal form changed, by line. A file that is not our
// export is never quoted back, and a file with no tasks clears the list only when it is ours or forced.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseCommand } from "../../src/core/list/command.ts"
import { importMarkdown } from "../../src/core/list/import.ts"
import { renderMarkdown } from "../../src/core/list/markdown.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { fakeHosts } from "../fixtures/host.ts"
import { phase, task } from "../fixtures/lists.ts"

const md = (...lines: string[]) => lines.join("\n")
const limits = DEFAULT_LIMITS

describe("importMarkdown", () => {
  it("keeps the first of several in-progress tasks and sends the rest back to pending, saying so", () => {
    expect(importMarkdown(md("## P", "- [>] a", "- [ ] b", "- [>] c", "- [/] d"))).toStrictEqual({
      ok: true,
      value: {
        list: [phase("P", task("a", "in_progress"), task("b"), task("c"), task("d"))],
        notes: [
          "line 5: [/] read as in progress",
          'lines 4, 5: back to pending ("c", "d"); only "a" (line 2) stays in progress',
        ],
      },
    })
  })

  it("starts the earliest pending task when none is in progress, saying so", () => {
    expect(importMarkdown(md("# Work", "- [x] a", "- [!] b", "- [ ] c", "- [ ] d"))).toStrictEqual({
      ok: true,
      value: {
        list: [
          phase("Work", task("a", "completed"), task("b", "blocked"), task("c", "in_progress"), task("d")),
        ],
        notes: [
          'line 1: tasks under the title "Work" form phase "Work"',
          'line 4: started "c"; no task was in progress',
        ],
      },
    })
  })

  it("leaves a list with only closed or blocked tasks as it is, and says nothing", () => {
    expect(importMarkdown(md("## P", "- [x] a", "- [!] b"))).toStrictEqual({
      ok: true,
      value: { list: [phase("P", task("a", "completed"), task("b", "blocked"))], notes: [] },
    })
  })

  it("imports the bare export as the empty list, and the empty file only when forced", () => {
    expect(importMarkdown("<!-- opencode-todo -->\n# Todo\n")).toStrictEqual({
      ok: true,
      value: { list: [], notes: [] },
    })
    expect(importMarkdown("", limits, { force: true })).toStrictEqual({
      ok: true,
      value: { list: [], notes: [] },
    })
    expect(importMarkdown("")).toMatchObject({ ok: false, needsConfirm: true })
  })

  it("passes a parse error through unchanged", () => {
    expect(importMarkdown("oops")).toMatchObject({ ok: false, error: expect.stringMatching(/^Line 1: /) })
  })
})

describe("importMarkdown: a file that is not a todo export", () => {
  it("names the line and the problem, never the content", () => {
    const secrets = [
      "API_KEY=sk-live-SECRET123\nOTHER=1\n",
      "machine example.com login me password hunter2-SECRET123\n",
      "# Notes\n\n- [?] SECRET123 maybe\n",
      "## A\n- [ ] SECRET123\n- [ ] SECRET123\n",
      "## A\n- [ ] x\n  - blocked: SECRET123\n",
      `## A\n- [ ] ${"SECRET123".repeat(100)}\n`,
      "## A\n- [ ] SECRET123 <!-- blocker: -->\n- [ ] SECRET123\n",
      "## A\n- [>] <!-- blocker: SECRET123 -->\n",
      `## A\n- [ ] x <!-- blocker: ${"SECRET123".repeat(100)} -->\n`,
    ]
    for (const text of secrets) {
      const out = importMarkdown(text, limits, { force: true })
      expect(out.ok).toBe(false)
      if (out.ok) continue
      expect(out.error).toMatch(/^Line \d+: /)
      expect(out.error).not.toContain("SECRET")
      expect(out.error).not.toContain("sk-live")
    }
  })

  it("quotes the offending line of our own export, where it helps the user fix a hand edit", () => {
    const out = importMarkdown(`${renderMarkdown([])}oops here\n`, limits)
    expect(out).toMatchObject({ ok: false, error: expect.stringContaining('"oops here"') })
  })
})

describe("importMarkdown: a file with no tasks", () => {
  it("refuses an empty or title-only file that would wipe the list, unless forced", () => {
    for (const text of ["", "\n\n", "# Todo\n", "# My notes\n\n## Later\n"]) {
      const out = importMarkdown(text, limits)
      expect(out).toMatchObject({ ok: false, needsConfirm: true })
      expect(!out.ok && out.error).toContain("--force")
      expect(importMarkdown(text, limits, { force: true }).ok).toBe(true)
    }
  })

  it("accepts our own empty export: it round-trips to an empty list", () => {
    expect(importMarkdown(renderMarkdown([]), limits)).toEqual({ ok: true, value: { list: [], notes: [] } })
  })

  it("refuses a file that does not parse outright: there is nothing to confirm", () => {
    expect(importMarkdown("junk\n", limits)).not.toHaveProperty("needsConfirm")
  })
})

describe("importMarkdown: size", () => {
  it("stops at the first task past maxTasks and names its line", () => {
    const lines = ["## A"]
    for (let i = 0; i < 100_000; i++) lines.push(`- [ ] task ${i}`)
    const out = importMarkdown(lines.join("\n"), { ...limits, maxTasks: 50 })
    expect(out).toEqual({
      ok: false,
      error: "Line 52: the file has more than 50 tasks, the limit; split the plan or raise maxTasks.",
    })
  })

  it("stops at the first phase past maxPhases and names its line", () => {
    const lines: string[] = []
    for (let i = 0; i < 10_000; i++) lines.push(`## Phase ${i}`, `- [ ] task ${i}`)
    const out = importMarkdown(lines.join("\n"), { ...limits, maxPhases: 3 })
    expect(out).toEqual({
      ok: false,
      error: "Line 7: the file has more than 3 phases, the limit; split the plan or raise maxPhases.",
    })
  })

  it("counts a task read from the older blocker comment like any other", () => {
    const text = md("## A", "- [ ] a <!-- blocker: x -->", "- [ ] b <!-- blocker: y -->", "- [ ] c")
    expect(importMarkdown(text, { ...limits, maxTasks: 2 })).toEqual({
      ok: false,
      error: "Line 4: the file has more than 2 tasks, the limit; split the plan or raise maxTasks.",
    })
  })
})

describe("/todo import --force", () => {
  it("is a flag, not part of the path", () => {
    expect(parseCommand("import --force", [])).toEqual({ ok: true, value: { kind: "import", force: true } })
    expect(parseCommand("import NOTES.md -f", [])).toEqual({
      ok: true,
      value: { kind: "import", force: true, path: "NOTES.md" },
    })
    expect(parseCommand("import", [])).toEqual({ ok: true, value: { kind: "import", force: false } })
  })
})

const host = fakeHosts()

describe("/todo import through the plugin", () => {
  it("refuses a title-only file without --force and never quotes a foreign file to the model", async () => {
    const h = await host()
    await h.call("s", { list: [{ phase: "A", items: ["keep me"] }] })
    writeFileSync(join(h.project, "TODO.md"), "# Todo\n")
    const refused = await h.command("s", "import")
    expect(refused).toContain("importing it would clear the list")
    expect((await h.store.read("s")).list).toHaveLength(1)
    await h.command("s", "import --force")
    expect((await h.store.read("s")).list).toEqual([])

    writeFileSync(join(h.project, ".env"), "TOKEN=SECRET123\n")
    const reply = await h.command("s", "import .env")
    expect(reply).toContain("Line 1: expected")
    expect(reply).not.toContain("SECRET123")
  })
})

describe("a project todo.json that turns the plugin off", () => {
  it("is named once in the log", async () => {
    const h = await host({ todoJson: { enabled: false } })
    expect(h.logs).toEqual(["info: project todo.json sets enabled to false; the plugin is off."])
  })
})
