import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process"
import * as nodeFs from "node:fs/promises"
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from "node:fs/promises"
import { homedir, hostname, tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { currentList } from "../../src/core/history/history.ts"
import { decodeHistory, encodeHistory } from "../../src/core/history/stored.ts"
import type { Phase, TodoList } from "../../src/core/list/types.ts"
import { dataDir, todoDir } from "../../src/shared/paths.ts"
import { type Fs, fileName } from "../../src/store/files.ts"
import { EMPTY, type Parse, type Snapshot } from "../../src/store/record.ts"
import { createStore, type Store } from "../../src/store/store.ts"
import { buildStore, CHILD } from "../fixtures/build-store.ts"

const run = promisify(execFile)

const parse: Parse = (raw) =>
  Array.isArray(raw) &&
  raw.every(
    (p) => typeof p === "object" && p !== null && typeof p.name === "string" && Array.isArray(p.tasks),
  )
    ? { ok: true, value: raw as TodoList }
    : { ok: false, error: "list is not an array of phases" }

const LIST: TodoList = [
  { name: "Build", tasks: [{ text: "write store", status: "in_progress" }] },
  { name: "Ship", tasks: [{ text: "release", status: "blocked", blocker: "waiting on review" }] },
]

let dirs: string[] = []
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "todo-store-"))
  dirs.push(d)
  return d
}
afterEach(async () => {
  for (const d of dirs) {
    await chmod(d, 0o700).catch(() => {})
    await rm(d, { recursive: true, force: true })
  }
  dirs = []
})

function open(dir: string, extra: { fs?: Fs; lockWaitMs?: number; staleLockMs?: number } = {}) {
  const warnings: string[] = []
  const store = createStore({ dir, parse, warn: (m) => warnings.push(m), ...extra })
  return { store, warnings }
}

/**
 * One update as most tests here make it: `fn` returns the next snapshot (undefined: no change), and the answer
 * is the snapshot after it.
 */
async function write(
  store: Store,
  session: string,
  fn: (s: Snapshot) => Snapshot | undefined,
): Promise<Snapshot> {
  return (await store.update(session, (s) => ({ next: fn(s) }))).snapshot
}

/** An update that appends one task to phase "P". */
function append(text: string) {
  return (s: Snapshot): Snapshot => {
    const tasks = s.list[0]?.tasks ?? []
    const phase: Phase = { name: "P", tasks: [...tasks, { text, status: "pending" }] }
    return { ...s, list: [phase] }
  }
}

function texts(s: Snapshot): string[] {
  return s.list.flatMap((p) => p.tasks.map((t) => t.text))
}

function code(error: string): Error {
  return Object.assign(new Error(error), { code: error })
}

describe("dataDir / todoDir", () => {
  it("uses XDG_DATA_HOME as the host does (a relative one as given), else ~/.local/share", () => {
    expect(dataDir({ XDG_DATA_HOME: "/xdg", HOME: "/h" })).toBe(join("/xdg", "opencode"))
    expect(dataDir({ XDG_DATA_HOME: "relative/dir", HOME: "/h" })).toBe(join("relative", "dir", "opencode"))
    expect(dataDir({ HOME: "/h" })).toBe(join("/h", ".local", "share", "opencode"))
    expect(dataDir({})).toBe(join(homedir(), ".local", "share", "opencode"))
    expect(todoDir({ XDG_DATA_HOME: "/xdg" })).toBe(join("/xdg", "opencode", "plugin", "todo"))
  })
})

describe("read / update", () => {
  it("reads a missing record as an empty list at revision 0", async () => {
    const { store, warnings } = open(await tempDir())
    expect(await store.read("s1")).toEqual({ list: [], revision: 0, edits: [], persisted: true })
    expect(await store.stamp("s1")).toBeUndefined()
    expect(warnings).toEqual([])
  })

  it("round-trips list and edits through the exact on-disk record, creating the folder", async () => {
    const dir = join(await tempDir(), "nested", "todo")
    const { store, warnings } = open(dir)
    const written = await write(store, "s1", (s) => ({
      ...s,
      list: LIST,
      edits: [{ kind: "done", task: "x" }],
    }))
    const { history, ...rest } = written
    expect(rest).toEqual({
      list: LIST,
      revision: 1,
      edits: [{ kind: "done", task: "x" }],
      persisted: true,
    })
    // A change made without a history step is recorded in the history by the store.
    expect(history!.spans.flatMap((span) => span.e)).toHaveLength(1)
    expect(currentList(history!)).toEqual(LIST)
    const record = JSON.parse(await readFile(join(dir, "s1.json"), "utf8"))
    expect(record).toEqual({
      version: 2,
      session: "s1",
      revision: 1,
      list: LIST,
      edits: [{ kind: "done", task: "x" }],
      history: encodeHistory(history!),
    })
    const other = open(dir).store
    expect(await other.read("s1")).toEqual(written)
    expect(await readdir(dir)).toEqual(["s1.json"])
    expect(warnings).toEqual([])
  })

  it("decodes an unchanged record once, and a record another process changed again", async () => {
    const dir = await tempDir()
    let parsed = 0
    const counting: Parse = (raw) => {
      parsed++
      return parse(raw)
    }
    const store = createStore({ dir, parse: counting, warn: () => {} })
    const other = open(dir).store
    await write(other, "s1", (s) => ({ ...s, list: LIST }))
    expect((await store.read("s1")).list).toEqual(LIST)
    const once = parsed
    expect((await store.read("s1")).list).toEqual(LIST)
    expect(parsed).toBe(once)
    await write(other, "s1", append("next"))
    expect(texts(await store.read("s1"))).toEqual(["write store", "next"])
    expect(parsed).toBeGreaterThan(once)
  })

  it("bumps the revision on every write and writes nothing when fn returns undefined", async () => {
    const dir = await tempDir()
    const { store } = open(dir)
    await write(store, "s", append("a"))
    await write(store, "s", append("b"))
    const third = await write(store, "s", append("c"))
    expect(third.revision).toBe(3)
    const before = await store.stamp("s")
    const bytes = await readFile(join(dir, "s.json"), "utf8")
    const same = await write(store, "s", () => undefined)
    expect(same.revision).toBe(3)
    expect(texts(same)).toEqual(["a", "b", "c"])
    expect(await store.stamp("s")).toBe(before)
    expect(await readFile(join(dir, "s.json"), "utf8")).toBe(bytes)
    // A no-op on a missing record creates nothing.
    await write(store, "fresh", () => undefined)
    expect(await readdir(dir)).toEqual(["s.json"])
  })

  it("never throws: an fn that throws changes nothing, warns once, releases the lock, and keeps working", async () => {
    const dir = await tempDir()
    const { store, warnings } = open(dir)
    await write(store, "s", append("a"))
    const boom = () => {
      throw new Error("boom")
    }
    expect(texts(await write(store, "s", boom))).toEqual(["a"])
    expect(texts(await write(store, "s", boom))).toEqual(["a"])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(texts(await write(store, "s", append("b")))).toEqual(["a", "b"])
    expect(warnings).toEqual([
      'A change to the todo list of session "s" failed (boom); the list was left as it was.',
    ])
  })

  it("refuses to write a list its own parse would reject, and says so once", async () => {
    const dir = await tempDir()
    const { store, warnings } = open(dir)
    await write(store, "s", append("a"))
    const bad = (s: Snapshot) => ({ ...s, list: "nope" as unknown as TodoList })
    expect(texts(await write(store, "s", bad))).toEqual(["a"])
    expect(texts(await write(store, "s", bad))).toEqual(["a"])
    expect(texts(await store.read("s"))).toEqual(["a"])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([
      'Refusing to store an invalid todo list for session "s" (list is not an array of phases); the list was left as it was.',
    ])
  })
})

describe("update hands back what its change computed", () => {
  /** A change that appends `text` and hands back how many times it ran and the list it saw. */
  function counted(text: string) {
    const seen: string[][] = []
    const fn = (s: Snapshot) => {
      seen.push(texts(s))
      return { next: append(text)(s), value: { run: seen.length, saw: texts(s) } }
    }
    return { fn, seen }
  }

  it("a change that is written: its value, with the snapshot written; no change: its value, with the list as read", async () => {
    const dir = await tempDir()
    const { store } = open(dir)
    await write(store, "s", append("a"))
    const { fn, seen } = counted("b")
    const written = await store.update("s", fn)
    expect(written.value).toEqual({ run: 1, saw: ["a"] })
    expect([texts(written.snapshot), written.snapshot.revision]).toEqual([["a", "b"], 2])
    expect(seen).toHaveLength(1)
    const looked = await store.update("s", (s) => ({ value: s.list.length }))
    expect(looked.value).toBe(1)
    expect([texts(looked.snapshot), looked.snapshot.revision]).toEqual([["a", "b"], 2])
  })

  it("a write made again (its temporary file swept) hands back the value of the run that was kept", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("first"))
    let renames = 0
    const fs: Fs = {
      ...nodeFs,
      rename: async (from, to) => {
        // The first write's temp file is swept before its rename: the store makes the change again.
        if (String(to) === join(dir, "s.json") && renames++ === 0) await rm(String(from))
        return nodeFs.rename(from, to)
      },
    }
    const { store } = open(dir, { fs })
    const { fn, seen } = counted("second")
    const answer = await store.update("s", fn)
    expect(seen).toEqual([["first"], ["first"]])
    expect(answer.value).toEqual({ run: 2, saw: ["first"] })
    expect(texts(answer.snapshot)).toEqual(["first", "second"])
  })

  it("a change that throws has none; a list the store refuses keeps its value and changes nothing", async () => {
    const dir = await tempDir()
    const { store } = open(dir)
    await write(store, "s", append("a"))
    const threw = await store.update("s", () => {
      throw new Error("boom")
    })
    expect([threw.value, texts(threw.snapshot)]).toEqual([undefined, ["a"]])
    const refused = await store.update("s", (s) => ({
      next: { ...s, list: "nope" as unknown as TodoList },
      value: "asked",
    }))
    expect([refused.value, texts(refused.snapshot), refused.snapshot.revision]).toEqual(["asked", ["a"], 1])
  })

  it("a busy answer has no value, and the change never ran", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    await writeFile(
      join(dir, "s.json.lock"),
      JSON.stringify({ pid: 1, host: "elsewhere", time: Date.now(), token: "x" }),
    )
    const { store } = open(dir, { lockWaitMs: 50, staleLockMs: 60_000 })
    const { fn, seen } = counted("later")
    const answer = await store.update("s", fn)
    expect([answer.value, answer.snapshot.busy, texts(answer.snapshot)]).toEqual([
      undefined,
      true,
      ["on disk"],
    ])
    expect(seen).toEqual([])
  })

  it("a session kept in memory hands back the value as well", async () => {
    const dir = await tempDir()
    await writeFile(
      join(dir, "s.json"),
      JSON.stringify({ version: 3, session: "s", revision: 9, list: LIST, edits: [] }),
    )
    const { store } = open(dir)
    const { fn } = counted("a")
    const answer = await store.update("s", fn)
    expect(answer.value).toEqual({ run: 1, saw: [] })
    expect([texts(answer.snapshot), answer.snapshot.persisted]).toEqual([["a"], false])
  })
})

describe("atomic write", () => {
  /** An fs that logs the write path: which file is opened how, synced, closed, renamed. */
  function logging(dir: string, failDirOpen?: string) {
    const log: string[] = []
    const name = (p: unknown) =>
      String(p) === dir
        ? "<dir>"
        : String(p)
            .slice(dir.length + 1)
            .replace(/\.\d+\.\d+-[0-9a-f]+\.tmp$/, ".<tmp>")
    const fs: Fs = {
      ...nodeFs,
      open: (async (path: string, flags?: string) => {
        if (failDirOpen && path === dir) throw code(failDirOpen)
        const handle = await nodeFs.open(path, flags)
        log.push(`open ${name(path)} ${flags}`)
        return new Proxy(handle, {
          get(target, key: keyof nodeFs.FileHandle) {
            const value = target[key]
            if (key !== "sync" && key !== "close")
              return typeof value === "function" ? value.bind(target) : value
            return async () => {
              log.push(`${key} ${name(path)}`)
              return (value as () => Promise<void>).call(target)
            }
          },
        })
      }) as typeof nodeFs.open,
      rename: async (from, to) => {
        log.push(`rename ${name(from)} -> ${name(to)}`)
        return nodeFs.rename(from, to)
      },
    }
    return { fs, log }
  }

  it("writes a temp file, fsyncs it, renames it over the record, then fsyncs the folder", async () => {
    const dir = await tempDir()
    const { fs, log } = logging(dir)
    const { store, warnings } = open(dir, { fs })
    await write(store, "s", append("a"))
    expect(log).toEqual([
      "open s.json.lock.<tmp> wx",
      "close s.json.lock.<tmp>",
      "open s.json.<tmp> wx",
      "sync s.json.<tmp>",
      "close s.json.<tmp>",
      "rename s.json.<tmp> -> s.json",
      "open <dir> r",
      "sync <dir>",
      "close <dir>",
    ])
    expect(warnings).toEqual([])
  })

  it("ignores a folder fsync the platform refuses (EINVAL), but not an I/O error", async () => {
    const dir = await tempDir()
    const refused = open(dir, { fs: logging(dir, "EINVAL").fs })
    expect((await write(refused.store, "s", append("a"))).persisted).toBe(true)
    expect(refused.warnings).toEqual([])
    const broken = open(dir, { fs: logging(dir, "EIO").fs })
    expect((await write(broken.store, "s", append("b"))).persisted).toBe(false)
    expect(broken.warnings).toEqual([
      `Todo storage in ${dir} is not usable (EIO); todo lists are kept in memory only for now. The next change tries the disk again.`,
    ])
  })
})

describe("stamp", () => {
  it("changes when any process writes and costs exactly one stat", async () => {
    const dir = await tempDir()
    const calls: string[] = []
    const counting: Fs = new Proxy(nodeFs, {
      get(target, key: keyof Fs) {
        const value = target[key]
        return typeof value === "function"
          ? (...args: unknown[]) => {
              calls.push(String(key))
              return (value as (...a: unknown[]) => unknown)(...args)
            }
          : value
      },
    }) as Fs
    const { store } = open(dir, { fs: counting })
    const other = open(dir).store
    await write(other, "s", append("a"))
    calls.length = 0
    const first = await store.stamp("s")
    expect(calls).toEqual(["stat"])
    expect(first).toMatch(/^\d+:[\d.]+:\d+$/)
    expect(await store.stamp("s")).toBe(first)
    await write(other, "s", (s) => ({
      ...s,
      list: [{ name: "P", tasks: [{ text: "b", status: "pending" }] }],
    }))
    // Same size, possibly the same mtime tick: the new inode still tells them apart.
    expect(await store.stamp("s")).not.toBe(first)
  })
})

describe("corrupt and foreign records", () => {
  it("keeps the list of a record whose history does not read, warns once, and writes a good history next", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    const record = {
      version: 2,
      session: "s",
      revision: 4,
      list: LIST,
      edits: [],
      history: { v: 1, spans: "?" },
    }
    await writeFile(file, JSON.stringify(record))
    const { store, warnings } = open(dir)
    expect(texts(await store.read("s"))).toEqual(["write store", "release"])
    expect(texts(await store.read("s"))).toEqual(["write store", "release"])
    expect(warnings).toEqual([
      'Todo session "s": The stored list history is unreadable (no checkpoints); the list was kept, but undo cannot go back before it.',
    ])
    const next = await write(store, "s", append("a"))
    expect([texts(next), next.revision]).toEqual([["write store", "a"], 5])
    const written = JSON.parse(await readFile(file, "utf8"))
    expect(decodeHistory(written.history, written.list)).toEqual({ history: next.history })
    expect(currentList(next.history!)).toEqual(next.list)
    expect(warnings).toHaveLength(1)
  })

  it("moves a corrupt record aside once, warns once, starts empty; a later corruption gets a new name", async () => {
    const dir = await tempDir()
    const file = join(dir, "s1.json")
    await writeFile(file, "{ not json")
    const { store, warnings } = open(dir)
    expect(await store.read("s1")).toEqual({ list: [], revision: 0, edits: [], persisted: true })
    expect(warnings).toEqual([
      `The saved todo list of session "s1" was unreadable (not valid JSON); it was moved to s1.json.corrupt-1. A running server saves the list it has again; otherwise the list is rebuilt from the conversation where it shows one, else it starts empty.`,
    ])
    expect(await readFile(`${file}.corrupt-1`, "utf8")).toBe("{ not json")
    expect(await readdir(dir)).toEqual(["s1.json.corrupt-1"])
    expect(await store.read("s1")).toEqual({ list: [], revision: 0, edits: [], persisted: true })
    expect(warnings).toHaveLength(1)

    // Second corruption, same store: a new aside, the first kept, no second warning for the same session.
    await writeFile(file, JSON.stringify({ version: 1, session: "s1", revision: 3, list: "bad", edits: [] }))
    expect(texts(await write(store, "s1", append("a")))).toEqual(["a"])
    expect((await store.read("s1")).revision).toBe(1)
    expect(await readFile(`${file}.corrupt-1`, "utf8")).toBe("{ not json")
    expect(JSON.parse(await readFile(`${file}.corrupt-2`, "utf8")).list).toBe("bad")
    expect(warnings).toHaveLength(1)

    // A fresh store (another process) reports its own finding once.
    await writeFile(file, "[]")
    const second = open(dir)
    await second.store.read("s1")
    expect(second.warnings).toEqual([
      `The saved todo list of session "s1" was unreadable (not a JSON object); it was moved to s1.json.corrupt-3. A running server saves the list it has again; otherwise the list is rebuilt from the conversation where it shows one, else it starts empty.`,
    ])
    expect((await readdir(dir)).sort()).toEqual([
      "s1.json.corrupt-1",
      "s1.json.corrupt-2",
      "s1.json.corrupt-3",
    ])
  })

  const RESTORED = (label: string, aside: string, reason = "not valid JSON") =>
    `The saved todo list of session "${label}" was unreadable (${reason}); it was moved to ${aside} and the list this process last read or wrote was saved in its place.`

  it("a record that turns corrupt after a good read keeps the list: moved aside, saved back, warned once", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    await write(open(dir).store, "s", (s) => ({ ...s, list: LIST }))
    const { store, warnings } = open(dir)
    const good = await store.read("s")
    await writeFile(file, "garbage from elsewhere")
    const before = await store.stamp("s")
    const read = await store.read("s")
    expect(read).toEqual({ ...good, revision: good.revision + 1 })
    expect(await readFile(`${file}.corrupt-1`, "utf8")).toBe("garbage from elsewhere")
    expect((await readdir(dir)).sort()).toEqual(["s.json", "s.json.corrupt-1"])
    expect(JSON.parse(await readFile(file, "utf8")).revision).toBe(good.revision + 1)
    expect(await store.stamp("s")).not.toBe(before)
    expect(warnings).toEqual([RESTORED("s", "s.json.corrupt-1")])
    expect(await store.read("s")).toEqual(read)
    expect(warnings).toHaveLength(1)
  })

  it("a record that disappears after a good read is saved again with its history, warned once", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    const writer = open(dir).store
    await write(writer, "s", append("a"))
    await write(writer, "s", append("b"))
    const { store, warnings } = open(dir)
    const good = await store.read("s")
    await rm(file)
    const read = await store.read("s")
    expect(read).toEqual({ ...good, revision: good.revision + 1 })
    expect(JSON.stringify(read.history)).toBe(JSON.stringify(good.history))
    expect(JSON.parse(await readFile(file, "utf8")).revision).toBe(good.revision + 1)
    expect(warnings).toEqual([
      'The saved todo list of session "s" disappeared; the list this process last read or wrote was saved again.',
    ])
    // A session this process never read has no record, and gets none from a read.
    expect(await store.read("t")).toEqual(EMPTY)
    expect((await readdir(dir)).filter((n) => n.startsWith("t."))).toEqual([])
    expect(warnings).toHaveLength(1)
  })

  it("a corrupt record met by an update keeps the list this process wrote last, and the change lands on it", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    const { store, warnings } = open(dir)
    await write(store, "s", append("a"))
    // Written, never read back: the process's own write is the version it knows.
    const wrote = await write(store, "s", append("b"))
    await writeFile(file, JSON.stringify({ version: 2, session: "s", revision: 7, list: "bad", edits: [] }))
    const next = await write(store, "s", append("c"))
    expect([texts(next), next.revision]).toEqual([["a", "b", "c"], wrote.revision + 2])
    expect(JSON.parse(await readFile(`${file}.corrupt-1`, "utf8")).list).toBe("bad")
    expect(texts(await open(dir).store.read("s"))).toEqual(["a", "b", "c"])
    expect(warnings).toEqual([RESTORED("s", "s.json.corrupt-1", "list is not an array of phases")])
  })

  it("the list saved back reads back in another process with its history and pending notes", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    const { store } = open(dir)
    await write(store, "s", append("a"))
    await write(store, "s", append("b"))
    await write(store, "s", (s) => ({ ...s, edits: [{ kind: "done", task: "b" }] }))
    const good = await store.read("s")
    expect(good.history!.spans.flatMap((span) => span.e).length).toBeGreaterThan(1)
    await writeFile(file, "{")
    await store.read("s")
    const other = open(dir)
    expect(await other.store.read("s")).toEqual({ ...good, revision: good.revision + 1 })
    expect(other.warnings).toEqual([])
  })

  it("a second corruption in the same process saves the list back again, under a new aside name", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    await write(open(dir).store, "s", (s) => ({ ...s, list: LIST }))
    const { store, warnings } = open(dir)
    await store.read("s")
    await writeFile(file, "first")
    await store.read("s")
    await writeFile(file, "second")
    const read = await store.read("s")
    expect(read.list).toEqual(LIST)
    expect(await readFile(`${file}.corrupt-2`, "utf8")).toBe("second")
    expect(texts(await open(dir).store.read("s"))).toEqual(["write store", "release"])
    expect(warnings).toHaveLength(1)
  })

  it("a list it cannot save back is kept in memory, and the corrupt record stays for the next try", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    const disk = { failing: false }
    const { store, warnings } = open(dir, {
      fs: {
        ...nodeFs,
        open: (async (path: string, flags?: string) => {
          if (disk.failing && flags === "wx" && path.endsWith(".tmp") && !path.includes(".lock"))
            throw code("ENOSPC")
          return nodeFs.open(path, flags)
        }) as typeof nodeFs.open,
      },
    })
    await write(store, "s", (s) => ({ ...s, list: LIST }))
    await store.read("s")
    await writeFile(file, "garbage")
    disk.failing = true
    const read = await store.read("s")
    expect([read.list, read.persisted]).toEqual([LIST, false])
    expect(warnings).toEqual([
      `Todo storage in ${dir} is not usable (ENOSPC); todo lists are kept in memory only for now. The next change tries the disk again.`,
    ])
    disk.failing = false
    const next = await write(store, "s", append("later"))
    expect([texts(next), next.persisted]).toEqual([["write store", "later"], true])
    expect(texts(await open(dir).store.read("s"))).toEqual(["write store", "later"])
  })

  it.each([
    [
      "wrong version",
      { version: 0, session: "s", revision: 1, list: [], edits: [] },
      "missing or unknown version",
    ],
    [
      "other session",
      { version: 1, session: "t", revision: 1, list: [], edits: [] },
      "it names another session",
    ],
    ["bad revision", { version: 1, session: "s", revision: -1, list: [], edits: [] }, "bad revision"],
    ["bad edits", { version: 1, session: "s", revision: 1, list: [], edits: {} }, "edits is not an array"],
    [
      "parse fails",
      { version: 1, session: "s", revision: 1, list: [1], edits: [] },
      "list is not an array of phases",
    ],
  ])("treats a record with %s as corrupt", async (_name, record, reason) => {
    const dir = await tempDir()
    await writeFile(join(dir, "s.json"), JSON.stringify(record))
    const { store, warnings } = open(dir)
    expect(await store.read("s")).toEqual({ list: [], revision: 0, edits: [], persisted: true })
    expect(warnings).toEqual([
      `The saved todo list of session "s" was unreadable (${reason}); it was moved to s.json.corrupt-1. A running server saves the list it has again; otherwise the list is rebuilt from the conversation where it shows one, else it starts empty.`,
    ])
  })

  it("leaves a record of a newer version in place and works in memory for that session", async () => {
    const dir = await tempDir()
    const file = join(dir, "s.json")
    const text = JSON.stringify({ version: 3, session: "s", revision: 9, list: LIST, edits: [], extra: true })
    await writeFile(file, text)
    const { store, warnings } = open(dir)
    expect(await store.read("s")).toEqual({ list: [], revision: 0, edits: [], persisted: false })
    const next = await write(store, "s", append("a"))
    expect([next.revision, next.persisted]).toEqual([1, false])
    expect(texts(await store.read("s"))).toEqual(["a"])
    expect(await store.stamp("s")).toBe("memory:1")
    expect(await readFile(file, "utf8")).toBe(text)
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([
      'The todo list of session "s" was saved by a newer plugin version (record version 3); it is left untouched and this session\'s list is kept in memory only.',
    ])
    // Other sessions are unaffected.
    expect((await write(store, "t", append("b"))).persisted).toBe(true)
  })
})

describe("session ids never escape the folder", () => {
  const hostile = [
    "../../etc/passwd",
    "a/b",
    "a\\b",
    "/abs",
    ".",
    "..",
    "",
    "x".repeat(10 * 1024),
    "a".repeat(101),
    "a\0b",
    "\0",
    "ünï",
    "日本",
    "a b",
    "a.b",
    "CON",
    "nul",
    "\uD800",
    "\uDC00",
    "\uFFFD",
    "C:\\x",
    "s1.json",
    `x.${"0".repeat(64)}`,
  ]
  const plain = ["s1", "ses_ABC-123", "x-abc", "a".repeat(100), "-", "_"]

  it("maps hostile ids to hashed names in the folder and plain ids to <id>.json", async () => {
    const dir = await tempDir()
    const names = [...hostile, ...plain].map(fileName)
    for (const name of names) {
      expect(dirname(resolve(dir, name))).toBe(dir)
      expect(name.length).toBeLessThan(100 + 6)
    }
    expect(new Set(names).size).toBe(names.length)
    for (const id of plain) expect(fileName(id)).toBe(`${id}.json`)
    for (const id of hostile) expect(fileName(id)).toMatch(/^x\.[0-9a-f]{64}\.json$/)
  })

  it("stores and reads back every hostile id without touching anything outside the folder", async () => {
    const root = await tempDir()
    const dir = join(root, "a", "b", "todo")
    const { store, warnings } = open(dir)
    const ids = [...hostile, ...plain]
    await Promise.all(ids.map((id, i) => write(store, id, append(`task ${i}`))))
    for (const [i, id] of ids.entries()) {
      expect(store.file(id)).toBe(join(dir, fileName(id)))
      expect(texts(await store.read(id))).toEqual([`task ${i}`])
      expect(JSON.parse(await readFile(store.file(id), "utf8")).session).toBe(id)
    }
    expect((await readdir(dir)).sort()).toEqual(ids.map(fileName).sort())
    expect(await readdir(root)).toEqual(["a"])
    expect(await readdir(join(root, "a"))).toEqual(["b"])
    expect(warnings).toEqual([])
  })
})

describe("unusable storage", () => {
  const isRoot = process.getuid?.() === 0

  async function expectMemoryMode(dir: string, store: ReturnType<typeof open>["store"], warnings: string[]) {
    const { history: _history, ...first } = await write(store, "s", append("a"))
    expect(first).toEqual({
      list: [{ name: "P", tasks: [{ text: "a", status: "pending" }] }],
      revision: 1,
      edits: [],
      persisted: false,
    })
    expect(texts(await write(store, "s", append("b")))).toEqual(["a", "b"])
    const read = await store.read("s")
    expect([texts(read), read.revision, read.persisted]).toEqual([["a", "b"], 2, false])
    expect(await store.stamp("s")).toBe("memory:2")
    expect(texts(await write(store, "t", append("c")))).toEqual(["c"])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      new RegExp(
        `^Todo storage in ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} is not usable \\(E[A-Z]+\\); todo lists are kept in memory only for now\\. The next change tries the disk again\\.$`,
      ),
    )
  }

  it("a folder path under a regular file (ENOTDIR): warns once, keeps lists in memory", async () => {
    const root = await tempDir()
    await writeFile(join(root, "afile"), "")
    const dir = join(root, "afile", "sub")
    const { store, warnings } = open(dir)
    await expectMemoryMode(dir, store, warnings)
    expect(warnings[0]).toContain("(ENOTDIR)")
  })

  it.skipIf(isRoot)("a read-only folder (mode 0o500): warns once, keeps lists in memory", async () => {
    const dir = await tempDir()
    await chmod(dir, 0o500)
    const { store, warnings } = open(dir)
    await expectMemoryMode(dir, store, warnings)
    expect(warnings[0]).toContain("(EACCES)")
  })

  it("a read-only file system (injected EROFS): keeps what is on disk, continues in memory", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    const bytes = await readFile(join(dir, "s.json"), "utf8")
    const readOnly: Fs = {
      ...nodeFs,
      open: (async (path: string, flags?: string) => {
        if (flags !== undefined && flags !== "r") throw code("EROFS")
        return nodeFs.open(path, flags)
      }) as typeof nodeFs.open,
    }
    const { store, warnings } = open(dir, { fs: readOnly })
    expect(texts(await store.read("s"))).toEqual(["on disk"])
    const next = await write(store, "s", append("later"))
    expect([texts(next), next.revision, next.persisted]).toEqual([["on disk", "later"], 2, false])
    expect(texts(await store.read("s"))).toEqual(["on disk", "later"])
    expect(await readFile(join(dir, "s.json"), "utf8")).toBe(bytes)
    expect(warnings).toEqual([
      `Todo storage in ${dir} is not usable (EROFS); todo lists are kept in memory only for now. The next change tries the disk again.`,
    ])
  })

  it("a full disk at write time (injected ENOSPC): no temp or lock left behind, memory until it works again", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    const full: Fs = {
      ...nodeFs,
      rename: async () => {
        throw code("ENOSPC")
      },
    }
    const { store, warnings } = open(dir, { fs: full })
    const next = await write(store, "s", append("later"))
    expect(texts(next)).toEqual(["on disk", "later"])
    expect(next.persisted).toBe(false)
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(texts(await open(dir).store.read("s"))).toEqual(["on disk"])
    expect(warnings).toEqual([
      `Todo storage in ${dir} is not usable (ENOSPC); todo lists are kept in memory only for now. The next change tries the disk again.`,
    ])
  })

  /** An fs whose writes fail with `code` while `state.failing` is set; reads always work. */
  function failingWrites(state: { failing: boolean }, failure = "ENOSPC"): Fs {
    return {
      ...nodeFs,
      open: (async (path: string, flags?: string) => {
        if (state.failing && flags !== undefined && flags !== "r") throw code(failure)
        return nodeFs.open(path, flags)
      }) as typeof nodeFs.open,
    }
  }

  it("a full disk that is freed again: the next change writes the memory list back, and says so once", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    const disk = { failing: true }
    const { store, warnings } = open(dir, { fs: failingWrites(disk) })
    expect((await write(store, "s", append("full 1"))).persisted).toBe(false)
    expect((await write(store, "s", append("full 2"))).persisted).toBe(false)
    expect(texts(await open(dir).store.read("s"))).toEqual(["on disk"])
    disk.failing = false
    const next = await write(store, "s", append("freed"))
    expect([texts(next), next.revision, next.persisted]).toEqual([
      ["on disk", "full 1", "full 2", "freed"],
      4,
      true,
    ])
    const onDisk = await open(dir).store.read("s")
    expect([texts(onDisk), onDisk.revision]).toEqual([["on disk", "full 1", "full 2", "freed"], 4])
    expect(await store.stamp("s")).toMatch(/^\d+:/)
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([
      `Todo storage in ${dir} is not usable (ENOSPC); todo lists are kept in memory only for now. The next change tries the disk again.`,
      `Todo storage in ${dir} works again; the todo list of session "s", kept in memory meanwhile, is saved.`,
    ])
    // A second outage is reported again.
    disk.failing = true
    expect((await write(store, "s", append("again"))).persisted).toBe(false)
    expect(warnings).toHaveLength(3)
  })

  it("a read-only remount that ends: a change made meanwhile by another process wins, and the lost ones are named", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    const disk = { failing: true }
    const { store, warnings } = open(dir, { fs: failingWrites(disk, "EROFS") })
    await write(store, "s", append("here 1"))
    await write(store, "s", append("here 2"))
    await write(open(dir).store, "s", append("elsewhere"))
    disk.failing = false
    const next = await write(store, "s", append("after"))
    expect([texts(next), next.revision, next.persisted]).toEqual([["on disk", "elsewhere", "after"], 3, true])
    expect(texts(await open(dir).store.read("s"))).toEqual(["on disk", "elsewhere", "after"])
    expect(warnings).toEqual([
      `Todo storage in ${dir} is not usable (EROFS); todo lists are kept in memory only for now. The next change tries the disk again.`,
      `Todo storage in ${dir} works again, but another process changed the saved todo list of session "s" meanwhile, ` +
        'so 2 changes made here while it was unusable were not saved (added "here 1" to "P" (pending); added "here 2" to "P" (pending)). ' +
        "The saved list is used from now on.",
    ])
  })

  it("a full disk while taking the lock leaves no temporary lock file behind", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    // The lock's temp file is created, then its write fails: what a full disk does.
    const full: Fs = {
      ...nodeFs,
      open: (async (path: string, flags?: string) => {
        const handle = await nodeFs.open(path, flags)
        if (!String(path).includes(".lock.")) return handle
        return new Proxy(handle, {
          get(target, key: keyof nodeFs.FileHandle) {
            if (key === "writeFile") return async () => Promise.reject(code("ENOSPC"))
            const value = target[key]
            return typeof value === "function" ? value.bind(target) : value
          },
        })
      }) as typeof nodeFs.open,
    }
    const { store, warnings } = open(dir, { fs: full })
    expect((await write(store, "s", append("later"))).persisted).toBe(false)
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toHaveLength(1)
  })

  it("a warn sink that throws does not break storage", async () => {
    const root = await tempDir()
    await writeFile(join(root, "afile"), "")
    const store = createStore({
      dir: join(root, "afile", "x"),
      parse,
      warn: () => {
        throw new Error("sink down")
      },
    })
    expect(texts(await write(store, "s", append("a")))).toEqual(["a"])
  })
})

describe("concurrency in one process", () => {
  it("50 concurrent updates of one session all land", async () => {
    const dir = await tempDir()
    const { store, warnings } = open(dir)
    const ids = Array.from({ length: 50 }, (_, i) => `item ${i}`)
    await Promise.all(ids.map((id) => write(store, "s", append(id))))
    const final = await open(dir).store.read("s")
    expect(texts(final).sort()).toEqual([...ids].sort())
    expect(final.revision).toBe(50)
    expect(warnings).toEqual([])
  })

  it("10 sessions x 50 concurrent updates all land", async () => {
    const dir = await tempDir()
    const { store, warnings } = open(dir)
    const jobs: Promise<Snapshot>[] = []
    for (let i = 0; i < 50; i++)
      for (let s = 0; s < 10; s++) jobs.push(write(store, `s${s}`, append(`s${s}-${i}`)))
    await Promise.all(jobs)
    for (let s = 0; s < 10; s++) {
      const final = await store.read(`s${s}`)
      expect(texts(final)).toHaveLength(50)
      expect(new Set(texts(final))).toEqual(new Set(Array.from({ length: 50 }, (_, i) => `s${s}-${i}`)))
      expect(final.revision).toBe(50)
    }
    expect(warnings).toEqual([])
  })

  it("two store instances in one process (same pid) coordinate through the lock file", async () => {
    const dir = await tempDir()
    const a = open(dir)
    const b = open(dir)
    const jobs: Promise<Snapshot>[] = []
    for (let i = 0; i < 50; i++)
      jobs.push(write(a.store, "s", append(`a${i}`)), write(b.store, "s", append(`b${i}`)))
    await Promise.all(jobs)
    const final = await a.store.read("s")
    expect(texts(final)).toHaveLength(100)
    expect(final.revision).toBe(100)
    expect([...a.warnings, ...b.warnings]).toEqual([])
  })
})

describe("the lock file", () => {
  const lockOf = (dir: string) => join(dir, "s.json.lock")
  const lock = (pid: number, time: number, host = hostname()) =>
    JSON.stringify({ pid, host, time, token: "t" })

  it("breaks a lock left by a dead process at once and sweeps the temp files crashes left", async () => {
    const dir = await tempDir()
    const dead = spawnSync(process.execPath, ["-e", ""]).pid
    await writeFile(lockOf(dir), lock(dead, Date.now()))
    await writeFile(join(dir, `s.json.${dead}.7-abcdef.tmp`), "half a record")
    await writeFile(join(dir, `s.json.lock.${dead}.8-abcdef.tmp`), "half a lock")
    await writeFile(join(dir, "s.json.999999999.1-abcdef.tmp"), "someone else's, in flight")
    await writeFile(join(dir, "s.json.lock.999999998.1-abcdef.tmp"), "someone else's, long dead")
    const old = new Date(Date.now() - 60_000)
    await utimes(join(dir, "s.json.lock.999999998.1-abcdef.tmp"), old, old)
    await writeFile(join(dir, "t.json.lock.999999997.1-abcdef.tmp"), "another record's")
    await utimes(join(dir, "t.json.lock.999999997.1-abcdef.tmp"), old, old)
    // Waiting for the fresh lock would end in a timeout, a warning and a list kept in memory only.
    const { store, warnings } = open(dir, { staleLockMs: 60_000 })
    const next = await write(store, "s", append("a"))
    expect([texts(next), next.persisted]).toEqual([["a"], true])
    expect((await readdir(dir)).sort()).toEqual([
      "s.json",
      "s.json.999999999.1-abcdef.tmp",
      "t.json.lock.999999997.1-abcdef.tmp",
    ])
    expect(warnings).toEqual([])
  })

  /** A live process that is not this one: a lock holder that is stopped or slow, as far as a waiter can tell. */
  function liveProcess() {
    const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" })
    children.push(child)
    return child
  }
  const children: ChildProcess[] = []

  it("never breaks the lock of a live process on this host on age alone: busy, nothing changed, no memory", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    const holder = liveProcess()
    const held = lock(holder.pid!, Date.now() - 10 * 60_000)
    await writeFile(lockOf(dir), held)
    await writeFile(join(dir, `s.json.${holder.pid}.3-abcdef.tmp`), "its write under way")
    const old = new Date(Date.now() - 10 * 60_000)
    await utimes(join(dir, `s.json.${holder.pid}.3-abcdef.tmp`), old, old)
    const { store, warnings } = open(dir, { lockWaitMs: 100, staleLockMs: 2000 })
    const next = await write(store, "s", append("later"))
    expect([texts(next), next.revision, next.persisted, next.busy]).toEqual([["on disk"], 1, true, true])
    expect(await readFile(lockOf(dir), "utf8")).toBe(held)
    expect(await store.stamp("s")).toMatch(/^\d+:/)
    expect(warnings).toEqual([])
    // Once the holder is gone its lock and temp file go at once, and the next change lands.
    holder.kill("SIGKILL")
    await new Promise((resolve) => holder.once("exit", resolve))
    const after = await write(store, "s", append("later"))
    expect([texts(after), after.revision, after.persisted, after.busy]).toEqual([
      ["on disk", "later"],
      2,
      true,
      undefined,
    ])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([])
  })

  it("sweeps no temporary file of a live process, however old, when it breaks a dead holder's lock", async () => {
    const dir = await tempDir()
    const dead = spawnSync(process.execPath, ["-e", ""]).pid
    const live = liveProcess().pid!
    await writeFile(lockOf(dir), lock(dead, Date.now()))
    const temp = `s.json.${live}.9-abcdef.tmp`
    await writeFile(join(dir, temp), "a live writer's")
    const old = new Date(Date.now() - 10 * 60_000)
    await utimes(join(dir, temp), old, old)
    const { store, warnings } = open(dir)
    expect((await write(store, "s", append("a"))).persisted).toBe(true)
    expect((await readdir(dir)).sort()).toEqual(["s.json", temp])
    expect(warnings).toEqual([])
  })

  it.skipIf(process.platform !== "linux")(
    "breaks a lock whose pid now belongs to another process (its start identity differs)",
    async () => {
      const dir = await tempDir()
      // This test's own pid is alive, but not as the process that took this lock.
      await writeFile(
        lockOf(dir),
        JSON.stringify({
          pid: process.pid,
          host: hostname(),
          start: "another boot:1",
          time: Date.now(),
          token: "t",
        }),
      )
      const { store, warnings } = open(dir, { lockWaitMs: 60_000 })
      const next = await write(store, "s", append("a"))
      expect([next.persisted, next.busy]).toEqual([true, undefined])
      expect(await readdir(dir)).toEqual(["s.json"])
      expect(warnings).toEqual([])
    },
  )

  it("breaks a lock this process took and failed to release, at once", async () => {
    const dir = await tempDir()
    let failRelease = true
    const fs: Fs = {
      ...nodeFs,
      unlink: async (path) => {
        if (failRelease && String(path) === lockOf(dir)) {
          failRelease = false
          throw code("EIO")
        }
        return nodeFs.unlink(path)
      },
    }
    const { store, warnings } = open(dir, { fs, lockWaitMs: 60_000 })
    await write(store, "s", append("a"))
    expect(await readdir(dir)).toContain("s.json.lock")
    const next = await write(store, "s", append("b"))
    expect([texts(next), next.persisted, next.busy]).toEqual([["a", "b"], true, undefined])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([])
  })

  it("waits, without spinning, on a lock it cannot read, and answers busy", async () => {
    const dir = await tempDir()
    await writeFile(lockOf(dir), lock(999_999_999, Date.now(), "elsewhere"))
    let lockReads = 0
    const fs: Fs = {
      ...nodeFs,
      readFile: ((path: string, options: unknown) => {
        if (path === lockOf(dir)) {
          lockReads++
          return Promise.reject(code("EIO"))
        }
        return nodeFs.readFile(path, options as "utf8")
      }) as Fs["readFile"],
    }
    const { store, warnings } = open(dir, { fs, lockWaitMs: 200, staleLockMs: 20 })
    const next = await write(store, "s", append("a"))
    expect([next.busy, next.persisted]).toEqual([true, true])
    // Backing off between looks: a few dozen reads at most, not one per turn of the event loop.
    expect(lockReads).toBeLessThan(100)
    expect(warnings).toEqual([])
  })

  it("judges an unreadable lock by its age", async () => {
    const dir = await tempDir()
    await writeFile(lockOf(dir), "")
    const old = new Date(Date.now() - 10_000)
    await utimes(lockOf(dir), old, old)
    const { store, warnings } = open(dir, { staleLockMs: 2000 })
    expect((await write(store, "s", append("a"))).persisted).toBe(true)
    expect(warnings).toEqual([])
  })

  it("waits for a live holder and proceeds once it lets go", async () => {
    const dir = await tempDir()
    await writeFile(lockOf(dir), lock(process.pid, Date.now()))
    let released = false
    setTimeout(() => {
      released = true
      void rm(lockOf(dir))
    }, 200)
    const { store, warnings } = open(dir)
    expect((await write(store, "s", append("a"))).persisted).toBe(true)
    expect(released, "the write waited for the holder").toBe(true)
    expect(warnings).toEqual([])
  })

  /*
   * The waits below are judged on the store's own clock: Date is frozen, and only the test moves it, so
   * a loaded machine (slow timers, slow file system) cannot change what the store decides.
   */
  afterEach(() => {
    vi.useRealTimers()
    for (const child of children.splice(0)) child.kill("SIGKILL")
  })
  function frozenClock() {
    vi.useFakeTimers({ toFake: ["Date"] })
    const start = Date.now()
    return { tick: (ms: number) => vi.setSystemTime(Date.now() + ms), elapsed: () => Date.now() - start }
  }

  /**
   * Hands the lock from one fake live holder to the next `times` times (Infinity: until stopped), moving
   * the clock 50 ms per hand-over; then lets go. Real time between hand-overs is short and does not count.
   */
  function churn(dir: string, times: number, clock: ReturnType<typeof frozenClock>) {
    let n = 0
    let timer: NodeJS.Timeout | undefined
    // Stopped holders write nothing more: a hand-over already under way when the test ends must not write
    // into a folder the test has removed.
    let stopped = false
    const state = { handovers: 0, releasedAt: -1 }
    const next = async () => {
      if (stopped) return
      if (n++ >= times) {
        await rm(lockOf(dir), { force: true })
        state.releasedAt = clock.elapsed()
        return
      }
      clock.tick(50)
      await writeFile(
        lockOf(dir),
        JSON.stringify({ pid: process.pid, host: hostname(), time: Date.now(), token: `h${n}` }),
      )
      state.handovers = n
      if (!stopped) timer = setTimeout(() => next().catch(() => {}), 30)
    }
    return {
      started: next(),
      state,
      stop: () => {
        stopped = true
        clearTimeout(timer)
      },
    }
  }

  it("keeps waiting past lockWaitMs while the lock keeps changing hands", async () => {
    const dir = await tempDir()
    const clock = frozenClock()
    const holders = churn(dir, 16, clock)
    await holders.started
    const { store, warnings } = open(dir, { lockWaitMs: 300, staleLockMs: 60_000 })
    expect((await write(store, "s", append("a"))).persisted).toBe(true)
    // 16 holders of 50 ms each: 800 ms of the store's time, well past one lockWaitMs.
    expect(holders.state.releasedAt).toBeGreaterThanOrEqual(800)
    expect(warnings).toEqual([])
  })

  it("gives up after 4 x lockWaitMs in all even while the lock changes hands", async () => {
    const dir = await tempDir()
    const clock = frozenClock()
    const holders = churn(dir, Number.POSITIVE_INFINITY, clock)
    await holders.started
    // The store reads the record only once it has stopped waiting: that read marks when it gave up.
    let gaveUpAt = -1
    const fs: Fs = {
      ...nodeFs,
      readFile: ((path: string, options: unknown) => {
        if (path === join(dir, "s.json") && gaveUpAt < 0) gaveUpAt = clock.elapsed()
        return nodeFs.readFile(path, options as "utf8")
      }) as Fs["readFile"],
    }
    const { store, warnings } = open(dir, { fs, lockWaitMs: 300, staleLockMs: 60_000 })
    const from = clock.elapsed()
    const next = await write(store, "s", append("a"))
    holders.stop()
    expect([texts(next), next.persisted, next.busy]).toEqual([[], true, true])
    // 4 x 300 ms of its own time, counted from its first attempt. Hand-overs keep moving the clock in
    // 50 ms steps while the store finishes its last wait and reads, and a loaded machine lets several land
    // in that gap: the bound only has to tell 4 x lockWaitMs from 5 x.
    expect(gaveUpAt - from).toBeGreaterThanOrEqual(1200)
    expect(gaveUpAt - from).toBeLessThan(1500)
    expect(warnings).toEqual([])
  })

  it("gives up on another machine's fresh lock after lockWaitMs: busy, nothing changed, no warning, no memory", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    // Another host's lock: its pid means nothing here, so only age could make it stale.
    const foreign = lock(999_999_999, Date.now(), "elsewhere")
    await writeFile(lockOf(dir), foreign)
    const { store, warnings } = open(dir, { lockWaitMs: 300, staleLockMs: 60_000 })
    const clock = frozenClock()
    const ticker = setInterval(() => clock.tick(10), 5)
    const next = await write(store, "s", append("later"))
    clearInterval(ticker)
    const waited = clock.elapsed()
    // One holder that never lets go: it gives up after lockWaitMs, not 4 x lockWaitMs.
    expect(waited).toBeGreaterThanOrEqual(300)
    expect(waited).toBeLessThan(1200)
    expect([texts(next), next.revision, next.persisted, next.busy]).toEqual([["on disk"], 1, true, true])
    expect(await readFile(lockOf(dir), "utf8")).toBe(foreign)
    expect(warnings).toEqual([])
    // The holder lets go: the next change lands on disk.
    await rm(lockOf(dir))
    const after = await write(store, "s", append("more"))
    expect([texts(after), after.revision, after.persisted]).toEqual([["on disk", "more"], 2, true])
    expect(texts(await open(dir).store.read("s"))).toEqual(["on disk", "more"])
  })

  it("breaks a lock dated ahead of this clock once it has watched it unchanged for staleLockMs", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("on disk"))
    const skewed = lock(999_999_999, Date.now() + 3_600_000, "elsewhere")
    await writeFile(lockOf(dir), skewed)
    const { store, warnings } = open(dir, { lockWaitMs: 1000, staleLockMs: 300 })
    const clock = frozenClock()
    const ticker = setInterval(() => clock.tick(10), 5)
    const next = await write(store, "s", append("later"))
    clearInterval(ticker)
    expect(clock.elapsed()).toBeGreaterThanOrEqual(300)
    expect([texts(next), next.revision, next.persisted, next.busy]).toEqual([
      ["on disk", "later"],
      2,
      true,
      undefined,
    ])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([])
  })
})

describe("fenced writes", () => {
  const lockOf = (dir: string) => join(dir, "s.json.lock")

  /** Runs `act` once, when the store has written its record's temp file and is about to rename it. */
  function beforeFirstRename(dir: string, act: (temp: string) => Promise<void>): Fs {
    let done = false
    return {
      ...nodeFs,
      rename: async (from, to) => {
        if (!done && String(to) === join(dir, "s.json")) {
          done = true
          await act(String(from))
        }
        return nodeFs.rename(from, to)
      },
    }
  }

  it("a holder whose lock was broken and taken meanwhile renames nothing, and makes its change again on the new record", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("first"))
    const other = open(dir).store
    // While the first holder stalls before its rename, another machine breaks its lock and commits a change.
    let fenceChecks = 0
    const fs: Fs = {
      ...nodeFs,
      open: (async (path: string, flags?: string) => {
        if (flags === "wx" && /s\.json\.\d+\.\d+-[0-9a-f]+\.tmp$/.test(String(path)) && fenceChecks++ === 0) {
          await writeFile(
            lockOf(dir),
            JSON.stringify({ pid: 1, host: "elsewhere", time: Date.now(), token: "x" }),
          )
          const record = JSON.parse(await readFile(join(dir, "s.json"), "utf8"))
          record.revision += 1
          record.list[0].tasks.push({ text: "from elsewhere", status: "pending" })
          await writeFile(join(dir, "s.json"), JSON.stringify(record))
          setTimeout(() => void rm(lockOf(dir), { force: true }), 20)
        }
        return nodeFs.open(path, flags)
      }) as typeof nodeFs.open,
    }
    const { store, warnings } = open(dir, { fs })
    const next = await write(store, "s", append("stalled"))
    expect([texts(next), next.revision, next.persisted, next.busy]).toEqual([
      ["first", "from elsewhere", "stalled"],
      3,
      true,
      undefined,
    ])
    const onDisk = await other.read("s")
    expect([texts(onDisk), onDisk.revision]).toEqual([["first", "from elsewhere", "stalled"], 3])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([])
  })

  it("a writer whose temporary file was swept writes again instead of going to memory", async () => {
    const dir = await tempDir()
    await write(open(dir).store, "s", append("first"))
    const { store, warnings } = open(dir, { fs: beforeFirstRename(dir, (temp) => rm(temp)) })
    const next = await write(store, "s", append("second"))
    expect([texts(next), next.revision, next.persisted]).toEqual([["first", "second"], 2, true])
    expect(texts(await open(dir).store.read("s"))).toEqual(["first", "second"])
    expect(await readdir(dir)).toEqual(["s.json"])
    expect(warnings).toEqual([])
  })
})

describe("across processes", () => {
  let built = ""
  let cleanup = async () => {}
  beforeAll(async () => {
    ;({ module: built, cleanup } = await buildStore())
  })
  afterAll(() => cleanup())

  it("4 processes x 50 concurrent updates of one session: all 200 land", async () => {
    const dir = await tempDir()
    await mkdir(dir, { recursive: true })
    const children = ["p0", "p1", "p2", "p3"].map((tag) =>
      run(process.execPath, [CHILD, built, dir, "shared", "race", tag, "50"], { timeout: 30_000 }),
    )
    const outputs = await Promise.all(children)
    for (const { stdout } of outputs) expect(JSON.parse(stdout)).toEqual({ warnings: [] })
    const final = await open(dir).store.read("shared")
    const expected = ["p0", "p1", "p2", "p3"].flatMap((tag) =>
      Array.from({ length: 50 }, (_, i) => `${tag}-${i}`),
    )
    expect(texts(final).sort()).toEqual(expected.sort())
    expect(final.revision).toBe(200)
    expect(await readdir(dir)).toEqual(["shared.json"])
    expect((await stat(join(dir, "shared.json"))).isFile()).toBe(true)
  }, 40_000)
})
