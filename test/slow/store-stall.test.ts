// Stalled writers: a child appends to one session's record, one update after another, and is stopped with
// SIGSTOP at random moments (drawn from the run's seed; TEST_SEED replays the schedule) for longer than a lock
// may be held by a process nobody can vouch for, while a second child keeps writing. The stopped writer's lock
// must not be broken under it: every update a child saw committed is in the record, the revision never goes
// back, and no child falls back to memory. Asserts content and revisions, never time.

import { type ChildProcess, fork } from "node:child_process"
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import fc from "fast-check"
import { afterAll, expect, inject, it } from "vitest"
import { buildStore, CHILD } from "../fixtures/build-store.ts"

// STOPS=10 makes a quick local run; the suite uses 30.
const STOPS = Number(process.env.STOPS ?? 30)
const SEED = inject("seed")
/** Per stop: how long the writer runs before it is stopped, and how long it stays stopped (ms). */
const SCHEDULE = fc.sample(
  fc.record({ runMs: fc.integer({ min: 0, max: 40 }), stopMs: fc.integer({ min: 150, max: 400 }) }),
  { seed: SEED, numRuns: STOPS },
)
/** The children's lock settings: a lock nobody vouches for would be broken well within one stop. */
const OPTIONS = JSON.stringify({ lockWaitMs: 150, staleLockMs: 60 })

let dir = ""
const children = new Set<ChildProcess>()
const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const child of children) {
    child.kill("SIGCONT")
    child.kill("SIGKILL")
  }
  for (const cleanup of cleanups) await cleanup()
  if (dir) await rm(dir, { recursive: true, force: true })
})

interface Writer {
  readonly child: ChildProcess
  /** Texts of the updates this writer saw land, in order, with their revisions. */
  readonly committed: { text: string; revision: number }[]
  busy: number
  readonly notPersisted: string[]
  readonly ready: Promise<void>
  readonly done: Promise<unknown[]>
}

/** A writer appending "<tag>-<i>", `pauseMs` apart (the other writer pauses so the stopped one gets the lock often). */
function writer(built: string, tag: string, pauseMs: number): Writer {
  const child = fork(CHILD, [built, dir, "stall", "append", tag, String(pauseMs), OPTIONS], {
    execArgv: [],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  })
  children.add(child)
  child.once("exit", () => children.delete(child))
  const w = { child, committed: [], busy: 0, notPersisted: [] } as unknown as Writer
  const ready = new Promise<void>((resolve) => child.on("message", (m) => m === "ready" && resolve()))
  const done = new Promise<unknown[]>((resolve, reject) => {
    child.on("message", (m: Record<string, unknown> | string) => {
      if (typeof m !== "object") return
      if (typeof m.committed === "string") {
        w.committed.push({ text: m.committed, revision: m.revision as number })
        if (m.persisted !== true) w.notPersisted.push(m.committed)
      } else if (typeof m.busy === "string") w.busy++
      else if (m.done) resolve(m.warnings as unknown[])
    })
    child.once("exit", (code) => reject(new Error(`writer ${tag} exited (${code}) before it was done`)))
  })
  // Killed at the end of a failed run: the rejection is only news to a run that still waits for it.
  done.catch(() => {})
  return Object.assign(w, { ready, done })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

it(`no committed update is lost across ${STOPS} SIGSTOPs of a writer while another writes`, async () => {
  const { module: built, cleanup } = await buildStore()
  cleanups.push(cleanup)
  dir = await mkdtemp(join(tmpdir(), "todo-stall-"))
  const file = join(dir, "stall.json")
  const stopped = writer(built, "a", 0)
  const other = writer(built, "b", 4)
  await Promise.all([stopped.ready, other.ready])
  stopped.child.send("start")
  other.child.send("start")

  let lastRevision = 0
  let heldAtStop = 0
  let writingAtStop = 0
  let otherLanded = 0
  let otherBusy = 0
  /** Every update a writer has reported so far is in the record, in its order, and the revision has not gone back. */
  const check = async () => {
    // What the writers had reported before the read: later reports may land after it.
    const reported = [stopped, other].map((w) => w.committed.map((c) => c.text))
    const record = JSON.parse(await readFile(file, "utf8"))
    const texts: string[] = record.list[0].tasks.map((t: { text: string }) => t.text)
    expect(record.revision).toBeGreaterThanOrEqual(lastRevision)
    lastRevision = record.revision
    for (const [i, tag] of ["a", "b"].entries()) {
      const mine = texts.filter((t) => t.startsWith(`${tag}-`))
      expect(mine.slice(0, reported[i]!.length)).toEqual(reported[i])
    }
  }

  while (stopped.committed.length === 0 || other.committed.length === 0) await sleep(5)
  for (const { runMs, stopMs } of SCHEDULE) {
    await sleep(runMs)
    stopped.child.kill("SIGSTOP")
    const names = await readdir(dir)
    if (names.some((n) => n.startsWith(`stall.json.${stopped.child.pid}.`) && n.endsWith(".tmp")))
      writingAtStop++
    try {
      if (JSON.parse(await readFile(`${file}.lock`, "utf8")).pid === stopped.child.pid) heldAtStop++
    } catch {
      // No lock at this moment, or one being replaced.
    }
    const landedBefore = other.committed.length
    const busyBefore = other.busy
    await sleep(stopMs)
    otherLanded += other.committed.length - landedBefore
    otherBusy += other.busy - busyBefore
    await check()
    stopped.child.kill("SIGCONT")
    await check()
  }

  stopped.child.send("stop")
  other.child.send("stop")
  const warnings = await Promise.all([stopped.done, other.done])
  await check()
  const record = JSON.parse(await readFile(file, "utf8"))
  const texts: string[] = record.list[0].tasks.map((t: { text: string }) => t.text)
  const committed = [...stopped.committed, ...other.committed]
  console.log(
    `stall test (seed ${SEED}): ${STOPS} stops, ${committed.length} updates checked ` +
      `(${stopped.committed.length} by the stopped writer, ${other.committed.length} by the other); ` +
      `${heldAtStop} stops while it held the lock, ${writingAtStop} with its temp file present; during the stops ` +
      `the other writer landed ${otherLanded} updates and was told busy ${otherBusy} times`,
  )
  expect(warnings).toEqual([[], []])
  expect([...stopped.notPersisted, ...other.notPersisted]).toEqual([])
  // Exactly the committed updates, each once, and one revision per update.
  expect([...texts].sort()).toEqual(committed.map((c) => c.text).sort())
  expect(record.revision).toBe(committed.length)
  expect(new Set(committed.map((c) => c.revision)).size).toBe(committed.length)
  expect(await readdir(dir)).toEqual(["stall.json"])
  // The stops landed in the middle of updates, and the other writer wrote during them.
  expect(heldAtStop).toBeGreaterThan(0)
  expect(otherLanded + otherBusy).toBeGreaterThan(0)
}, 120_000)
