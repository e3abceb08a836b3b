// Load, limits and paths through the real server plugin (src/server/index.ts) with a fake host: concurrent
// tool calls in one session and across sessions, TUI edits racing tool calls through a second store
// instance on the same folder, lists at the size caps, hostile session ids, and /todo export and import.

import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { isTodoExport, renderMarkdown } from "../../src/core/list/markdown.ts"
import { checkList } from "../../src/core/list/queries.ts"
import { DEFAULT_LIMITS, type Op, type TodoList } from "../../src/core/list/types.ts"
import { exportList, readImport, resolveProjectPath } from "../../src/shared/todo-file.ts"
import { runUserOps } from "../../src/shared/user-edits.ts"
import { fileName } from "../../src/store/files.ts"
import { fakeHosts } from "../fixtures/host.ts"

// A pass-through of node:fs/promises that can run one job right before the first stat of a record that
// follows a write of it: the exact moment another process's write would race the server's change marker.
const race = vi.hoisted(() => ({
  record: "",
  wrote: false,
  job: undefined as (() => Promise<unknown>) | undefined,
}))
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs/promises")>()
  const rename: typeof real.rename = async (from, to) => {
    await real.rename(from, to)
    if (race.job && String(to) === race.record) race.wrote = true
  }
  const stat = (async (path: Parameters<typeof real.stat>[0], options?: { bigint?: boolean }) => {
    const job = race.job
    if (job && race.wrote && String(path) === race.record) {
      race.job = undefined
      await job()
    }
    return real.stat(path, options)
  }) as typeof real.stat
  return { ...real, default: { ...real, rename, stat }, rename, stat }
})

const host = fakeHosts()

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const texts = (list: TodoList) => list.flatMap((p) => p.tasks.map((t) => t.text))
const statusOf = (list: TodoList, text: string) =>
  list.flatMap((p) => p.tasks).find((t) => t.text === text)?.status
const ms = (start: number) => `${Math.round(performance.now() - start)} ms`

/** Every file under a folder, as paths relative to it. */
function walk(dir: string, base = dir): string[] {
  if (!existsSync(dir)) return []
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...walk(path, base))
    else out.push(relative(base, path))
  }
  return out.sort()
}

// ---- parallel calls ---------------------------------------------------------------------------------

describe("parallel tool calls against the real store", () => {
  it("50 concurrent calls in one session, issued at once: every append and every done lands", async () => {
    const h = await host()
    const session = "ses_load_one"
    expect((await h.call(session, { list: [{ phase: "Load", items: ["Seed task"] }] })).ok).toBe(true)
    const names = Array.from({ length: 50 }, (_, i) => `Parallel task ${i + 1}`)

    let start = performance.now()
    const appends = await Promise.all(
      names.map((text, i) => h.call(session, { op: "append", phase: "Load", items: [text] }, `call_a${i}`)),
    )
    const appendTime = ms(start)
    expect(appends.filter((r) => !r.ok)).toEqual([])
    let stored = await h.store.read(session)
    expect(texts(stored.list).sort()).toEqual(["Seed task", ...names].sort())
    expect(stored.revision).toBe(51)

    start = performance.now()
    const dones = await Promise.all(
      names.map((text, i) => h.call(session, { op: "done", task: text }, `call_d${i}`)),
    )
    const doneTime = ms(start)
    expect(dones.filter((r) => !r.ok)).toEqual([])
    stored = await h.store.read(session)
    for (const text of names) expect(statusOf(stored.list, text)).toBe("completed")
    expect(stored.revision).toBe(101)
    expect(checkList(stored.list, DEFAULT_LIMITS)).toBeUndefined()
    expect(h.logs).toEqual([])
    console.log(
      `one session: 50 concurrent appends in ${appendTime}, then 50 concurrent dones in ${doneTime}; ` +
        `all 100 landed (revision ${stored.revision})`,
    )
  })

  it("50 concurrent calls across 10 sessions, issued at once: every session holds its 5 tasks", async () => {
    const h = await host()
    const sessions = Array.from({ length: 10 }, (_, i) => `ses_load_${i}`)
    // Round-robin over the sessions, so every session's calls are in flight together.
    const calls = Array.from({ length: 5 }, (_, k) =>
      sessions.map((session) => ({ session, text: `${session} task ${k + 1}` })),
    ).flat()
    const start = performance.now()
    const replies = await Promise.all(
      calls.map(({ session, text }) => h.call(session, { op: "append", phase: "Work", items: [text] })),
    )
    const time = ms(start)
    expect(replies.filter((r) => !r.ok)).toEqual([])
    let landed = 0
    for (const session of sessions) {
      const stored = await h.store.read(session)
      const wanted = calls.filter((c) => c.session === session).map((c) => c.text)
      expect(texts(stored.list).sort()).toEqual(wanted.sort())
      expect(stored.revision).toBe(5)
      landed += stored.list[0]!.tasks.length
    }
    expect(landed).toBe(50)
    expect(h.logs).toEqual([])
    console.log(`10 sessions: 50 concurrent appends in ${time}; ${landed}/50 landed`)
  })

  it("TUI edits through a second store instance racing tool calls, all at once: nothing is lost", async () => {
    const h = await host()
    const session = "ses_race"
    const seed = Array.from({ length: 20 }, (_, i) => `Existing task ${i + 1}`)
    expect((await h.call(session, { list: [{ phase: "Race", items: seed }] })).ok).toBe(true)

    // The TUI (another process in real life: here a second store on the same folder) appends tasks
    // and marks the first ten existing tasks done; the model appends other tasks and blocks the rest.
    const tuiAppends = Array.from({ length: 15 }, (_, i) => `Added in the sidebar ${i + 1}`)
    const toolAppends = Array.from({ length: 15 }, (_, i) => `Added by the model ${i + 1}`)
    const tuiDone = seed.slice(0, 10)
    const toolBlocked = seed.slice(10)
    const tui = (op: Op) =>
      runUserOps({ store: h.store, session, limits: DEFAULT_LIMITS, notify: "record" }, [op])
    const jobs: Promise<{ ok: boolean }>[] = []
    for (let i = 0; i < 15; i++) {
      jobs.push(tui({ op: "append", phase: "Race", items: [tuiAppends[i]!] }))
      jobs.push(h.call(session, { op: "append", phase: "Race", items: [toolAppends[i]!] }))
      if (i < 10) {
        jobs.push(tui({ op: "done", target: { kind: "task", text: tuiDone[i]! } }))
        jobs.push(h.call(session, { op: "block", task: toolBlocked[i]!, reason: "waiting on CI" }))
      }
    }
    const start = performance.now()
    const outcomes = await Promise.all(jobs)
    const time = ms(start)
    expect(outcomes.filter((o) => !o.ok)).toEqual([])

    const stored = await h.store.read(session)
    expect(texts(stored.list).sort()).toEqual([...seed, ...tuiAppends, ...toolAppends].sort())
    for (const text of tuiDone) expect(statusOf(stored.list, text)).toBe("completed")
    for (const text of toolBlocked) expect(statusOf(stored.list, text)).toBe("blocked")
    // Every job wrote once; the server also writes when it takes the TUI's notes out of the record.
    expect(stored.revision).toBeGreaterThanOrEqual(1 + jobs.length)
    expect(checkList(stored.list, DEFAULT_LIMITS)).toBeUndefined()

    // Every TUI edit left a note; the server hands them to the model once and clears them from the store.
    const transform = async () => {
      const output = {
        messages: [
          { info: { id: "msg_u1", sessionID: session, role: "user" }, parts: [] as { text: string }[] },
        ],
      }
      await h.hooks["experimental.chat.messages.transform"]!({}, output as never)
      return output.messages[0]!.parts.map((p) => p.text).join("\n")
    }
    const first = await transform()
    expect(first).toContain("The user changed the todo list")
    expect(await transform()).toBe("")
    expect((await h.store.read(session)).edits).toEqual([])
    expect(h.logs).toEqual([])
    console.log(
      `race: ${jobs.length / 2} TUI edits (second store instance) and ${jobs.length / 2} tool calls at once in ${time}; ` +
        `all ${jobs.length} landed (revision ${stored.revision}); the user-edit notice went out once (${first.length} chars)`,
    )
  })
})

describe("a TUI write that lands right after a tool call's write", () => {
  it("is picked up by the server: its note reaches the model and the server's list is current", async () => {
    const h = await host()
    const session = "ses_window"
    await h.call(session, { list: [{ phase: "Window", items: ["First", "Second"] }] })
    race.record = h.store.file(session)
    race.wrote = false
    race.job = () =>
      runUserOps({ store: h.store, session, limits: DEFAULT_LIMITS, notify: "record" }, [
        { op: "append", phase: "Window", items: ["Added in the sidebar"] },
      ])
    expect((await h.call(session, { op: "done", task: "First" })).ok).toBe(true)
    const output = {
      messages: [
        { info: { id: "msg_u2", sessionID: session, role: "user" }, parts: [] as { text: string }[] },
      ],
    }
    await h.hooks["experimental.chat.messages.transform"]!({}, output as never)
    race.job = undefined
    const notice = output.messages[0]!.parts.map((p) => p.text).join("\n")
    expect(notice).toContain('added "Added in the sidebar"')
    expect((await h.store.read(session)).edits).toEqual([])
    expect(h.logs).toEqual([])
  })
})

// ---- limits -----------------------------------------------------------------------------------------

/** A text of exactly `n` characters that starts with a readable label. */
const padded = (label: string, n: number) => `${label} `.padEnd(n, "x")

/** The largest list the default caps allow: 30 phases, 200 tasks, every name and text 300 characters. */
function maxPlan() {
  const { maxPhases, maxTasks, maxTaskChars } = DEFAULT_LIMITS
  const plan: { phase: string; items: string[] }[] = []
  let task = 0
  for (let p = 0; p < maxPhases; p++) {
    const size = Math.floor(maxTasks / maxPhases) + (p < maxTasks % maxPhases ? 1 : 0)
    const items = Array.from({ length: size }, () => padded(`Task ${++task}`, maxTaskChars))
    plan.push({ phase: padded(`Phase ${p + 1}`, maxTaskChars), items })
  }
  return plan
}

describe("a list at the caps (DEFAULT_LIMITS: 200 tasks, 30 phases, 300 characters, 50 ops per call)", () => {
  it("init at the cap works; one more task, phase or character errors clearly and changes nothing", async () => {
    const h = await host()
    const session = "ses_cap"
    const plan = maxPlan()
    const init = await h.call(session, { op: "init", list: plan })
    expect(init.ok).toBe(true)
    const file = h.store.file(session)
    const bytes = readFileSync(file, "utf8")
    const stored = await h.store.read(session)
    expect(texts(stored.list)).toHaveLength(DEFAULT_LIMITS.maxTasks)
    expect(stored.list).toHaveLength(DEFAULT_LIMITS.maxPhases)

    const refused = {
      task: await h.call(session, { op: "append", phase: plan[0]!.phase, items: ["One task too many"] }),
      phase: await h.call(session, { op: "append", phase: "One phase too many", items: ["x"] }),
      text: await h.call(session, { op: "append", phase: plan[0]!.phase, items: [padded("Too long", 301)] }),
      reason: await h.call(session, { op: "block", task: plan[0]!.items[0], reason: padded("Why", 301) }),
      initOver: await h.call(session, {
        op: "init",
        list: [...plan.slice(0, -1), { phase: plan.at(-1)!.phase, items: [...plan.at(-1)!.items, "extra"] }],
      }),
      ops: await h.call(session, {
        ops: Array.from({ length: 51 }, (_, i) => ({ op: "done", task: plan[0]!.items[i % 6] })),
      }),
    }
    expect(refused.task.output).toBe(
      "Error: The list has 201 tasks; the limit is 200. Plan at a coarser grain. Nothing was changed.",
    )
    expect(refused.initOver.output).toBe(refused.task.output)
    expect(refused.phase.output).toMatch(/^Error: The list has 31 phases; the limit is 30\. Merge phases\./)
    expect(refused.text.output).toMatch(
      /^Error: Task "Too long x+…" is 301 characters; the limit is 300\. Shorten it\. Nothing was changed\.$/,
    )
    expect(refused.reason.output).toMatch(
      /^Error: Blocker reason "Why x+…" is 301 characters; the limit is 300\./,
    )
    expect(refused.ops.output).toBe(
      "Error: The call has 51 ops; the limit is 50. Split it into several calls. Nothing was changed.",
    )
    for (const reply of Object.values(refused)) {
      expect(reply.ok).toBe(false)
      expect(reply.output.length).toBeLessThan(300)
    }
    expect(readFileSync(file, "utf8")).toBe(bytes)

    // 50 ops in one call is allowed, at the cap too.
    const fifty = await h.call(session, {
      ops: plan
        .slice(0, 8)
        .flatMap((p) => p.items.map((task) => ({ op: "done", task })))
        .slice(0, 50),
    })
    expect(fifty.ok).toBe(true)
    const view = await h.call(session, { op: "view" })
    const one = await h.call(session, { op: "done", task: plan[9]!.items[0] })
    const block = await h.call(session, { op: "block", task: plan[9]!.items[1], reason: padded("Why", 300) })
    const sizes = {
      "init (prints the whole list)": init.output.length,
      "view (prints the whole list)": view.output.length,
      "done, one task": one.output.length,
      "block with a 300-character reason": block.output.length,
      "batch of 50 dones": fifty.output.length,
      "error at the cap": refused.task.output.length,
    }
    // Only init and view print the list; every other result names at most five tasks (three changed,
    // the one in progress, the next) and a reason, so it stays small even at the caps.
    for (const reply of [one, block, fifty]) expect(reply.output.length).toBeLessThan(2_000)
    expect(fifty.output).toMatch(/^Done "Task 1 x+", "Task 2 x+", "Task 3 x+" and 47 more\./)
    console.log(
      `result sizes at the caps (characters): ${Object.entries(sizes)
        .map(([k, v]) => `${k} ${v.toLocaleString("en-US")}`)
        .join("; ")}; ` +
        `record on disk ${Buffer.byteLength(readFileSync(file, "utf8")).toLocaleString("en-US")} bytes`,
    )
    console.log(
      `errors at the caps:\n  ${[refused.task, refused.phase, refused.text, refused.ops].map((r) => r.output).join("\n  ")}`,
    )
  })

  it("the caps are configurable through todo.json and plugin options", async () => {
    const fromFile = await host({ todoJson: { maxTasks: 10, maxPhases: 2, maxTaskChars: 40 } })
    const s = "ses_small_caps"
    const eleven = Array.from({ length: 11 }, (_, i) => `Task ${i + 1}`)
    expect((await fromFile.call(s, { items: eleven })).output).toMatch(
      /The list has 11 tasks; the limit is 10\./,
    )
    expect(
      (await fromFile.call(s, { list: ["A", "B", "C"].map((phase) => ({ phase, items: [`${phase} 1`] })) }))
        .output,
    ).toMatch(/The list has 3 phases; the limit is 2\./)
    expect((await fromFile.call(s, { items: [padded("Long", 41)] })).output).toMatch(
      /is 41 characters; the limit is 40\./,
    )
    expect((await fromFile.call(s, { items: eleven.slice(0, 10) })).ok).toBe(true)
    expect(fromFile.logs).toEqual([])

    const fromOptions = await host({ pluginOptions: { maxTasks: 3 } })
    expect((await fromOptions.call(s, { items: ["a", "b", "c", "d"] })).output).toMatch(/the limit is 3\./)
    // Bad values are warned about and the default stays.
    const bad = await host({ todoJson: { maxTasks: 0, maxTaskChars: "long" } })
    expect(bad.logs.join("\n")).toMatch(/maxTasks: expected an integer from 1 to 2000, got 0; keeping 200\./)
    expect((await bad.call(s, { items: eleven })).ok).toBe(true)
  })
})

// ---- paths ------------------------------------------------------------------------------------------

const HOSTILE_IDS = [
  "../../escape",
  "..",
  ".",
  "",
  " ",
  "/",
  "/etc/passwd",
  "a/b",
  "a\\b",
  "C:\\Windows\\x",
  "con",
  "NUL",
  "lpt1",
  "x\u0000y",
  "ses.json",
  "x.abc",
  ".lock",
  "%2e%2e%2f",
  "__proto__",
  "constructor",
  "🚀",
  "\u202eevil",
  "a".repeat(100),
  "a".repeat(101),
  `ses_${"b".repeat(5_000)}`,
  "ses_ok-1",
]

describe("paths", () => {
  it("hostile session ids, phase names and task texts never become paths outside the store folder", async () => {
    const h = await host()
    const outside = () => walk(h.root).filter((f) => !join(h.root, f).startsWith(h.storeDir))
    const before = outside()
    for (const [i, id] of HOSTILE_IDS.entries()) {
      const reply = await h.call(id, {
        list: [{ phase: `../../phase ${i}`, items: [`/tmp/task ${i}`, `..\\..\\task ${i}`] }],
      })
      expect(reply.ok, JSON.stringify(id.slice(0, 40))).toBe(true)
      expect(texts((await h.store.read(id)).list)).toEqual([`/tmp/task ${i}`, `..\\..\\task ${i}`])
    }
    expect(outside()).toEqual(before)
    // One record per id, named by fileName(), nothing else left behind (no lock or temp files).
    const inStore = readdirSync(h.storeDir).sort()
    expect(inStore).toEqual([...new Set(HOSTILE_IDS.map(fileName))].sort())
    expect(inStore).toHaveLength(HOSTILE_IDS.length)
    for (const name of inStore) expect(name).toMatch(/^(?:[A-Za-z0-9_-]{1,100}|x\.[0-9a-f]{64})\.json$/)
    expect(h.logs).toEqual([])
    console.log(
      `session ids: ${HOSTILE_IDS.length} hostile ids, ${inStore.length} records, all inside the store folder`,
    )
  })

  it("/todo export and import resolve relative paths in the project, refuse '..', and need force for foreign files", async () => {
    const h = await host()
    const session = "ses_paths"
    await h.call(session, { list: [{ phase: "Ship", items: ["Write notes", "Tag release"] }] })
    const list = (await h.store.read(session)).list
    const p = h.project

    // src/shared/todo-file.ts directly.
    expect(resolveProjectPath(p, "docs/plan.md")).toEqual({ ok: true, value: join(p, "docs", "plan.md") })
    expect(resolveProjectPath(p, "./TODO.md")).toEqual({ ok: true, value: join(p, "TODO.md") })
    expect(resolveProjectPath(p, "  ")).toEqual({ ok: true, value: join(p, "TODO.md") })
    // A name that merely starts with two dots is inside the project.
    expect(resolveProjectPath(p, "..notes/TODO.md")).toEqual({
      ok: true,
      value: join(p, "..notes", "TODO.md"),
    })
    for (const bad of ["..", "../TODO.md", "docs/../../TODO.md", "../project-sibling/TODO.md"])
      expect(resolveProjectPath(p, bad)).toEqual({
        ok: false,
        error: `"${bad}" leads outside the project; give a path inside it, or an absolute path.`,
      })
    expect(resolveProjectPath(p, "a\u0000b")).toEqual({
      ok: false,
      error: "The path contains a NUL character.",
    })

    const written = await exportList(list, p, "docs/plan.md", false)
    expect(written).toEqual({
      ok: true,
      value: { path: join(p, "docs", "plan.md"), bytes: Buffer.byteLength(renderMarkdown(list)), tasks: 2 },
    })
    expect(isTodoExport(readFileSync(join(p, "docs", "plan.md"), "utf8"))).toBe(true)
    expect((await exportList(list, p, "../escape.md", false)).ok).toBe(false)
    expect(existsSync(join(h.root, "escape.md"))).toBe(false)
    // An absolute path is taken as the user wrote it.
    expect(await exportList(list, p, join(h.root, "elsewhere.md"), false)).toMatchObject({
      ok: true,
      value: { tasks: 2 },
    })

    writeFileSync(join(p, "NOTES.md"), "# My notes\n")
    writeFileSync(join(p, "EMPTY.md"), "")
    for (const foreign of ["NOTES.md", "EMPTY.md"]) {
      const before = readFileSync(join(p, foreign), "utf8")
      expect(await exportList(list, p, foreign, false)).toEqual({
        ok: false,
        needsConfirm: true,
        path: join(p, foreign),
        error: `${join(p, foreign)} exists and is not a todo export; overwrite it with --force, or choose another path.`,
      })
      expect(readFileSync(join(p, foreign), "utf8")).toBe(before)
    }
    expect(await exportList(list, p, "NOTES.md", true)).toMatchObject({
      ok: true,
      value: { path: join(p, "NOTES.md") },
    })
    // Its own export is replaced without asking.
    expect(await exportList([], p, "docs/plan.md", false)).toMatchObject({ ok: true, value: { tasks: 0 } })
    expect((await readImport(p, "../escape.md")).ok).toBe(false)

    // Through the /todo command of the real plugin.
    const reply = (text: string) => h.command(session, text)
    const exported = await reply("export plan/TODO.md")
    // The reply says in its own sentence what was written where.
    const wrote = (path: string) =>
      new RegExp(`^Wrote 2 tasks(?: \\(\\d+ bytes\\))? to ${escapeRegex(path)}\\.$`, "m")
    expect(exported).toMatch(wrote(join(p, "plan", "TODO.md")))
    expect(exported).toMatch(/^The user [a-z][^\n]* with \/todo; nothing changed\.$/m)
    expect(exported).not.toMatch(/viewed Wrote/)
    expect(await reply("export ../outside.md")).toContain('"../outside.md" leads outside the project')
    expect(existsSync(join(h.root, "outside.md"))).toBe(false)
    writeFileSync(join(p, "README.md"), "# Project\n")
    expect(await reply("export README.md")).toContain("is not a todo export; overwrite it with --force")
    expect(readFileSync(join(p, "README.md"), "utf8")).toBe("# Project\n")
    expect(await reply("export README.md --force")).toMatch(wrote(join(p, "README.md")))

    writeFileSync(
      join(p, "plan", "TODO.md"),
      "## Ship\n- [x] Write notes\n- [>] Tag release\n- [ ] Announce\n",
    )
    const imported = await reply("import plan/TODO.md")
    expect(imported).toContain(`imported ${join(p, "plan", "TODO.md")}`)
    expect(texts((await h.store.read(session)).list)).toEqual(["Write notes", "Tag release", "Announce"])
    const file = h.store.file(session)
    const bytes = readFileSync(file, "utf8")
    expect(await reply("import ../x.md")).toContain('"../x.md" leads outside the project')
    writeFileSync(join(p, "broken.md"), "## Ship\n- [?] what\n")
    expect(await reply("import broken.md")).toContain(
      `${join(p, "broken.md")}: Line 2: unknown status mark "[?]"`,
    )
    expect(await reply("import missing.md")).toContain("does not exist")
    expect(readFileSync(file, "utf8")).toBe(bytes)
    expect(h.logs).toEqual([])
    console.log(`export reply the user sees:\n${exported}`)
  })
})
