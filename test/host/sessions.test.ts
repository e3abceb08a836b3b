// The server's tracked sessions (src/server/sessions.ts), the one module that assigns a tracked session's list and
// state: what each of them is after the first sync, another process's write, pending user-edit notes, a locked
// change (busy or not), the /todo command and a request's stubs.

import { mkdtempSync, rmSync } from "node:fs"
import { writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { DEFAULT_CONFIG, STORED_LIMITS } from "../../src/core/config.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { initialSession } from "../../src/core/session/session.ts"
import { agentRulesSource } from "../../src/server/agent-rules.ts"
import { decodeMessages } from "../../src/server/host-events.ts"
import { v1Port } from "../../src/server/host-port.ts"
import { trackSessions } from "../../src/server/sessions.ts"
import { createStore, type Store } from "../../src/store/store.ts"
import { fakeClient } from "../fixtures/host.ts"

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const LIST: TodoList = [{ name: "Build", tasks: [{ text: "Write parser", status: "in_progress" }] }]
const LATER: TodoList = [
  {
    name: "Build",
    tasks: [
      { text: "Write parser", status: "completed" },
      { text: "Test parser", status: "in_progress" },
    ],
  },
]

function openStore(dir: string, lockWaitMs?: number): Store {
  return createStore({
    dir,
    parse: (raw) => parseSnapshot(raw, STORED_LIMITS),
    warn: () => {},
    ...(lockWaitMs === undefined ? {} : { lockWaitMs, staleLockMs: 60_000 }),
  })
}

/** The server's sessions over a store folder, and a second store on it (another process, the TUI). */
function setup(options: { lockWaitMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "todo-sessions-"))
  dirs.push(dir)
  const fake = fakeClient()
  const log = (level: string, message: string) => fake.logs.push(`${level}: ${message}`)
  const sessions = trackSessions({
    host: v1Port(fake.client, log),
    store: openStore(dir, options.lockWaitMs),
    config: DEFAULT_CONFIG,
    agents: agentRulesSource(async () => ((await fake.client.app.agents()) as { data?: unknown })?.data, log),
  })
  return { dir, sessions, other: openStore(dir), ...fake }
}

const put = (store: Store, session: string, list: TodoList, edits: readonly unknown[] = []) =>
  store.update(session, (current) => ({ next: { ...current, list, edits } }))

describe("tracked sessions", () => {
  it("a session met for the first time starts empty and takes the stored list on its first sync", async () => {
    const { sessions, other } = setup()
    await put(other, "s1", LIST)
    const s = sessions.get("s1")
    expect([s.list, s.state, s.stamp]).toEqual([[], initialSession(), undefined])
    await sessions.open(s, { listOnly: true })
    expect(s.list).toEqual(LIST)
    expect(s.stamp).toBe(await other.stamp("s1"))
    expect(sessions.get("s1")).toBe(s)
  })

  it("takes another process's write on the next sync, and reads nothing while the stamp stands", async () => {
    const { sessions, other } = setup()
    await put(other, "s1", LIST)
    const s = sessions.get("s1")
    await sessions.open(s, { listOnly: true })
    const read = s.list
    await sessions.open(s, { listOnly: true })
    expect(s.list).toBe(read)
    await put(other, "s1", LATER)
    expect(s.list).toEqual(LIST)
    await sessions.open(s, { listOnly: true })
    expect(s.list).toEqual(LATER)
    expect(s.stamp).toBe(await other.stamp("s1"))
  })

  it("takes pending user-edit notes out of the record under its lock and tells the core once", async () => {
    const { sessions, other } = setup()
    await put(other, "s1", LIST)
    const s = sessions.get("s1")
    await sessions.open(s, { listOnly: true })
    const note = { lines: ['added "Test parser" to "Build" (in progress)'], removed: [] }
    await put(other, "s1", LATER, [note])
    const before = s.state
    await sessions.open(s, { listOnly: true })
    expect(s.list).toEqual(LATER)
    expect((await other.read("s1")).edits).toEqual([])
    expect(s.state).not.toBe(before)
    const told = await sessions.step(s, { type: "model.request" })
    const said = (actions: readonly { type: string; text?: string }[]) =>
      actions.some((a) => a.type === "inject" && a.text?.includes(note.lines[0]!))
    expect(said(told)).toBe(true)
    await sessions.open(s, { listOnly: true })
    expect(said(await sessions.step(s, { type: "model.request" }))).toBe(false)
  })

  it("update assigns the list from the store's answer and hands back what the change computed", async () => {
    const { sessions, other } = setup()
    await put(other, "s1", LIST)
    const s = sessions.get("s1")
    await sessions.open(s, { listOnly: true })
    let runs = 0
    const { snapshot, value } = await sessions.update(s, (current) => {
      runs++
      return { next: { ...current, list: LATER }, value: current.list.length }
    })
    expect([runs, value]).toEqual([1, 1])
    expect(s.list).toEqual(LATER)
    expect(s.list).toBe(snapshot.list)
    expect((await other.read("s1")).list).toEqual(LATER)
  })

  it("a busy update assigns the list as readable and hands back no value", async () => {
    const { dir, sessions, other } = setup({ lockWaitMs: 50 })
    await put(other, "s1", LIST)
    const s = sessions.get("s1")
    await sessions.open(s, { listOnly: true })
    await put(other, "s1", LATER)
    // Another machine's fresh lock: the update waits lockWaitMs and gives up.
    const lock = { pid: 1, host: "elsewhere", time: Date.now(), token: "x" }
    await writeFile(join(dir, "s1.json.lock"), JSON.stringify(lock))
    const { snapshot, value } = await sessions.update(s, (current) => ({ next: current, value: "ran" }))
    expect([snapshot.busy, value]).toEqual([true, undefined])
    expect(s.list).toEqual(LATER)
  })

  it("the /todo command's list is taken at once", async () => {
    const { sessions } = setup()
    const s = sessions.get("s1")
    await sessions.open(s, { listOnly: true })
    await sessions.commandRan(s, [], LIST)
    expect(s.list).toEqual(LIST)
  })

  it("a request's stubs are assigned only when they change", async () => {
    const { sessions } = setup()
    const s = sessions.get("s1")
    const state = s.state
    expect(sessions.stubs(s, decodeMessages([]))).toBe(state.stubs)
    expect(s.state).toBe(state)
    const messages = [
      { info: { id: "msg_1", role: "user" }, parts: [{ id: "prt_1", type: "text", text: "hi" }] },
    ]
    const stubs = sessions.stubs(s, decodeMessages(messages))
    expect(stubs).not.toBe(state.stubs)
    expect(s.state.stubs).toBe(stubs)
  })

  it("open reads the list, then asks the host for the parent once; listOnly never asks; known reads no list", async () => {
    const { sessions, other, asked, transcripts } = setup()
    await put(other, "s1", LIST)
    transcripts.set("s1", { info: { id: "s1", parentID: "p1" }, messages: [] })
    const lookups = () => asked.filter((a) => a === "session.get").length
    const s = await sessions.open("s1", { listOnly: true })
    expect([s.list, s.state.facts.subagent]).toEqual([LIST, null])
    const loaded = lookups()
    expect(await sessions.open(s)).toBe(s)
    expect([s.state.facts.subagent, lookups()]).toEqual([true, loaded + 1])
    await sessions.open("s1")
    expect(lookups()).toBe(loaded + 1)
    const t = await sessions.known("s2")
    expect([t.state.facts.subagent, t.loaded, t.stamp]).toEqual([false, undefined, undefined])
  })

  it("no other module can assign a tracked session's list or state", () => {
    const { sessions } = setup()
    const s = sessions.get("s1")
    // @ts-expect-error Tracked's list is read-only outside src/server/sessions.ts.
    s.list = LIST
    // @ts-expect-error Tracked's state is read-only outside src/server/sessions.ts.
    s.state = initialSession()
  })
})
