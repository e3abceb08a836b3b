// The list a session's own conversation carries (core/history/rebuild.ts).
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { sameList } from "../../src/core/history/history.ts"
import { readCarried, transcriptList } from "../../src/core/history/rebuild.ts"
import { CARRIED_LIST_VERSION } from "../../src/core/list/carried.ts"
import { normalize } from "../../src/core/list/reducers.ts"
import { DEFAULT_LIMITS, STATUSES } from "../../src/core/list/types.ts"
import { OPEN_SAMPLE, phase, task } from "../fixtures/lists.ts"
import { LATER, msg } from "../fixtures/transcripts.ts"

describe("the list a conversation carries", () => {
  test("none: no part carries a list", () => {
    expect(transcriptList([msg("m1", { role: "user" }), msg("m2")], DEFAULT_LIMITS)).toEqual({ kind: "none" })
  })

  test("the newest carried list decides, and is what the model was shown", () => {
    const got = transcriptList(
      [msg("m1", { lists: [OPEN_SAMPLE] }), msg("m2", { lists: [[], LATER] })],
      DEFAULT_LIMITS,
    )
    expect(got).toMatchObject({ kind: "found", list: LATER, shown: LATER, skipped: [] })
  })

  test("a list of a newer format is passed over: the older list stands in, and the model was shown another", () => {
    const got = transcriptList(
      [msg("m1", { lists: [OPEN_SAMPLE] }), msg("m2", { lists: [LATER], version: CARRIED_LIST_VERSION + 1 })],
      DEFAULT_LIMITS,
    )
    expect(got.kind).toBe("found")
    if (got.kind !== "found") return
    expect(got.list).toEqual(OPEN_SAMPLE)
    expect(got.shown).toBeNull()
    expect(got.skipped).toEqual([
      `message 2: it was written by a newer plugin version (list format ${CARRIED_LIST_VERSION + 1})`,
    ])
  })

  test("malformed lists are passed over with the reason; none readable is unreadable", () => {
    const got = transcriptList(
      [msg("m1", { lists: ["not a list", [{ name: "P", tasks: [{ text: 3 }] }]] })],
      DEFAULT_LIMITS,
    )
    expect(got.kind).toBe("unreadable")
    if (got.kind !== "unreadable") return
    expect(got.skipped).toHaveLength(2)
    expect(got.skipped[1]).toMatch(/not an array of phases/)
  })

  test("a carried list passes the checks an import passes: characters, counts, lengths", () => {
    const limits = { ...DEFAULT_LIMITS, maxTasks: 2, maxPhases: 2, maxTaskChars: 20 }
    const read = (list: unknown) => readCarried({ list, version: undefined }, limits)
    expect(read([phase("P", task("ok \u001b[31m red"))])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/remove it/),
    })
    expect(read([phase("P", task("a"), task("b"), task("c"))])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/3 tasks; the limit is 2/),
    })
    expect(read([phase("A"), phase("B"), phase("C")])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/3 phases/),
    })
    expect(read([phase("P", task("x".repeat(21)))])).toMatchObject({
      ok: false,
      error: expect.stringMatching(/21 characters/),
    })
    expect(read([phase("P", task("blocked", "blocked", "\u202e evil"))])).toMatchObject({ ok: false })
    expect(read([phase("P", task("fine"))])).toMatchObject({ ok: true })
  })

  test("counts are checked before the list is walked: a huge array is refused at once", () => {
    const huge = Array.from({ length: 100_000 }, () => ({ name: 1, tasks: "x" }))
    expect(readCarried({ list: huge, version: 1 }, DEFAULT_LIMITS)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/100000 phases/),
    })
  })

  const textArb = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}[A-Za-z0-9]$/)
  const listArb = fc
    .uniqueArray(textArb, { minLength: 0, maxLength: 12 })
    .chain((texts) =>
      fc.tuple(
        fc.constant(texts),
        fc.array(fc.constantFrom(...STATUSES), { minLength: texts.length, maxLength: texts.length }),
        fc.integer({ min: 1, max: 3 }),
      ),
    )
    .map(([texts, statuses, phases]) => {
      const list = Array.from({ length: Math.min(phases, Math.max(texts.length, 1)) }, (_, i) =>
        phase(`Phase ${i + 1}`),
      )
      texts.forEach((text, i) => {
        const status = statuses[i]!
        ;(list[i % list.length]!.tasks as unknown[]).push(
          status === "blocked" ? task(text, status, "waits") : task(text, status),
        )
      })
      return normalize(texts.length === 0 ? [] : list).list
    })

  test("property: a list the tool stored is rebuilt exactly, and equals what the model was shown", () => {
    fc.assert(
      fc.property(fc.array(listArb, { minLength: 1, maxLength: 5 }), (lists) => {
        const transcript = lists.map((list, i) =>
          msg(`m${i + 1}`, { lists: [JSON.parse(JSON.stringify(list))], version: 1 }),
        )
        const got = transcriptList(transcript, DEFAULT_LIMITS)
        expect(got.kind).toBe("found")
        if (got.kind !== "found") return
        expect(got.list).toEqual(lists.at(-1))
        expect(got.shown !== null && sameList(got.list, got.shown)).toBe(true)
      }),
    )
  })
})
