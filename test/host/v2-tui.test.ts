// The TUI plugin on a fake OpenCode 2 TUI (test/fixtures/v2-tui.ts): loading, the sidebar block, the
// compact line, the /todo dialog, typed verbs at no model cost, the server's toasts over RPC, and
// live updates when the list changes elsewhere.

import { rmSync } from "node:fs"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { limitsOf, resolveConfig } from "../../src/core/config.ts"
import { runUserOps } from "../../src/shared/user-edits.ts"
import { type FakeNode, textOf } from "../fixtures/opentui-fake.ts"
import { createV2Tui, type FakeV2Tui, until } from "../fixtures/v2-tui.ts"

const ENTRY = new URL("../../src/tui/index.tsx", import.meta.url).href
const LIMITS = limitsOf(resolveConfig({ env: {} }).config)
const SESSION = "ses_1"

let tui: FakeV2Tui

beforeEach(() => {
  tui = createV2Tui()
})
afterEach(async () => {
  await tui.cleanup()
})

/** Writes a list as another process (the server) would: init, then `more` ops. */
async function seed(
  session = SESSION,
  more: Parameters<typeof runUserOps>[1] = [],
  at?: Parameters<typeof runUserOps>[0]["at"],
) {
  const out = await runUserOps({ store: tui.store, session, limits: LIMITS, notify: "none", at }, [
    {
      op: "init",
      list: [
        { phase: "Parse", items: ["Write the parser", "Test the parser"] },
        { phase: "Ship", items: ["Tag the release"] },
      ],
    },
    ...more,
  ])
  expect(out).toMatchObject({ ok: true })
}

describe("loading", () => {
  it("loads through setup, claims the sidebar, the composer and the app slot, and makes no keymap layer outside a render", async () => {
    await tui.load(ENTRY)
    expect(tui.setupError).toBeUndefined()
    expect(tui.plugin?.id).toBe("opencode-todo")
    // The same default export is the 1.18 TUI's: it reads `tui` there and ignores `setup`.
    expect(typeof (tui.plugin as unknown as { tui?: unknown }).tui).toBe("function")
    expect(tui.commands()).toEqual([])
    const app = tui.mountSlot("app", {})
    const todo = tui.commands().find((c) => c.slash?.name === "todo")
    expect(todo?.slash?.arguments).toBe(true)
    expect(todo?.palette).toBe(true)
    app.dispose()
  })

  it("adds nothing on a context without V2 slots (a 1.x host calling setup)", async () => {
    const mod = (await import(ENTRY)) as { default: { setup: (c: unknown) => Promise<unknown> } }
    await expect(
      mod.default.setup({ client: {}, project: {}, directory: "/nowhere" }),
    ).resolves.toBeUndefined()
  })

  it("unloading removes its slots", async () => {
    await tui.load(ENTRY)
    await tui.unload()
    expect(tui.mountSlot("sidebar.content", { sessionID: SESSION }).text()).toBe("")
  })
})

describe("sidebar and compact line", () => {
  it("the sidebar block shows the session's list from the shared store", async () => {
    await seed()
    await tui.load(ENTRY)
    const sidebar = tui.mountSlot("sidebar.content", { sessionID: SESSION })
    const text = await until(() => sidebar.text().includes("Write the parser") && sidebar.text())
    expect(text).toContain("Tag the release")
    sidebar.dispose()
  })

  it("colours each status with the 2.0.15 theme's tokens (text.base, text.muted, text.feedback.<kind>.base)", async () => {
    await seed(SESSION, [
      { op: "done", target: { kind: "task", text: "Write the parser" } },
      { op: "block", target: { kind: "task", text: "Tag the release" }, reason: "waiting on review" },
    ])
    await tui.load(ENTRY)
    const sidebar = tui.mountSlot("sidebar.content", { sessionID: SESSION })
    await until(() => sidebar.text().includes("Tag the release"))
    const colours = new Map<string, unknown>()
    const walk = (node: FakeNode) => {
      const fg = (node.props.style as { fg?: unknown } | undefined)?.fg
      const glyph = /^\s*([▶○⊘✓]|Todo)/.exec(textOf(node))?.[1]
      if (node.type === "span" && glyph && !colours.has(glyph)) colours.set(glyph, fg)
      for (const child of node.children) walk(child)
    }
    walk(sidebar.root)
    expect(Object.fromEntries(colours)).toEqual({ Todo: "text", "▶": "warning", "⊘": "error" })
    sidebar.dispose()
  })

  it("the compact line shows progress in session.composer.top while no sidebar is mounted", async () => {
    await seed(SESSION, [{ op: "start", target: { kind: "task", text: "Write the parser" } }])
    await tui.load(ENTRY)
    tui.route(SESSION)
    const line = tui.mountSlot("session.composer.top", { sessionID: SESSION })
    const text = await until(() => line.text().includes("Write the parser") && line.text())
    expect(text).toMatch(/0\/3/)
    const sidebar = tui.mountSlot("sidebar.content", { sessionID: SESSION })
    await until(() => line.text() === "")
    sidebar.dispose()
    await until(() => line.text().includes("Write the parser"))
    line.dispose()
  })

  it("follows a change made elsewhere when the server says the list changed", async () => {
    await seed()
    await tui.load(ENTRY)
    const sidebar = tui.mountSlot("sidebar.content", { sessionID: SESSION })
    await until(() => sidebar.text().includes("Write the parser"))
    await runUserOps({ store: tui.store, session: SESSION, limits: LIMITS, notify: "none" }, [
      { op: "append", phase: "Ship", items: ["Announce it"] },
    ])
    tui.rpc.emit("changed", { sessionID: SESSION })
    await until(() => sidebar.text().includes("Announce it"))
    await runUserOps({ store: tui.store, session: SESSION, limits: LIMITS, notify: "none" }, [
      { op: "append", phase: "Ship", items: ["Write notes"] },
    ])
    tui.event("session.execution.succeeded", { sessionID: SESSION })
    await until(() => sidebar.text().includes("Write notes"))
    sidebar.dispose()
  })
})

describe("dialog and typed verbs", () => {
  it("the palette opens the dialog; choosing a task and Done changes the store with no model turn", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    await tui.palette("opencode-todo.open")
    const main = await until(() => tui.dialog())
    expect(main.kind).toBe("select")
    expect(String(main.options.title)).toMatch(/^Todo/)
    const options = main.options.options as { title: string; value: { kind: string; text?: string } }[]
    const task = options.find((o) => o.value.kind === "task" && o.value.text === "Write the parser")
    expect(task).toBeDefined()
    main.settle(task?.value)
    const actions = await until(() => tui.dialog() !== main && tui.dialog())
    const done = (actions.options.options as { value: string }[]).find((o) => o.value === "done")
    actions.settle(done?.value)
    await until(() => tui.toasts.some((t) => t.variant === "success"))
    const snapshot = await tui.store.read(SESSION)
    expect(JSON.stringify(snapshot)).toContain("completed")
    expect(tui.sentToServer).toEqual([])
    expect(tui.rpc.calls).toEqual([])
    app.dispose()
  })

  it("the dialog leads with the work and folds a finished phase; choosing the fold shows its tasks", async () => {
    await seed(SESSION, [
      { op: "done", target: { kind: "task", text: "Write the parser" } },
      { op: "done", target: { kind: "task", text: "Test the parser" } },
      { op: "start", target: { kind: "task", text: "Tag the release" } },
    ])
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    type Row = { title: string; category: string; value: { kind: string; text?: string; name?: string } }
    await tui.palette("opencode-todo.open")
    const main = await until(() => tui.dialog())
    const rows = main.options.options as Row[]
    const work = rows.filter((r) => r.category !== "List")
    expect(work.map((r) => r.title)).toEqual(["▶ Tag the release", "▸ Parse 2/2"])
    main.settle(work[1]?.value)
    const unfolded = await until(() => tui.dialog() !== main && tui.dialog())
    expect(unfolded.kind).toBe("select")
    const titles = (unfolded.options.options as Row[])
      .filter((r) => r.category !== "List")
      .map((r) => r.title)
    expect(titles).toEqual(["▶ Tag the release", "✓ Write the parser", "✓ Test the parser"])
    expect(unfolded.options.current).toEqual({ kind: "task", text: "Write the parser" })
    app.dispose()
  })

  it("a typed `/todo done <task>` runs in the TUI: a toast, the store changed, nothing sent to the server", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    expect(await tui.submit("/todo done Write the parser")).toBe("tui")
    await until(() => tui.toasts.some((t) => t.variant === "success"))
    const snapshot = await tui.store.read(SESSION)
    expect(JSON.stringify(snapshot)).toContain("completed")
    expect(tui.sentToServer).toEqual([])
    expect(tui.rpc.calls.filter((c) => c.method === "run")).toEqual([])
    app.dispose()
  })

  it("a typo costs nothing: an error toast, the list unchanged", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    const before = JSON.stringify(await tui.store.read(SESSION))
    expect(await tui.submit("/todo dnoe Write the parser")).toBe("tui")
    await until(() => tui.toasts.some((t) => t.variant === "error"))
    expect(tui.toasts.find((t) => t.variant === "error")?.message).toContain("Did you mean /todo done?")
    expect(JSON.stringify(await tui.store.read(SESSION))).toBe(before)
    expect(tui.sentToServer).toEqual([])
    app.dispose()
  })

  it("a verb that changes nothing names itself, the task and why in its toast", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    const before = JSON.stringify(await tui.store.read(SESSION))
    expect(await tui.submit("/todo start Write")).toBe("tui")
    const toast = await until(() => tui.toasts.find((t) => t.message.includes("already")))
    expect(toast.message.split("\n")[0]).toBe('start "Write the parser": it is already in progress')
    expect(JSON.stringify(await tui.store.read(SESSION))).toBe(before)
    expect(tui.sentToServer).toEqual([])
    app.dispose()
  })

  it("a bare `/todo` opens the dialog, and other lines go to the server as before", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    expect(await tui.submit("/todo")).toBe("tui")
    await until(() => tui.dialog()?.kind === "select")
    expect(await tui.submit("please fix the parser")).toBe("server")
    expect(tui.sentToServer).toEqual(["please fix the parser"])
    app.dispose()
  })

  it("a TUI attached to a server elsewhere reads the list and runs typed verbs over RPC", async () => {
    tui.rpc.handlers.list = async () => ({
      list: [{ name: "Remote", tasks: [{ text: "Far task", status: "pending" }] }],
    })
    tui.rpc.handlers.run = async (input) => ({ ok: true, text: `ran ${(input as { text: string }).text}` })
    await tui.load(ENTRY)
    // The project folder the server reports does not exist on this machine: its store is not this one.
    rmSync(tui.project, { recursive: true, force: true })
    tui.route(SESSION)
    const sidebar = tui.mountSlot("sidebar.content", { sessionID: SESSION })
    await until(() => sidebar.text().includes("Far task"))
    const app = tui.mountSlot("app", {})
    expect(await tui.submit("/todo done Far task")).toBe("tui")
    await until(() => tui.toasts.some((t) => t.message === "ran done Far task"))
    expect(tui.rpc.calls.filter((c) => c.method === "run")).toEqual([
      { method: "run", input: { sessionID: SESSION, text: "done Far task" } },
    ])
    expect(tui.sentToServer).toEqual([])
    sidebar.dispose()
    app.dispose()
  })
})

describe("undo and redo", () => {
  it("while the host has the session reverted the views show the list before the point, then the newest again", async () => {
    await seed(SESSION, [], { kind: "after", message: "msg_1" })
    await runUserOps(
      {
        store: tui.store,
        session: SESSION,
        limits: LIMITS,
        notify: "none",
        at: { kind: "after", message: "msg_3" },
      },
      [{ op: "done", target: { kind: "task", text: "Write the parser" } }],
    )
    await tui.load(ENTRY)
    tui.route(SESSION)
    const line = tui.mountSlot("session.composer.top", { sessionID: SESSION })
    await until(() => line.text().includes("1/3"))
    tui.event("session.revert.staged", { sessionID: SESSION, revert: { messageID: "msg_2" } })
    await until(() => line.text().includes("0/3"))
    tui.event("session.revert.cleared", { sessionID: SESSION })
    await until(() => line.text().includes("1/3"))
    line.dispose()
  })
})

describe("toasts from the server", () => {
  it("a notice becomes a toast with its variant and title; a reply too, and the list is reread", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.rpc.emit("notice", { title: "Todo", message: "Task blocked: Tag the release", variant: "warning" })
    expect(tui.toasts.at(-1)).toMatchObject({
      title: "Todo",
      message: "Task blocked: Tag the release",
      variant: "warning",
    })
    tui.rpc.emit("reply", { sessionID: SESSION, ok: false, text: "No task matches" })
    expect(tui.toasts.at(-1)).toMatchObject({
      message: "No task matches",
      variant: "error",
      sessionID: SESSION,
    })
    tui.rpc.emit("notice", { title: "Todo", message: 42 as unknown as string, variant: "warning" })
    expect(tui.toasts).toHaveLength(2)
  })
})

describe("/todo copy asks once", () => {
  /** Runs `/todo copy` and resolves with the first dialog it shows. */
  async function copy() {
    const before = tui.dialogs.length
    expect(await tui.submit("/todo copy")).toBe("tui")
    return until(() => tui.dialogs.length > before && tui.dialogs.at(-1))
  }

  it("asks the first time only; the answer outlives a reload of the plugin (kept in the plugin's storage)", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    let app = tui.mountSlot("app", {})
    const asked = await copy()
    expect(asked.kind).toBe("confirm")
    expect(String(asked.options.message)).toMatch(/Asked once: your answer is kept/)
    asked.settle(true)
    const view = await until(() => tui.dialog()?.kind === "alert" && tui.dialog())
    expect(String(view.options.message)).toContain("Write the parser")
    view.settle(undefined)
    await until(() => [...tui.stored.values()].some((v) => JSON.stringify(v).includes("true")))

    const again = await copy()
    expect(again.kind).toBe("alert")
    again.settle(undefined)
    expect(tui.clipboard).toHaveLength(2)

    app.dispose()
    await tui.unload()
    await tui.load(ENTRY)
    app = tui.mountSlot("app", {})
    expect((await copy()).kind).toBe("alert")
    app.dispose()
  })

  it("a no is kept too: the next copy only says it was sent", async () => {
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    const app = tui.mountSlot("app", {})
    const asked = await copy()
    asked.settle(false)
    await until(() => tui.stored.size > 0)
    const toasts = tui.toasts.length
    expect(await tui.submit("/todo copy")).toBe("tui")
    await until(() => tui.toasts.length > toasts)
    expect(tui.toasts.at(-1)?.message).toBe("Sent 3 tasks as Markdown to the terminal clipboard (OSC 52).")
    expect(tui.dialogs.filter((d) => d.kind === "confirm")).toHaveLength(1)
    app.dispose()
  })

  it("without the host's storage: asks once while the TUI runs and says so, then asks again after a restart", async () => {
    await tui.cleanup()
    tui = createV2Tui({ storage: false })
    await seed()
    await tui.load(ENTRY)
    tui.route(SESSION)
    let app = tui.mountSlot("app", {})
    const asked = await copy()
    expect(asked.kind).toBe("confirm")
    expect(String(asked.options.message)).toMatch(/Asked once while this TUI runs/)
    asked.settle(false)
    const toasts = tui.toasts.length
    expect(await tui.submit("/todo copy")).toBe("tui")
    await until(() => tui.toasts.length > toasts)
    expect(tui.dialogs.filter((d) => d.kind === "confirm")).toHaveLength(1)
    app.dispose()
    await tui.unload()
    await tui.load(ENTRY)
    app = tui.mountSlot("app", {})
    const last = await copy()
    expect(last.kind).toBe("confirm")
    app.dispose()
  })
})
