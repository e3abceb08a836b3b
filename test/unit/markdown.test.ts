import { describe, expect, it } from "vitest"
import { isTodoExport, parseMarkdown, readMarkdown, renderMarkdown } from "../../src/core/list/markdown.ts"
import type { Limits, TodoList } from "../../src/core/list/types.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { phase, task } from "../fixtures/lists.ts"

const ok = (value: TodoList) => ({ ok: true, value })
const err = (error: string) => ({ ok: false, error })
const parse = (lines: string[], limits?: Limits) => parseMarkdown(lines.join("\n"), limits)

const sample: TodoList = [
  phase("Foundation", task("Set up repo", "completed"), task("Write parser", "in_progress")),
  phase(
    "Polish",
    task("Ship it", "blocked", "waiting for review"),
    task("Blocked without reason", "blocked"),
    task("Docs"),
    task("Old idea", "abandoned"),
  ),
  phase("Later"),
]

describe("renderMarkdown", () => {
  it("writes the marker, the title, one heading per phase and one line per task", () => {
    expect(renderMarkdown(sample)).toBe(
      [
        "<!-- opencode-todo -->",
        "# Todo",
        "",
        "## Foundation",
        "- [x] Set up repo",
        "- [>] Write parser",
        "",
        "## Polish",
        "- [!] Ship it",
        "  - blocked: waiting for review",
        "- [!] Blocked without reason",
        "- [ ] Docs",
        "- [-] Old idea",
        "",
        "## Later",
        "",
      ].join("\n"),
    )
  })

  it("renders the empty list as marker and title only, and that parses back to []", () => {
    const text = renderMarkdown([])
    expect(text).toBe("<!-- opencode-todo -->\n# Todo\n")
    expect(parseMarkdown(text)).toStrictEqual(ok([]))
  })

  it("does not write a blocker line for a task that is not blocked", () => {
    const invalid = [phase("P", { text: "a", status: "pending", blocker: "stray" })]
    expect(renderMarkdown(invalid)).toBe("<!-- opencode-todo -->\n# Todo\n\n## P\n- [ ] a\n")
  })
})

describe("round-trip", () => {
  it("keeps the sample list exactly", () => {
    expect(parseMarkdown(renderMarkdown(sample))).toStrictEqual(ok(sample))
  })

  it("keeps a drop reason as a dropped: line under the task", () => {
    const list: TodoList = [phase("P", task("a", "abandoned", "the changelog is generated"), task("b"))]
    const text = renderMarkdown(list)
    expect(text).toBe(
      "<!-- opencode-todo -->\n# Todo\n\n## P\n- [-] a\n  - dropped: the changelog is generated\n- [ ] b\n",
    )
    expect(parseMarkdown(text)).toStrictEqual(ok(list))
    expect(parseMarkdown("## P\n- [ ] a\n  - dropped: why").ok).toBe(false)
  })

  it("keeps nasty texts verbatim", () => {
    const nasty: TodoList = [
      phase(
        "## Not a heading",
        task("- [ ] x"),
        task("- [x] done inside text", "completed"),
        task("  - blocked: looks like a blocker".trim(), "blocked", "- blocked: also nasty"),
        task("blocked: plain"),
        task("[x] brackets [ ] and ] ["),
        task("back\\slash \\n \\\\ \\["),
        task("# hash and ### more"),
        task("*emphasis* and **bold** and _under_"),
        task("<!-- opencode-todo -->"),
        task("<!-- comment --> trailing"),
      ),
      phase(
        "ユニコード 🚀 фаза",
        task("emoji 👩‍👩‍👧 family and 🏳️‍🌈 flag", "in_progress"),
        task("combining e\u0301 and zero\u200bwidth"),
        task("non\u00a0breaking space inside"),
        task("`code` and | pipe | table"),
        task("+ plus bullet"),
        task("* star bullet", "abandoned"),
        task("1. numbered"),
        task("> quote"),
        task("[>] [!] [-]"),
      ),
      phase("# one hash", task("x", "blocked", "reason with [x] and # and \\")),
      phase("Tasks", task("named like the default phase")),
      phase("-"),
    ]
    const text = renderMarkdown(nasty)
    expect(isTodoExport(text)).toBe(true)
    expect(parseMarkdown(text)).toStrictEqual(ok(nasty))
  })

  it("keeps two in-progress tasks as written", () => {
    const list = [phase("P", task("a", "in_progress"), task("b", "in_progress"))]
    expect(parseMarkdown(renderMarkdown(list))).toStrictEqual(ok(list))
  })
})

describe("isTodoExport", () => {
  it("is true when the first non-blank line is the marker", () => {
    expect(isTodoExport("<!-- opencode-todo -->\n# Todo\n")).toBe(true)
    expect(isTodoExport("\uFEFF\n\n<!-- opencode-todo -->   \r\n")).toBe(true)
    expect(isTodoExport("<!--opencode-todo: v1-->")).toBe(true)
  })

  it("is false otherwise", () => {
    expect(isTodoExport("")).toBe(false)
    expect(isTodoExport("# Notes\n- [ ] a\n")).toBe(false)
    expect(isTodoExport("# Todo\n<!-- opencode-todo -->\n")).toBe(false)
    expect(isTodoExport("<!-- opencode-todos -->")).toBe(false)
    expect(isTodoExport("  <!-- opencode-todo -->")).toBe(false)
  })
})

describe("parseMarkdown: hand-written files", () => {
  it("reads an empty or blank file as the empty list", () => {
    expect(parseMarkdown("")).toStrictEqual(ok([]))
    expect(parseMarkdown(" \n\t\n")).toStrictEqual(ok([]))
    expect(parseMarkdown("# Todo")).toStrictEqual(ok([]))
  })

  it("accepts other bullets, [X], [/], extra spaces, blank lines, trailing whitespace and CRLF", () => {
    const text = [
      "",
      "# My plan  ",
      "",
      "",
      "## Phase one\t",
      "",
      "* [X] star done",
      "+ [ ] plus pending   ",
      "-   [/]    spaced in progress",
      "",
      "- [!] blocked",
      "",
      "    * Blocked:   needs a key  ",
      "",
    ].join("\r\n")
    expect(parseMarkdown(text)).toStrictEqual(
      ok([
        phase(
          "Phase one",
          task("star done", "completed"),
          task("plus pending"),
          task("spaced in progress", "in_progress"),
          task("blocked", "blocked", "needs a key"),
        ),
      ]),
    )
  })

  it("puts tasks above the first heading into a phase named Tasks", () => {
    expect(parse(["- [ ] a", "- [x] b", "## Next", "- [ ] c"])).toStrictEqual(
      ok([phase("Tasks", task("a"), task("b", "completed")), phase("Next", task("c"))]),
    )
  })

  it("takes a lone single-# first heading as the title, naming the phase when there is no other heading", () => {
    expect(parse(["# Title", "- [ ] a"])).toStrictEqual(ok([phase("Title", task("a"))]))
    expect(parse(["<!-- opencode-todo -->", "# Anything", "### Deep", "- [ ] a"])).toStrictEqual(
      ok([phase("Deep", task("a"))]),
    )
  })

  it("treats every heading as a phase when there are several single-# headings", () => {
    expect(parse(["# A", "- [ ] a", "# B", "- [ ] b"])).toStrictEqual(
      ok([phase("A", task("a")), phase("B", task("b"))]),
    )
  })

  it("treats a single-# heading as a phase when a task comes before it or it is not the first heading", () => {
    expect(parse(["- [ ] a", "# B", "- [ ] b"])).toStrictEqual(
      ok([phase("Tasks", task("a")), phase("B", task("b"))]),
    )
    expect(parse(["## A", "# B", "- [ ] b"])).toStrictEqual(ok([phase("A"), phase("B", task("b"))]))
  })

  it("accepts heading depths 1 to 6 for phases and keeps empty phases", () => {
    expect(parse(["# T", "## A", "###### F", "#### D"])).toStrictEqual(
      ok([phase("A"), phase("F"), phase("D")]),
    )
  })

  it("attaches a blocker line across blank lines to the task above it", () => {
    expect(parse(["## P", "- [!] a", "", "  - blocked: why"])).toStrictEqual(
      ok([phase("P", task("a", "blocked", "why"))]),
    )
  })

  it("ignores a leading byte-order mark", () => {
    expect(parseMarkdown("\uFEFF<!-- opencode-todo -->\n- [ ] a\n")).toStrictEqual(
      ok([phase("Tasks", task("a"))]),
    )
  })
})

describe("parseMarkdown: errors", () => {
  const generic = (line: number, got: string) =>
    err(`Line ${line}: expected "- [ ] task", a "## Phase" heading or a blank line; got "${got}"`)

  it("names the line and text of a line it cannot read", () => {
    expect(parse(["# Todo", "", "## P", "- [ ] a", "", "", "just a paragraph"])).toStrictEqual(
      generic(7, "just a paragraph"),
    )
    expect(parse(["-[ ] a"])).toStrictEqual(generic(1, "-[ ] a"))
    expect(parse(["- [ ]a"])).toStrictEqual(generic(1, "- [ ]a"))
    expect(parse(["- a plain bullet"])).toStrictEqual(generic(1, "- a plain bullet"))
    expect(parse(["1. [ ] numbered"])).toStrictEqual(generic(1, "1. [ ] numbered"))
    expect(parse(["## P", "  - [ ] nested"])).toStrictEqual(generic(2, "  - [ ] nested"))
    expect(parse(["####### seven"])).toStrictEqual(generic(1, "####### seven"))
    expect(parse(["#nospace"])).toStrictEqual(generic(1, "#nospace"))
    expect(parse(["- [ ] a", "<!-- opencode-todo -->"])).toStrictEqual(generic(2, "<!-- opencode-todo -->"))
    expect(parse(["<!-- a comment -->"])).toStrictEqual(generic(1, "<!-- a comment -->"))
    expect(parse(["- [x ] a"])).toStrictEqual(generic(1, "- [x ] a"))
  })

  it("shortens a long bad line in the message", () => {
    const long = "z".repeat(100)
    expect(parse([long])).toStrictEqual(generic(1, `${"z".repeat(59)}…`))
  })

  it("rejects an unknown status mark", () => {
    expect(parse(["## P", "- [?] what"])).toStrictEqual(
      err(
        'Line 2: unknown status mark "[?]" in "- [?] what"; use [ ] pending, [>] in progress, [x] done, [-] dropped or [!] blocked.',
      ),
    )
    expect(parse(["- [🚀] rocket"])).toStrictEqual(
      err(
        'Line 1: unknown status mark "[🚀]" in "- [🚀] rocket"; use [ ] pending, [>] in progress, [x] done, [-] dropped or [!] blocked.',
      ),
    )
  })

  it("rejects an empty task text and an empty phase name", () => {
    expect(parse(["## P", "- [ ]   "])).toStrictEqual(err('Line 2: task text is empty; got "- [ ]"'))
    expect(parse(["# T", "##"])).toStrictEqual(
      err("Line 2: Phase name is empty; give it a short description."),
    )
  })

  it("rejects misplaced, doubled or empty blocker lines", () => {
    expect(parse(["  - blocked: nothing above"])).toStrictEqual(
      err('Line 1: a blocker line must follow a blocked task "- [!] …"; got "  - blocked: nothing above"'),
    )
    expect(parse(["- [!] a", "## P", "  - blocked: after a heading"])).toStrictEqual(
      err('Line 3: a blocker line must follow a blocked task "- [!] …"; got "  - blocked: after a heading"'),
    )
    expect(parse(["## P", "- [ ] a", "  - blocked: why"])).toStrictEqual(
      err(
        'Line 3: a blocker line belongs under a blocked task "- [!] …", but task "a" (line 2) is not marked blocked.',
      ),
    )
    expect(parse(["## P", "- [!] a", "  - blocked: one", "  - blocked: two"])).toStrictEqual(
      err('Line 4: task "a" (line 2) already has a blocker line.'),
    )
    expect(parse(["## P", "- [!] a", "  - blocked:   "])).toStrictEqual(
      err("Line 3: Blocker reason is empty; give it a short description."),
    )
  })

  it("rejects duplicate tasks, naming the first line", () => {
    expect(parse(["## P", "- [ ] a", "- [x] a"])).toStrictEqual(
      err('Line 3: duplicate task "a" (first on line 2); task texts must be unique across the list.'),
    )
    expect(parse(["## P", "- [ ] a", "", "## Q", "- [ ] b", "* [-] a"])).toStrictEqual(
      err('Line 6: duplicate task "a" (first on line 2); task texts must be unique across the list.'),
    )
  })

  it("rejects duplicate phases, naming the first line", () => {
    expect(parse(["# T", "## P", "- [ ] a", "## P"])).toStrictEqual(
      err('Line 4: duplicate phase "P" (first on line 2); phase names must be unique.'),
    )
    expect(parse(["", "- [ ] a", "## Tasks"])).toStrictEqual(
      err(
        'Line 3: duplicate phase "Tasks": the tasks above the first heading (from line 2) already form a phase with that name.',
      ),
    )
  })

  it("applies the text limits per line and the list limits to the whole", () => {
    const limits: Limits = { ...DEFAULT_LIMITS, maxTaskChars: 5, maxTasks: 2, maxPhases: 1 }
    expect(parse(["## P", "- [ ] 123456"], limits)).toStrictEqual(
      err('Line 2: Task "123456" is 6 characters; the limit is 5. Shorten it.'),
    )
    expect(parse(["## 123456"], limits)).toStrictEqual(
      err('Line 1: Phase name "123456" is 6 characters; the limit is 5. Shorten it.'),
    )
    expect(parse(["- [!] a", "  - blocked: 123456"], limits)).toStrictEqual(
      err('Line 2: Blocker reason "123456" is 6 characters; the limit is 5. Shorten it.'),
    )
    expect(parse(["## P", "- [ ] a", "- [ ] b", "- [ ] c"], limits)).toStrictEqual(
      err("Line 4: the file has more than 2 tasks, the limit; split the plan or raise maxTasks."),
    )
    expect(parse(["## P", "## Q"], limits)).toStrictEqual(
      err("Line 2: the file has more than 1 phases, the limit; split the plan or raise maxPhases."),
    )
    expect(parse(["- [ ] ".concat("y".repeat(301))])).toStrictEqual(
      err(`Line 1: Task "${"y".repeat(59)}…" is 301 characters; the limit is 300. Shorten it.`),
    )
  })

  it("returns no partial list when a later line is bad", () => {
    const result = parse(["## P", "- [ ] a", "- [ ] b", "oops"])
    expect(result.ok).toBe(false)
    expect("value" in result).toBe(false)
  })
})

describe("readMarkdown: what people bring", () => {
  const read = (lines: string[]) => readMarkdown(lines.join("\n"))

  it("reads [/] as in progress and says so by line", () => {
    expect(read(["## P", "- [/] a", "- [ ] b", "* [/] c"])).toStrictEqual({
      ok: true,
      value: {
        list: [phase("P", task("a", "in_progress"), task("b"), task("c", "in_progress"))],
        notes: ["lines 2, 4: [/] read as in progress"],
        lines: new Map([
          ["a", 2],
          ["b", 3],
          ["c", 4],
        ]),
      },
    })
  })

  it("reads [~] as dropped, as the older format did", () => {
    const result = read(["## P", "- [ ] a", "- [~] b"])
    expect(result.ok && result.value.list).toStrictEqual([phase("P", task("a"), task("b", "abandoned"))])
    expect(result.ok && result.value.notes).toStrictEqual(["line 3: [~] read as dropped"])
  })

  it("takes a trailing <!-- blocker: … --> comment as the reason", () => {
    const result = read([
      "## P",
      "- [!] a <!-- blocker: waiting for keys -->",
      "- [ ] b<!--BLOCKER:  the vendor  -->",
      "- [x] c <!-- blocker: old news -->",
      "- [ ] d <!-- blocker: -->",
      "- [ ] e <!-- not a blocker --> tail",
    ])
    expect(result.ok && result.value.list).toStrictEqual([
      phase(
        "P",
        task("a", "blocked", "waiting for keys"),
        task("b", "blocked", "the vendor"),
        task("c", "completed"),
        task("d"),
        task("e <!-- not a blocker --> tail"),
      ),
    ])
    expect(result.ok && result.value.notes).toStrictEqual([
      "line 2: the <!-- blocker: … --> comment read as the blocker reason",
      "line 3: the <!-- blocker: … --> comment read as blocked, with that reason",
      "line 4: the <!-- blocker: … --> comment left out: the task is closed",
    ])
  })

  it("refuses a task with both a blocker comment and a blocker line, or no text besides the comment", () => {
    expect(read(["- [!] a <!-- blocker: one -->", "  - blocked: two"])).toStrictEqual(
      err('Line 2: task "a" (line 1) already has a blocker line.'),
    )
    expect(read(["- [!] <!-- blocker: why -->"])).toStrictEqual(
      err('Line 1: task text is empty; got "- [!] <!-- blocker: why -->"'),
    )
  })

  it("puts tasks under a lone document title into a phase named after it", () => {
    const result = read(["# Work", "", "- [ ] a", "- [x] b"])
    expect(result.ok && result.value.list).toStrictEqual([phase("Work", task("a"), task("b", "completed"))])
    expect(result.ok && result.value.notes).toStrictEqual([
      'line 1: tasks under the title "Work" form phase "Work"',
    ])
    // With any phase heading the title stays a title, and tasks above the first phase go to "Tasks".
    const withPhase = read(["# Work", "- [ ] a", "## Later", "- [ ] b"])
    expect(withPhase.ok && withPhase.value.list).toStrictEqual([
      phase("Tasks", task("a")),
      phase("Later", task("b")),
    ])
    // A title with nothing under it is no phase.
    expect(read(["# Work"])).toMatchObject({ ok: true, value: { list: [], notes: [] } })
  })

  it("says nothing when the file is in our own format", () => {
    const result = readMarkdown(renderMarkdown(sample))
    expect(result.ok && result.value.notes).toStrictEqual([])
  })

  it("shortens a long run of line numbers", () => {
    const lines = ["## P", ...Array.from({ length: 9 }, (_, i) => `- [~] t${i}`)]
    expect(read(lines)).toMatchObject({
      ok: true,
      value: { notes: ["lines 2, 3, 4, 5, 6 and 4 more: [~] read as dropped"] },
    })
  })
})

describe("renderMarkdown: texts that look like the older format", () => {
  it("keeps a text ending in a blocker comment verbatim", () => {
    const list = [phase("P", task("a <!-- blocker: x -->"), task("<!--blocker:-->", "blocked", "why"))]
    expect(parseMarkdown(renderMarkdown(list))).toStrictEqual(ok(list))
  })
})
