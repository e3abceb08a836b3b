// Crash safety of the real write path: a child flips the record between lists A and B as fast as it can (lock,
// temp file, fsync, rename, folder fsync) and is SIGKILLed at random moments (drawn from the run's seed, so
// TEST_SEED replays the same schedule of delays). After every kill the record must parse
// and hold exactly A or B. This checks process crashes, not power loss (which fsync covers but no test here can).

import { type ChildProcess, fork } from "node:child_process"
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { afterAll, expect, inject, it } from "vitest"
import { currentList } from "../../src/core/history/history.ts"
import { decodeHistory } from "../../src/core/history/stored.ts"
import type { TodoList } from "../../src/core/list/types.ts"
import { RECORD_VERSION } from "../../src/store/record.ts"
import { createStore } from "../../src/store/store.ts"
import { buildStore, CHILD } from "../fixtures/build-store.ts"

// Must match the lists in test/fixtures/store-child.mjs.
const A: TodoList = [{ name: "A", tasks: [{ text: "alpha", status: "pending" }] }]
const B: TodoList = [
  {
    name: "B",
    tasks: [
      { text: "beta one", status: "completed" },
      { text: "beta two", status: "in_progress" },
    ],
  },
]

// KILLS=40 makes a quick local run; the suite uses 200.
const KILLS = Number(process.env.KILLS ?? 200)
const SEED = inject("seed")
/** Milliseconds between a child's signal and its SIGKILL, one per kill. */
const DELAYS = fc.sample(fc.double({ min: 0, max: 15, noNaN: true }), { seed: SEED, numRuns: KILLS })

let dir = ""
const children = new Set<ChildProcess>()
const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL")
  for (const cleanup of cleanups) await cleanup()
  if (dir) await rm(dir, { recursive: true, force: true })
})

/** Resolves true once the child sends `wanted`, false if it exits first. */
function message(child: ChildProcess, wanted: string): Promise<boolean> {
  return new Promise((resolve) => {
    child.on("message", (m) => m === wanted && resolve(true))
    child.once("exit", () => resolve(false))
  })
}

it(`the record is always A or B across ${KILLS} SIGKILLs of a writer`, async () => {
  const { module: built, cleanup } = await buildStore()
  cleanups.push(cleanup)
  dir = await mkdtemp(join(tmpdir(), "todo-crash-"))
  const file = join(dir, "crash.json")
  const begin = Date.now()
  let kills = 0
  let duringWrite = 0
  let holdingLock = 0
  let lastRevision = 0
  let bootWait = 0
  const childWarnings: unknown[] = []

  // Node takes a while to boot on a busy machine, so booted children wait in a small pool until they are started.
  const boot = () => {
    const child = fork(CHILD, [built, dir, "crash", "crash"], {
      execArgv: [],
      stdio: ["ignore", "ignore", "inherit", "ipc"],
    })
    children.add(child)
    child.once("exit", () => children.delete(child))
    child.on("message", (m) => {
      if (typeof m === "object" && m !== null && "warnings" in m)
        childWarnings.push(...(m.warnings as unknown[]))
    })
    return {
      child,
      ready: message(child, "ready"),
      exited: new Promise((resolve) => child.once("exit", resolve)),
    }
  }
  const pool = [boot(), boot()]

  while (kills < KILLS) {
    const { child, ready, exited } = pool.shift()!
    pool.push(boot())
    const waitFrom = Date.now()
    expect(await ready).toBe(true)
    bootWait += Date.now() - waitFrom
    // Every fourth child dies during start-up (breaking its predecessor's lock, sweeping), the rest mid-loop.
    const early = kills % 4 === 0
    const running = message(child, early ? "go" : "wrote")
    child.send("start")
    expect(await running).toBe(true)
    await new Promise((resolve) => setTimeout(resolve, DELAYS[kills]))
    child.kill("SIGKILL")
    await exited
    kills++

    const names = await readdir(dir)
    // The temp file exists from its creation until the rename lands: a kill in that span interrupted a write.
    if (names.some((n) => n.startsWith(`crash.json.${child.pid}.`) && n.endsWith(".tmp"))) duringWrite++
    if (names.includes("crash.json.lock")) {
      const lock = JSON.parse(await readFile(`${file}.lock`, "utf8"))
      if (lock.pid === child.pid) holdingLock++
    }
    if (!names.includes("crash.json")) {
      expect(lastRevision).toBe(0)
      continue
    }
    const record = JSON.parse(await readFile(file, "utf8"))
    expect(record.version).toBe(RECORD_VERSION)
    expect(record.session).toBe("crash")
    expect(record.edits).toEqual([])
    expect([A, B]).toContainEqual(record.list)
    // The history is written with the list, in the same rename: it always reads and ends in that list.
    const history = decodeHistory(record.history, record.list)
    expect([history.warning, currentList(history.history)]).toEqual([undefined, record.list])
    expect(record.list).toEqual(record.revision % 2 === 1 ? A : B)
    expect(record.revision).toBeGreaterThanOrEqual(lastRevision)
    lastRevision = record.revision
  }

  const runtime = Date.now() - begin
  for (const spare of pool) spare.child.kill("SIGKILL")
  await Promise.all(pool.map((spare) => spare.exited))
  const warnings: string[] = []
  const store = createStore({
    dir,
    parse: (raw) => (Array.isArray(raw) ? { ok: true, value: raw } : { ok: false, error: "not a list" }),
    warn: (m) => warnings.push(m),
  })
  const final = await store.read("crash")
  const leftovers = (await readdir(dir)).filter((n) => n !== "crash.json")
  console.log(
    `crash test (seed ${SEED}): ${kills} kills in ${(runtime / 1000).toFixed(1)} s, ${duringWrite} during a write ` +
      `(temp file present), ${holdingLock} while holding the lock, revision ${lastRevision} reached; ` +
      `leftover files: ${leftovers.length}; ${(bootWait / 1000).toFixed(1)} s spent waiting for children to boot`,
  )
  expect(kills).toBeGreaterThanOrEqual(KILLS)
  expect(childWarnings).toEqual([])
  expect(warnings).toEqual([])
  expect(final.persisted).toBe(true)
  expect([A, B]).toContainEqual(final.list)
  // Each child that was killed mid-loop had finished at least one write.
  expect(lastRevision).toBeGreaterThanOrEqual(kills - Math.ceil(kills / 4))
  expect(duringWrite).toBeGreaterThan(0)
  // About 15-25 s on an idle two-core machine; the generous timeout is for loaded CI hosts.
}, 180_000)
