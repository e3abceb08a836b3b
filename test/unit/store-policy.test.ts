// The store's decisions without a file system: who holds a lock, when a lock may be broken or a temp file
// swept, and whether a list kept in memory is written back once storage works again.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  type Fallback,
  type HolderFacts,
  judgeHolder,
  mayBreakLock,
  maySweepTemp,
  reunite,
} from "../../src/store/policy.ts"
import type { Snapshot } from "../../src/store/record.ts"

const holderFacts = fc.record<HolderFacts>({
  onThisHost: fc.boolean(),
  pidAlive: fc.boolean(),
  startInLock: fc.option(fc.constantFrom("b:1", "b:2"), { nil: undefined }),
  startNow: fc.option(fc.constantFrom("b:1", "b:2"), { nil: undefined }),
  ownRealm: fc.boolean(),
  heldHere: fc.boolean(),
})
const ms = fc.integer({ min: -10_000_000, max: 10_000_000 })

describe("judgeHolder / mayBreakLock", () => {
  it("never breaks the lock of a live process on this host that still runs as the one that took it", () => {
    fc.assert(
      fc.property(holderFacts, ms, fc.nat(), fc.nat(), (facts, ageMs, watchedMs, staleMs) => {
        const sameProcess =
          facts.startInLock === undefined ||
          facts.startNow === undefined ||
          facts.startInLock === facts.startNow
        const live = facts.onThisHost && !facts.ownRealm && facts.pidAlive && sameProcess
        const heldHere = facts.onThisHost && facts.ownRealm && facts.heldHere
        const holder = judgeHolder(facts)
        if (live || heldHere) {
          expect(holder).toBe("running")
          expect(mayBreakLock({ holder, ageMs, watchedMs, staleMs })).toBe(false)
        }
      }),
    )
  })

  it("breaks at once the lock of a process that is gone, reused or leaked; never judges another machine's", () => {
    fc.assert(
      fc.property(holderFacts, ms, fc.nat(), fc.nat(), (facts, ageMs, watchedMs, staleMs) => {
        const holder = judgeHolder(facts)
        if (!facts.onThisHost) expect(holder).toBe("unconfirmed")
        if (holder === "gone" || holder === "leaked")
          expect(mayBreakLock({ holder, ageMs, watchedMs: 0, staleMs })).toBe(true)
        if (holder === "unconfirmed")
          expect(mayBreakLock({ holder, ageMs, watchedMs, staleMs })).toBe(
            ageMs > staleMs || watchedMs >= staleMs,
          )
      }),
    )
    expect(
      judgeHolder({
        onThisHost: true,
        pidAlive: true,
        startInLock: "b:1",
        startNow: "b:2",
        ownRealm: false,
        heldHere: false,
      }),
    ).toBe("gone")
    expect(
      judgeHolder({
        onThisHost: true,
        pidAlive: false,
        startInLock: undefined,
        startNow: undefined,
        ownRealm: false,
        heldHere: false,
      }),
    ).toBe("gone")
    expect(
      judgeHolder({
        onThisHost: true,
        pidAlive: true,
        startInLock: undefined,
        startNow: undefined,
        ownRealm: true,
        heldHere: false,
      }),
    ).toBe("leaked")
  })

  it("a lock nobody can vouch for that is dated ahead is broken only after being watched for staleMs", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10_000_000 }),
        fc.nat(100_000),
        fc.nat(100_000),
        (ahead, watchedMs, staleMs) => {
          expect(mayBreakLock({ holder: "unconfirmed", ageMs: -ahead, watchedMs, staleMs })).toBe(
            watchedMs >= staleMs,
          )
        },
      ),
    )
  })
})

describe("maySweepTemp", () => {
  it("never sweeps a live process's temp; sweeps a gone holder's at once, others when old", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.boolean(), ms, fc.nat(), (pidAlive, ofGoneHolder, ageMs, staleMs) => {
        const swept = maySweepTemp({ pidAlive, ofGoneHolder, ageMs, staleMs })
        expect(swept).toBe(!pidAlive && (ofGoneHolder || ageMs > staleMs))
      }),
    )
  })
})

describe("reunite", () => {
  const snap = (revision: number, tag = "x"): Snapshot => ({
    list: [{ name: tag, tasks: [] }],
    revision,
    edits: [],
    persisted: true,
  })
  const fallback = fc
    .tuple(fc.nat(50), fc.nat(5), fc.option(fc.nat(50), { nil: undefined }))
    .map(([start, made, known]): Fallback => {
      const storedThen = known === undefined ? undefined : start
      return { kept: { ...snap(start + made, "memory"), persisted: false }, start, storedThen }
    })

  it("writes back only what nobody overwrote, at a revision above the stored one; otherwise counts what is lost", () => {
    fc.assert(
      fc.property(fallback, fc.nat(60), (fb, storedRevision) => {
        const stored = snap(storedRevision, "stored")
        const verdict = reunite(stored, fb)
        const made = fb.kept.revision - fb.start
        const untouched =
          fb.storedThen === undefined ? storedRevision === 0 : storedRevision === fb.storedThen
        if (made > 0 && untouched) {
          expect(verdict.kind).toBe("write-back")
          if (verdict.kind !== "write-back") return
          expect(verdict.snap.list).toEqual(fb.kept.list)
          expect(verdict.snap.persisted).toBe(true)
          expect(verdict.snap.revision).toBeGreaterThan(stored.revision)
        } else expect(verdict).toEqual({ kind: "stored", unsaved: made })
      }),
    )
  })
})
