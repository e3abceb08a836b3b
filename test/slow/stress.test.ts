// The host under stress, without the binary: a 10,000-message session replayed through the real server
// hooks (src/server/index.ts) stays correct, and the sidebar at the narrowest terminal that shows it, with a list
// at the size caps, stays readable. That each hook costs the same at 10,000 messages as at 10 is timing,
// so it is measured in bench/hooks.measure.ts, not asserted here.

import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import fc from "fast-check"
import { afterAll, describe, expect, it } from "vitest"
import { DEFAULT_SIDEBAR_ROWS } from "../../src/core/config.ts"
import { normalize } from "../../src/core/list/reducers.ts"
import { displayWidth } from "../../src/core/list/text-width.ts"
import { DEFAULT_LIMITS, type Task, type TaskStatus, type TodoList } from "../../src/core/list/types.ts"
import { STATUS_GLYPHS } from "../../src/core/list/words.ts"
import { MARKER } from "../../src/core/model/prompts.ts"
import { lineText, SIDEBAR_WIDTH, type SidebarLine, sidebarModel } from "../../src/core/view/sidebar.ts"
import { runUserOps } from "../../src/shared/user-edits.ts"
import { type FakeHost, fakeHosts } from "../fixtures/host.ts"

const host = fakeHosts(afterAll)

// ---- a long session through the hooks ---------------------------------------------------------------

type Obj = Record<string, unknown>
interface Message {
  readonly info: Obj
  readonly parts: Obj[]
}
const MODEL = { providerID: "mock", modelID: "m" }
const PLAN = [
  { phase: "Explore", items: ["Read the tokenizer", "Collect the failing inputs"] },
  { phase: "Fix", items: ["Guard the empty buffer", "Escape nested quotes", "Add regression tests"] },
]

/** A transcript of `count` messages: a user prompt, then an answer with text and a bash call that ends the turn. */
function transcript(sessionID: string, count: number): Message[] {
  const out: Message[] = []
  let userID = ""
  for (let i = 0; i < count; i++) {
    const id = `msg_${sessionID}_${String(i).padStart(6, "0")}`
    const part = (n: number, rest: Obj): Obj => ({ id: `prt_${id}_${n}`, sessionID, messageID: id, ...rest })
    if (i % 2 === 0) {
      userID = id
      out.push({
        info: { id, sessionID, role: "user", time: { created: i }, agent: "build", model: MODEL },
        parts: [part(0, { type: "text", text: `Case ${i}: the parser still fails on this input; fix it.` })],
      })
      continue
    }
    out.push({
      info: {
        id,
        sessionID,
        role: "assistant",
        parentID: userID,
        time: { created: i },
        finish: "stop",
        ...MODEL,
      },
      parts: [
        part(0, { type: "step-start" }),
        part(1, {
          type: "text",
          text: `Looked at case ${i}; the tokenizer assumed a non-empty buffer. Ran the tests.`,
        }),
        part(2, {
          type: "tool",
          tool: "bash",
          callID: `call_${i}`,
          state: { status: "completed", input: { command: "npm test" }, output: "ok", title: "npm test" },
        }),
        part(3, { type: "step-finish", reason: "stop" }),
      ],
    })
  }
  return out
}

interface Replay {
  readonly turns: number
  readonly injected: string[]
}

/** Feeds a transcript through the hooks in the order the host calls them, one model request per answer. */
async function replay(h: FakeHost, sessionID: string, messages: readonly Message[]): Promise<Replay> {
  const history: Message[] = []
  const injected: string[] = []
  let turns = 0
  for (const message of messages) {
    const { info, parts } = message
    if (info.role === "user") {
      await h.event("session.status", { sessionID, status: { type: "busy" } })
      const output = { message: info, parts: parts.map((p) => ({ ...p })) }
      await h.hooks["chat.message"]!(
        { sessionID, agent: "build", model: MODEL, messageID: info.id as string },
        output as never,
      )
      injected.push(...output.parts.slice(parts.length).map((p) => String(p.text)))
      history.push(message)
      await h.event("message.updated", { sessionID, info })
      continue
    }
    // The model request for this answer sees the whole history so far.
    const request = { messages: history }
    const lengthBefore = history.length
    const partsBefore = history.at(-1)!.parts.length
    await h.hooks["experimental.chat.messages.transform"]!({}, request as never)
    for (const m of history.splice(lengthBefore)) injected.push(...m.parts.map((p) => String(p.text)))
    injected.push(
      ...history
        .at(-1)!
        .parts.splice(partsBefore)
        .map((p) => String(p.text)),
    )
    await h.event("message.updated", { sessionID, info: { ...info, finish: undefined } })
    for (const part of parts) {
      await h.event("message.part.updated", { sessionID, part })
      if (part.type === "tool")
        await h.hooks["tool.execute.after"]!(
          { tool: "bash", sessionID, callID: part.callID as string, args: {} },
          { title: "npm test", output: "ok", metadata: {} },
        )
    }
    await h.event("message.updated", { sessionID, info })
    await h.event("session.status", { sessionID, status: { type: "idle" } })
    await h.event("session.idle", { sessionID })
    history.push(message)
    turns++
  }
  return { turns, injected }
}

async function startSession(h: FakeHost, sessionID: string, size: number) {
  await h.event("session.created", { sessionID, info: { id: sessionID } })
  expect((await h.call(sessionID, { list: PLAN })).ok).toBe(true)
  const messages = transcript(sessionID, size)
  const start = performance.now()
  const result = await replay(h, sessionID, messages)
  return { sessionID, messages, ...result, replayMs: performance.now() - start }
}

describe("a session of 10,000 messages", () => {
  it("stays correct: one reminder per idle with open work, none twice, notices delivered once", async () => {
    const h = await host()
    const long = await startSession(h, "ses_stress_10000", 10_000)
    expect(long.turns).toBe(5_000)
    // Every turn ended idle with open work and no question: exactly one reminder each, nothing else injected.
    expect(h.prompts).toHaveLength(5_000)
    for (const p of h.prompts) expect(p.text.startsWith(MARKER)).toBe(true)
    expect(long.injected).toEqual([])

    // A second idle without progress stays quiet.
    await h.event("session.idle", { sessionID: long.sessionID })
    expect(h.prompts).toHaveLength(5_000)

    const transform = async () => {
      const request = { messages: long.messages.slice() }
      const last = request.messages.at(-1)!
      request.messages[request.messages.length - 1] = { info: last.info, parts: [...last.parts] }
      await h.hooks["experimental.chat.messages.transform"]!({}, request as never)
      const added = request.messages.slice(long.messages.length).flatMap((m) => m.parts)
      return [...request.messages[long.messages.length - 1]!.parts.slice(last.parts.length), ...added]
        .map((p) => String(p.text))
        .join("\n")
    }
    // Compaction: the next main request carries the list once.
    await h.event("session.compacted", { sessionID: long.sessionID })
    const compacted = await transform()
    expect(compacted).toContain("The conversation was compacted")
    expect(await transform()).toBe("")
    // A sidebar edit (second store, as the TUI process): the next request tells the model once.
    const edit = await runUserOps(
      { store: h.store, session: long.sessionID, limits: DEFAULT_LIMITS, notify: "record" },
      [{ op: "done", target: { kind: "task", text: "Read the tokenizer" } }],
    )
    expect(edit.ok).toBe(true)
    const notice = await transform()
    expect(notice).toContain('"Read the tokenizer": in progress → done')
    expect(await transform()).toBe("")
    expect(h.logs).toEqual([])
    console.log(
      `10,000-message session: replayed in ${(long.replayMs / 1000).toFixed(1)} s (${long.turns.toLocaleString("en-US")} turns), ` +
        `${h.prompts.length.toLocaleString("en-US")} reminders (one per idle with open work), 0 duplicate notices; ` +
        `compaction notice ${compacted.length} chars, user-edit notice ${notice.length} chars, each delivered once`,
    )
  }, 90_000)
})

// ---- the narrowest terminal with the sidebar ----------------------------------------------------------

/*
 * OpenCode 1.18 (its TUI, read from the shipped binary) shows the session sidebar when the terminal is
 * wider than 120 columns (`width > 120`, sidebar setting "auto"), so 121 is the narrowest. The panel is a
 * fixed 42 columns whatever the terminal width, with 2 columns of padding each side and 1 more on the right
 * of the scrolling content: 37 columns for a plugin's rows, at 121 columns as at 200 (where 37 were seen
 * live). The sidebar model cuts rows to SIDEBAR_WIDTH (36), one column spare.
 */
const NARROWEST_WITH_SIDEBAR = 121
const PANEL_WIDTH = 42
const CONTENT_COLUMNS = PANEL_WIDTH - 2 - 2 - 1

/** The installed host binary, when this platform's package is present. */
function hostBinary(): string | undefined {
  const path = join(
    process.cwd(),
    "node_modules",
    `opencode-${process.platform}-${process.arch}`,
    "bin",
    process.platform === "win32" ? "opencode.exe" : "opencode",
  )
  return existsSync(path) ? path : undefined
}

// Terminals draw characters with the Unicode Emoji_Presentation property two columns wide ("✅", "⚡",
// "🚀"). This reference counts those per grapheme and otherwise defers to the model's own width table.
const graphemes = new Intl.Segmenter()
function terminalWidth(text: string): number {
  let width = 0
  for (const { segment } of graphemes.segment(text))
    width += /\p{Emoji_Presentation}/u.test(segment) ? 2 : displayWidth(segment)
  return width
}

/** `head` followed by whole copies of `fill`, as long as the text cap allows (never a split surrogate pair). */
function fillTo(head: string, fill: string): string {
  const room = DEFAULT_LIMITS.maxTaskChars - head.length
  return head + fill.repeat(Math.floor(room / fill.length))
}

/** Ways to write a 300-character text that starts with `label`. */
const TEXT_FAMILIES: Record<string, (label: string) => string> = {
  ascii: (label) => fillTo(`${label} `, "x"),
  cjk: (label) => fillTo(`任务 ${label} `, "漢"),
  emoji: (label) => fillTo(`🚀 ${label} `, "🚀"),
  "emoji presentation": (label) => fillTo(`✅ ${label} ⚡ done ⏳ next ❌ `, "⭐"),
  combining: (label) => fillTo(`Te\u0301st ${label} `, "e\u0301"),
}

/** The largest list the default caps allow, in one text family, each task's status given by its index. */
function maxList(family: (label: string) => string, statuses: (index: number) => TaskStatus): TodoList {
  const { maxPhases, maxTasks } = DEFAULT_LIMITS
  const list: { name: string; tasks: Task[] }[] = []
  let n = 0
  for (let p = 0; p < maxPhases; p++) {
    const size = Math.floor(maxTasks / maxPhases) + (p < maxTasks % maxPhases ? 1 : 0)
    const tasks: Task[] = []
    for (let t = 0; t < size; t++, n++) {
      const status = statuses(n)
      tasks.push(
        status === "blocked"
          ? { text: family(`Task ${n + 1}`), status, blocker: family(`Why ${n + 1}`) }
          : { text: family(`Task ${n + 1}`), status },
      )
    }
    list.push({ name: family(`Phase ${p + 1}`), tasks })
  }
  return list
}

function checkSidebar(list: TodoList, maxRows: number): SidebarLine[] {
  const lines = sidebarModel(list, { maxRows, width: SIDEBAR_WIDTH })!
  expect(lines.length).toBeLessThanOrEqual(maxRows)
  expect(lines[0]!.kind).toBe("header")
  for (const line of lines) {
    const text = lineText(line)
    expect(text.trim().length).toBeGreaterThan(0)
    expect(displayWidth(text)).toBeLessThanOrEqual(SIDEBAR_WIDTH)
    expect(terminalWidth(text), text).toBeLessThanOrEqual(CONTENT_COLUMNS)
  }
  const active = list.flatMap((p) => p.tasks).find((t) => t.status === "in_progress")
  if (active) {
    const row = lines.find((l) => l.kind === "task" && l.segments[0]!.tone === "in_progress")
    expect(row, "the task in progress has a row").toBeDefined()
    const shown = lineText(row!).replace(/…$/, "")
    expect(`  ${STATUS_GLYPHS.in_progress} ${active.text}`.startsWith(shown)).toBe(true)
    expect(shown.length).toBeGreaterThan(8)
  }
  return lines
}

describe(`the sidebar at the narrowest terminal that shows it (${NARROWEST_WITH_SIDEBAR} columns)`, () => {
  it.skipIf(hostBinary() === undefined)("the installed host still lays the sidebar out as assumed", () => {
    const binary = readFileSync(hostBinary()!)
    // The panel: fixed width and paddings, right before the slot that holds the session title.
    const anchor = binary.indexOf('name:"sidebar_title"')
    expect(anchor).toBeGreaterThan(0)
    const panel = binary.subarray(Math.max(0, anchor - 700), anchor).toString("latin1")
    const layout =
      /"width",(\d+)\),\w+\(\w+,"height","100%"\),\w+\(\w+,"paddingTop",\d+\),\w+\(\w+,"paddingBottom",\d+\),\w+\(\w+,"paddingLeft",(\d+)\),\w+\(\w+,"paddingRight",(\d+)\).*"paddingRight",(\d+)\)/s.exec(
        panel,
      )
    expect(layout, "sidebar layout found in the host").not.toBeNull()
    const [width, left, right, inner] = layout!.slice(1).map(Number) as [number, number, number, number]
    expect(width).toBe(PANEL_WIDTH)
    expect(width - left - right - inner).toBe(CONTENT_COLUMNS)
    // The rule that shows it: terminal wider than 120 columns; the main column then loses the 42.
    const rule = binary.indexOf(".width>120)")
    expect(rule).toBeGreaterThan(0)
    const around = binary.subarray(rule - 400, rule + 600).toString("latin1")
    expect(around).toMatch(/"auto"/)
    expect(around).toMatch(new RegExp(`\\?${PANEL_WIDTH}:0\\)`))
    console.log(
      `host layout: sidebar shown above 120 columns (narrowest ${NARROWEST_WITH_SIDEBAR}); panel ${width} wide, ` +
        `padding ${left}+${right}+${inner}: ${CONTENT_COLUMNS} content columns at any width; rows cut to ${SIDEBAR_WIDTH}`,
    )
  })

  it("a list at the size caps renders within the width and the row budget, the task in progress visible", () => {
    expect(SIDEBAR_WIDTH).toBeLessThanOrEqual(CONTENT_COLUMNS)
    const placements: Record<string, (i: number) => TaskStatus> = {
      "first task in progress": (i) => (i === 0 ? "in_progress" : "pending"),
      "task 100 in progress, earlier done": (i) =>
        i < 99 ? "completed" : i === 99 ? "in_progress" : "pending",
      "last task in progress, all else blocked": (i) => (i === 199 ? "in_progress" : "blocked"),
      "mixed, task 150 in progress": (i) =>
        i === 149 ? "in_progress" : (["pending", "blocked", "completed", "abandoned"] as const)[i % 4]!,
      "all closed": (i) => (i % 3 === 0 ? "abandoned" : "completed"),
    }
    let rendered = 0
    let widest = 0
    for (const [familyName, family] of Object.entries(TEXT_FAMILIES))
      for (const [placementName, statuses] of Object.entries(placements))
        for (const maxRows of [3, 5, DEFAULT_SIDEBAR_ROWS, 30, 60]) {
          const list = maxList(family, statuses)
          const lines = checkSidebar(list, maxRows)
          rendered++
          for (const line of lines) widest = Math.max(widest, terminalWidth(lineText(line)))
          if (
            familyName === "ascii" &&
            placementName.startsWith("task 100") &&
            maxRows === DEFAULT_SIDEBAR_ROWS
          )
            console.log(
              `sidebar, 200 tasks in 30 phases, 300-character texts, ${maxRows} rows, ${SIDEBAR_WIDTH} columns:\n` +
                lines.map((l) => `  |${lineText(l)}|`).join("\n"),
            )
        }
    console.log(
      `sidebar at the caps: ${rendered} renders (5 text families × 5 placements × 5 row budgets); ` +
        `widest line ${widest} of ${CONTENT_COLUMNS} columns`,
    )
  })

  it("random lists at the caps, any statuses and row budgets: the same holds", () => {
    const families = Object.values(TEXT_FAMILIES)
    let runs = 0
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom<TaskStatus>("pending", "in_progress", "completed", "abandoned", "blocked"), {
          minLength: DEFAULT_LIMITS.maxTasks,
          maxLength: DEFAULT_LIMITS.maxTasks,
        }),
        fc.nat(families.length - 1),
        fc.integer({ min: 3, max: 60 }),
        (statuses, family, maxRows) => {
          runs++
          const list = normalize(maxList(families[family]!, (i) => statuses[i]!)).list
          checkSidebar(list, maxRows)
        },
      ),
      { numRuns: 300 },
    )
    console.log(`sidebar property: ${runs} random lists at the caps`)
  })
})
