import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parseCommand } from "../src/core/command.ts"
import { parseImport } from "../src/core/import.ts"
import { renderMarkdown } from "../src/core/markdown.ts"
import { DEFAULT_LIMITS } from "../src/core/types.ts"
import { startHost } from "./fixtures/host.ts"

const limits = DEFAULT_LIMITS

describe("parseImport: a file that is not a todo export", () => {
  it("names the line and the problem, never the content", () => {
    const secrets = [
      "API_KEY=sk-live-SECRET123\nOTHER=1\n",
      "machine example.com login me password hunter2-SECRET123\n",
      "# Notes\n\n- [?] SECRET123 maybe\n",
      "## A\n- [ ] SECRET123\n- [ ] SECRET123\n",
      "## A\n- [ ] x\n  - blocked: SECRET123\n",
      `## A\n- [ ] ${"SECRET123".repeat(100)}\n`,
    ]
    for (const text of secrets) {
      const out = parseImport(text, limits, false)
      expect(out.ok).toBe(false)
      if (out.ok) continue
      expect(out.error).toMatch(/^Line \d+: /)
      expect(out.error).not.toContain("SECRET")
      expect(out.error).not.toContain("sk-live")
    }
  })

  it("quotes the offending line of our own export, where it helps the user fix a hand edit", () => {
    const out = parseImport(`${renderMarkdown([])}oops here\n`, limits, false)
    expect(out).toMatchObject({ ok: false, error: expect.stringContaining('"oops here"') })
  })
})

describe("parseImport: a file with no tasks", () => {
  it("refuses an empty or title-only file that would wipe the list, unless forced", () => {
    for (const text of ["", "\n\n", "# Todo\n", "# My notes\n\n## Later\n"]) {
      const out = parseImport(text, limits, false)
      expect(out).toMatchObject({ ok: false, needsConfirm: true })
      expect(!out.ok && out.error).toContain("--force")
      expect(parseImport(text, limits, true).ok).toBe(true)
    }
  })

  it("accepts our own empty export: it round-trips to an empty list", () => {
    expect(parseImport(renderMarkdown([]), limits, false)).toEqual({ ok: true, value: [] })
  })
})

describe("parseImport: size", () => {
  it("stops at the first task past maxTasks and names its line", () => {
    const lines = ["## A"]
    for (let i = 0; i < 100_000; i++) lines.push(`- [ ] task ${i}`)
    const out = parseImport(lines.join("\n"), { ...limits, maxTasks: 50 }, false)
    expect(out).toEqual({
      ok: false,
      error: "Line 52: the file has more than 50 tasks, the limit; split the plan or raise maxTasks.",
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

describe("/todo import through the plugin", () => {
  it("refuses a title-only file without --force and never quotes a foreign file to the model", async () => {
    const h = await startHost()
    try {
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
    } finally {
      h.cleanup()
    }
  })
})

describe("a project todo.json that turns the plugin off", () => {
  it("is named once in the log", async () => {
    const h = await startHost({ todoJson: { enabled: false } })
    try {
      expect(h.logs).toEqual(["info: project todo.json sets enabled to false; the plugin is off."])
    } finally {
      h.cleanup()
    }
  })
})
