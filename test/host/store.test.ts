// The store's failures as the person and the model meet them through the real server plugin: a storage
// problem is a TUI toast sent through the host client (and a log line), and a list held by a live process
// too long is a busy answer that changed nothing.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import { DEFAULT_LIMITS } from "../../src/core/list/types.ts"
import { runUserOps } from "../../src/shared/user-edits.ts"
import { createStore, LIST_BUSY } from "../../src/store/store.ts"
import { fakeHosts } from "../fixtures/host.ts"

const host = fakeHosts()
const children: ChildProcess[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

const PLAN = { op: "init", list: [{ phase: "Build", items: ["Write parser", "Test parser"] }] }

/** Holds the session's lock as a live process on this host would (one that is stopped, say). */
async function holdLock(file: string): Promise<void> {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
  children.push(child)
  const body = { pid: child.pid, host: hostname(), time: Date.now(), token: "held" }
  await writeFile(`${file}.lock`, JSON.stringify(body))
}

describe("through the server plugin", () => {
  it("an unusable store folder is a toast once; when it works again the memory list is saved and that is a toast too", async () => {
    const h = await host()
    // A regular file where the store's folder should be: every write fails with ENOTDIR.
    await mkdir(dirname(h.storeDir), { recursive: true })
    await writeFile(h.storeDir, "")
    expect((await h.call("ses_1", PLAN)).ok).toBe(true)
    expect((await h.call("ses_1", { op: "done", task: "Write parser" })).ok).toBe(true)
    const unusable = `Todo storage in ${h.storeDir} is not usable (ENOTDIR); todo lists are kept in memory only for now. The next change tries the disk again.`
    const storage = (message: string) => ({ title: "Todo storage", message, variant: "warning" })
    expect(h.toasts).toEqual([storage(unusable)])
    expect(h.logs).toContain(`warn: ${unusable}`)
    await rm(h.storeDir)
    const reply = await h.call("ses_1", { op: "append", phase: "Build", items: ["Ship"] })
    expect(reply.ok).toBe(true)
    const stored = JSON.parse(await readFile(join(h.storeDir, "ses_1.json"), "utf8"))
    expect(stored.list.flatMap((p: { tasks: { text: string; status: string }[] }) => p.tasks)).toEqual([
      { text: "Write parser", status: "completed" },
      { text: "Test parser", status: "in_progress" },
      { text: "Ship", status: "pending" },
    ])
    expect(h.toasts).toEqual([
      storage(unusable),
      storage(
        `Todo storage in ${h.storeDir} works again; the todo list of session "ses_1", kept in memory meanwhile, is saved.`,
      ),
    ])
  })

  it("a tool call on a list a live process holds too long answers busy and changes nothing", async () => {
    const h = await host()
    expect((await h.call("ses_1", PLAN)).ok).toBe(true)
    const file = join(h.storeDir, "ses_1.json")
    const before = await readFile(file, "utf8")
    await holdLock(file)
    const reply = await h.call("ses_1", { op: "done", task: "Write parser" })
    expect(reply.ok).toBe(false)
    expect(reply.output).toBe(`Error: ${LIST_BUSY}`)
    expect(await readFile(file, "utf8")).toBe(before)
    expect(h.toasts).toEqual([])
  })
})

it("a /todo or sidebar edit on a busy list fails with the busy sentence and changes nothing", async () => {
  const dir = await mkdtemp(join(tmpdir(), "todo-busy-"))
  dirs.push(dir)
  const warnings: string[] = []
  const store = createStore({
    dir,
    parse: (raw) => parseSnapshot(raw),
    warn: (m) => warnings.push(m),
    lockWaitMs: 50,
  })
  const list = [{ name: "Build", tasks: [{ text: "Write parser", status: "in_progress" as const }] }]
  await store.update("s", (s) => ({ next: { ...s, list } }))
  await holdLock(store.file("s"))
  const out = await runUserOps({ store, session: "s", limits: DEFAULT_LIMITS, notify: "record" }, [
    { op: "done", target: { kind: "task", text: "Write parser" } },
  ])
  expect(out).toEqual({ ok: false, error: LIST_BUSY, list })
  expect((await store.read("s")).revision).toBe(1)
  expect(warnings).toEqual([])
})
