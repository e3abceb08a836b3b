// Hostile input: fast-check runs over everything the plugin reads from outside (tool arguments written
// by a model, stored records, todo.json and environment values, imported Markdown, /todo arguments).
// Every input must get a valid result or a clear error, nothing may throw into the host, and a failed
// call must leave the list exactly as it was. Each target prints how many inputs it ran, and the run's seed:
// TEST_SEED=<seed> replays the same inputs (fast-check also names the seed and path of a failing case).

import { readFile } from "node:fs/promises"
import fc from "fast-check"
import { afterAll, describe, expect, inject, it } from "vitest"
import {
  type Config,
  DEFAULT_CONFIG,
  EAGER_MODES,
  ENV_KEYS,
  limitsOf,
  resolveConfig,
} from "../../src/core/config.ts"
import { currentList, listAt } from "../../src/core/history/history.ts"
import { recordEdit } from "../../src/core/history/placement.ts"
import { transcriptList } from "../../src/core/history/rebuild.ts"
import { commit, revert, unrevert } from "../../src/core/history/revert.ts"
import { decodeHistory, encodeHistory } from "../../src/core/history/stored.ts"
import { VERBS as COMMAND_VERBS, parseCommand, tokenize } from "../../src/core/list/command.ts"
import { execute, executeOps } from "../../src/core/list/execute.ts"
import { parseMarkdown, renderMarkdown } from "../../src/core/list/markdown.ts"
import { parseSnapshot } from "../../src/core/list/parse.ts"
import { checkList } from "../../src/core/list/queries.ts"
import { normalize } from "../../src/core/list/reducers.ts"
import { DEFAULT_LIMITS, type Limits, OP_NAMES, STATUSES, type TodoList } from "../../src/core/list/types.ts"
import { hostileText } from "../../src/core/list/words.ts"
import { decodeTranscript } from "../../src/shared/transcript.ts"
import { historySession } from "../fixtures/history-session.ts"
import { type FakeHost, startHost } from "../fixtures/host.ts"

// Inputs per target; FUZZ_SCALE=10 makes a long soak run, FUZZ_SCALE=0.1 a quick one.
const SCALE = Number(process.env.FUZZ_SCALE ?? 1)
const runs = (n: number) => Math.max(20, Math.round(n * SCALE))

const ran = new Map<string, { ok: number; error: number }>()
/** Counts one input of a target and whether it got a result or an error. */
function tally(target: string, ok: boolean): void {
  const seen = ran.get(target) ?? { ok: 0, error: 0 }
  if (ok) seen.ok++
  else seen.error++
  ran.set(target, seen)
}
afterAll(() => {
  let total = 0
  const rows: string[] = []
  const n = (x: number) => x.toLocaleString("en-US")
  for (const [target, { ok, error }] of ran) {
    total += ok + error
    rows.push(`  ${target}: ${n(ok + error)} (${n(ok)} accepted, ${n(error)} clear errors)`)
  }
  console.log(
    `fuzz inputs run per target (seed ${inject("seed")}):\n${rows.join("\n")}\n  total: ${n(total)}`,
  )
})

const TIGHT: Limits = { maxTaskChars: 24, maxTasks: 6, maxPhases: 3, maxOpsPerCall: 4 }

// ---- building blocks -----------------------------------------------------------------------------

const BIG = "x".repeat(100_000)
const HOSTILE_STRINGS = [
  "",
  " ",
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "DONE",
  " done ",
  "Init",
  "VIEW",
  "finish",
  "all",
  "*",
  "task-1",
  "#2",
  "7",
  "../../etc/passwd",
  "C:\\Windows",
  "con",
  "\u202eevil",
  "\uFEFFbom",
  "\uD800",
  "e\u0301",
  "🚀 launch",
  "全角テキスト",
  "a\nb",
  "line one\r\nline two",
  "- [ ] injected",
  "## heading",
  "x".repeat(300),
  "y".repeat(301),
  BIG,
]

const anyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ minLength: 295, maxLength: 310 }) },
)

/** One-line, trimmed, non-empty texts within a length cap: what every valid list holds. */
function textArb(maxChars: number): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.string({ unit: "binary", minLength: 1, maxLength: 30 }),
      fc.constantFrom(
        "Parse",
        "Test",
        "Ship",
        "Docs",
        "task-1",
        "#2",
        "7",
        "🚀 launch",
        "全角",
        "x".repeat(300),
      ),
    )
    .map((s) => s.replace(/[\r\n]+/g, " ").trim())
    .filter((s) => s.length > 0 && s.length <= maxChars)
}

/** Valid lists under `limits`: unique phase names and task texts, any statuses, blockers only on blocked tasks. */
function makeListArb(limits: Limits): fc.Arbitrary<TodoList> {
  const phases = Math.min(5, limits.maxPhases)
  const tasks = Math.min(24, limits.maxTasks)
  const text = textArb(limits.maxTaskChars)
  return fc
    .record({
      names: fc.uniqueArray(text, { maxLength: phases }),
      texts: fc.uniqueArray(text, { maxLength: tasks }),
      statuses: fc.array(fc.constantFrom(...STATUSES), { minLength: tasks, maxLength: tasks }),
      reasons: fc.array(fc.option(text, { nil: undefined }), { minLength: tasks, maxLength: tasks }),
      homes: fc.array(fc.nat(), { minLength: tasks, maxLength: tasks }),
      normalized: fc.boolean(),
    })
    .map(({ names, texts, statuses, reasons, homes, normalized }) => {
      if (names.length === 0) return []
      const built = names.map((name) => ({
        name,
        tasks: [] as { text: string; status: (typeof STATUSES)[number]; blocker?: string }[],
      }))
      texts.forEach((t, i) => {
        const status = statuses[i]!
        const reason = reasons[i]
        built[homes[i]! % built.length]!.tasks.push(
          status === "blocked" && reason !== undefined
            ? { text: t, status, blocker: reason }
            : { text: t, status },
        )
      })
      return normalized ? normalize(built).list : built
    })
}

const listArb = makeListArb(DEFAULT_LIMITS)
/** A limit set with a list that fits it: the default caps most of the time, tight ones the rest. */
const listAndLimitsArb = fc.oneof(
  { weight: 3, arbitrary: listArb.map((list) => ({ list, limits: DEFAULT_LIMITS })) },
  { weight: 1, arbitrary: makeListArb(TIGHT).map((list) => ({ list, limits: TIGHT })) },
)

/** A string that refers to the list (a task text or phase name, exact or nearly), resolved per run. */
class Ref {
  constructor(
    readonly kind: "task" | "phase",
    readonly pick: number,
    readonly variant: number,
  ) {}
  resolve(list: TodoList): string {
    const pool =
      this.kind === "phase" ? list.map((p) => p.name) : list.flatMap((p) => p.tasks.map((t) => t.text))
    const base = pool.length === 0 ? "nothing" : pool[this.pick % pool.length]!
    switch (this.variant % 7) {
      case 0:
      case 1:
        return base
      case 2:
        return ` ${base}\t`
      case 3:
        return base.toUpperCase()
      case 4:
        return base.slice(0, Math.max(1, base.length >> 1))
      case 5:
        return `${base}!`
      default:
        return `${base}\n${base}`
    }
  }
}

const refArb = fc
  .record({ kind: fc.constantFrom("task" as const, "phase" as const), pick: fc.nat(), variant: fc.nat() })
  .map(({ kind, pick, variant }) => new Ref(kind, pick, variant))

/** Turns every Ref inside a value into its string; everything else is kept (own keys as own keys). */
function resolveRefs(value: unknown, list: TodoList): unknown {
  if (value instanceof Ref) return value.resolve(list)
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, list))
  if (typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveRefs(v, list)]))
  return value
}

const FIELD_KEYS = ["op", "ops", "task", "phase", "reason", "items", "list"]
const PROTO_KEYS = ["__proto__", "constructor", "prototype", "toString", "hasOwnProperty", "valueOf"]
const OTHER_KEYS = ["tasks", "name", "text", "status", "id", "index", "Op", "TASK", " task", "k".repeat(5000)]

const scalarArb = fc.oneof(
  { weight: 4, arbitrary: anyString },
  { weight: 4, arbitrary: refArb },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      null,
      undefined,
      true,
      false,
      0,
      -0,
      1,
      -1,
      1.5,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      1e308,
      2 ** 53,
    ),
  },
  { weight: 1, arbitrary: fc.integer() },
)

const opNameArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...OP_NAMES) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(...OP_NAMES)
      .map((n) => (n.length % 2 === 0 ? ` ${n.toUpperCase()} ` : `${n}x`)),
  },
  { weight: 2, arbitrary: scalarArb },
)

/** Near-miss tool arguments: right field names, values of every wrong type, nesting, odd keys. */
const { op: opArb } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    { weight: 6, arbitrary: scalarArb },
    { weight: 2, arbitrary: fc.array(tie("value"), { maxLength: 4 }) },
    { weight: 1, arbitrary: tie("op") },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.tuple(fc.constantFrom(...FIELD_KEYS, ...PROTO_KEYS, ...OTHER_KEYS), tie("value")), {
          maxLength: 3,
        })
        .map((entries) => Object.fromEntries(entries)),
    },
  ),
  op: fc
    .record(
      {
        op: opNameArb,
        task: fc.oneof({ weight: 3, arbitrary: refArb }, { weight: 2, arbitrary: tie("value") }),
        phase: fc.oneof({ weight: 3, arbitrary: refArb }, { weight: 2, arbitrary: tie("value") }),
        reason: tie("value"),
        items: fc.oneof(
          { weight: 3, arbitrary: fc.array(fc.oneof(anyString, refArb, scalarArb), { maxLength: 5 }) },
          { weight: 1, arbitrary: tie("value") },
        ),
        list: fc.oneof(
          {
            weight: 3,
            arbitrary: fc.array(
              fc.record(
                {
                  phase: fc.oneof(anyString, refArb, scalarArb),
                  items: fc.oneof(fc.array(fc.oneof(anyString, refArb), { maxLength: 4 }), tie("value")),
                },
                { requiredKeys: [] },
              ),
              { maxLength: 4 },
            ),
          },
          { weight: 1, arbitrary: tie("value") },
        ),
        ops: fc.array(tie("op"), { maxLength: 3 }),
        extra: fc.array(fc.tuple(fc.constantFrom(...PROTO_KEYS, ...OTHER_KEYS), tie("value")), {
          maxLength: 2,
        }),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...fields }) => Object.fromEntries([...Object.entries(fields), ...(extra ?? [])])),
}))

const exactRef = (kind: "task" | "phase") => fc.nat().map((pick) => new Ref(kind, pick, 0))
const freshText = textArb(60)

/** Calls a model would plausibly make, so the success paths run as often as the error paths. */
const wellFormedArb = fc.oneof(
  fc.record(
    {
      op: fc.constantFrom("start", "done", "drop", "block", "unblock", "rm"),
      task: exactRef("task"),
      reason: freshText,
    },
    { requiredKeys: ["op", "task"] },
  ),
  fc.record({ op: fc.constantFrom("done", "drop", "block", "unblock", "rm"), phase: exactRef("phase") }),
  fc.record({
    op: fc.constant("append"),
    phase: fc.oneof(exactRef("phase"), freshText),
    items: fc.uniqueArray(freshText, { minLength: 1, maxLength: 3 }),
  }),
  fc.record({
    op: fc.constant("init"),
    list: fc.uniqueArray(
      fc.record({ phase: freshText, items: fc.uniqueArray(freshText, { minLength: 1, maxLength: 4 }) }),
      { minLength: 1, maxLength: 3, selector: (spec) => spec.phase },
    ),
  }),
  fc.constant({ op: "view" }),
)

/** An op buried in thousands of unknown keys: an error must not echo them all. */
const manyKeysArb = fc
  .integer({ min: 50, max: 1_500 })
  .map((n) => Object.fromEntries([["op", "done"], ...Array.from({ length: n }, (_, i) => [`field${i}`, i])]))

/** What a tool call may carry: arbitrary JSON or values, a near-miss op, or a batch of them. */
const argsArb = fc.oneof(
  { weight: 4, arbitrary: wellFormedArb },
  { weight: 2, arbitrary: fc.array(wellFormedArb, { minLength: 1, maxLength: 5 }).map((ops) => ({ ops })) },
  { weight: 1, arbitrary: manyKeysArb },
  { weight: 2, arbitrary: fc.jsonValue() },
  {
    weight: 1,
    arbitrary: fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withObjectString: true,
      withSet: true,
      withSparseArray: true,
      withTypedArray: true,
      withUnicodeString: true,
    }),
  },
  { weight: 6, arbitrary: opArb },
  {
    weight: 3,
    arbitrary: fc.array(opArb, { minLength: 1, maxLength: 6 }).map((ops) => ({ ops })),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 49, max: 60 })
      .map((n) => ({ ops: Array.from({ length: n }, () => ({ op: "view" })) })),
  },
)

/** Host-side arguments are JSON-decoded; half the runs see the values as a JSON round trip leaves them. */
function asSent(value: unknown, viaJson: boolean): unknown {
  if (!viaJson) return value
  try {
    const text = JSON.stringify(value)
    return text === undefined ? undefined : JSON.parse(text)
  } catch {
    return value
  }
}

// An error is one or more sentences for the model: it starts with a letter or a quoted name, carries
// no stray whitespace, and says what to do without flooding the context.
const ERROR_START = /^(?:op \d+(?: \([a-z]+\))? failed: )?["A-Za-z]/
const MAX_ERROR_CHARS = 1_000

function expectSensibleError(error: unknown): void {
  expect(typeof error).toBe("string")
  const text = error as string
  expect(text.length).toBeGreaterThan(0)
  expect(text, text.slice(0, 200)).toMatch(ERROR_START)
  expect(text.trim()).toBe(text)
  expect(text.length, text.slice(0, 200)).toBeLessThanOrEqual(MAX_ERROR_CHARS)
}

/** Deep snapshot that keeps own "__proto__" keys and undefined values out of the way. */
function freeze(list: TodoList): string {
  return JSON.stringify(list)
}

// ---- execute ------------------------------------------------------------------------------------

describe("tool arguments through execute", () => {
  it("never throws; an error leaves the very same, unchanged list; a success passes checkList", () => {
    fc.assert(
      fc.property(listAndLimitsArb, argsArb, fc.boolean(), ({ list, limits }, rawArgs, viaJson) => {
        const args = asSent(resolveRefs(rawArgs, list), viaJson)
        const before = freeze(list)
        const result = execute(list, args, limits)
        expect(typeof result.ok).toBe("boolean")
        tally("execute: tool arguments", result.ok)
        if (result.ok) {
          expect(checkList(result.list, limits)).toBeUndefined()
          // A call of views only reads: it hands back the very list it was given, so nothing is written.
          if (result.ops.every((op) => op.op === "view")) expect(result.list).toBe(list)
          // One task in progress at most after normalization.
          else
            expect(
              result.list.flatMap((p) => p.tasks).filter((t) => t.status === "in_progress").length,
            ).toBeLessThanOrEqual(1)
        } else {
          expect(result.list).toBe(list)
          expectSensibleError(result.error)
        }
        // Success or not, the input list is never mutated.
        expect(freeze(list)).toBe(before)
      }),
      { numRuns: runs(6_000) },
    )
  }, 60_000)

  it("a batch either applies every op or none, and names the op that failed", () => {
    fc.assert(
      fc.property(
        listArb,
        fc.oneof(
          fc.array(wellFormedArb, { minLength: 2, maxLength: 6 }),
          fc.array(fc.oneof(wellFormedArb, opArb), { minLength: 2, maxLength: 6 }),
        ),
        (list, rawOps) => {
          const ops = resolveRefs(rawOps, list) as unknown[]
          const result = execute(list, { ops })
          tally("execute: batches", result.ok)
          if (result.ok) {
            expect(result.ops.length).toBe(ops.length)
            return
          }
          expect(result.list).toBe(list)
          if (result.opIndex !== undefined) expect(result.error).toMatch(/^op \d+ /)
          expectSensibleError(result.error)
        },
      ),
      { numRuns: runs(1_500) },
    )
  }, 60_000)
})

// ---- stored snapshots ---------------------------------------------------------------------------

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }

interface Mutation {
  readonly at: number
  readonly kind: "replace" | "delete" | "pad" | "duplicate" | "upper" | "extra"
  readonly value: Json
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("replace", "delete", "pad", "duplicate", "upper", "extra"),
  value: fc.oneof(
    fc.jsonValue() as fc.Arbitrary<Json>,
    fc.constantFrom<Json>(...STATUSES, " pending", "PENDING", "done", "", "x".repeat(301), null, 0, [], {}),
  ),
})

/** Applies a mutation to the node at index `at` (pre-order) of a JSON tree; returns the new tree. */
function mutateJson(root: Json, m: Mutation): Json {
  const copy = structuredClone(root)
  const slots: { parent: Json[] | { [key: string]: Json }; key: string | number }[] = []
  const walk = (node: Json) => {
    if (Array.isArray(node))
      node.forEach((child, i) => {
        slots.push({ parent: node, key: i })
        walk(child)
      })
    else if (typeof node === "object" && node !== null)
      for (const [k, child] of Object.entries(node)) {
        slots.push({ parent: node, key: k })
        walk(child)
      }
  }
  walk(copy)
  if (slots.length === 0) return m.kind === "replace" ? m.value : copy
  const { parent, key } = slots[m.at % slots.length]!
  const get = () => (parent as Record<string | number, Json>)[key]!
  const set = (v: Json) => {
    ;(parent as Record<string | number, Json>)[key] = v
  }
  switch (m.kind) {
    case "replace":
      set(m.value)
      break
    case "delete":
      if (Array.isArray(parent)) parent.splice(key as number, 1)
      else delete parent[key as string]
      break
    case "pad": {
      const v = get()
      set(typeof v === "string" ? `  ${v}\t` : v)
      break
    }
    case "duplicate":
      if (Array.isArray(parent)) parent.splice(key as number, 0, structuredClone(get()))
      else set([get(), get()])
      break
    case "upper": {
      const v = get()
      set(typeof v === "string" ? v.toUpperCase() : v)
      break
    }
    case "extra": {
      const v = get()
      if (typeof v === "object" && v !== null && !Array.isArray(v))
        Object.defineProperty(v, "__proto__", { value: m.value, enumerable: true, writable: true })
      else set(m.value)
      break
    }
  }
  return copy
}

const SNAPSHOT_ERROR =
  /^(?:Phase \d+|The stored list|The list has \d+|Phase name|Task|Duplicate|Blocker reason)/

describe("stored snapshots through parseSnapshot", () => {
  it("arbitrary JSON and mutated valid records: a valid list or a clear error, never a throw", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          { weight: 1, arbitrary: fc.jsonValue().map((j) => ({ raw: j as Json, muts: [] as Mutation[] })) },
          {
            weight: 4,
            arbitrary: fc.record({
              raw: listArb.map((l) => JSON.parse(JSON.stringify(l)) as Json),
              muts: fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
            }),
          },
        ),
        fc.constantFrom(DEFAULT_LIMITS, TIGHT),
        fc.boolean(),
        ({ raw, muts }, limits, viaText) => {
          let value = raw
          for (const m of muts) value = mutateJson(value, m)
          // A record on disk is text: half the runs decode it the way the store does.
          const input = viaText ? JSON.parse(JSON.stringify(value)) : value
          const result = parseSnapshot(input, limits)
          tally("parseSnapshot: stored records", result.ok)
          if (result.ok) {
            expect(checkList(result.value, limits)).toBeUndefined()
            for (const phase of result.value) {
              expect(phase.name).toBe(phase.name.trim())
              for (const task of phase.tasks) expect(task.text).toBe(task.text.trim())
            }
            // What parses is what the store would write back; it must parse again to itself.
            expect(parseSnapshot(JSON.parse(JSON.stringify(result.value)), limits)).toEqual(result)
          } else {
            expectSensibleError(result.error)
            expect(result.error).toMatch(SNAPSHOT_ERROR)
          }
        },
      ),
      { numRuns: runs(5_000) },
    )
  }, 60_000)
})

// ---- transcripts: the messages of a session met with no record --------------------------------

describe("transcripts through decodeTranscript and transcriptList", () => {
  /** A message of the host's shape carrying `lists` (valid, mutated or any JSON) on todo tool parts. */
  const messageArb = fc
    .record({
      lists: fc.array(
        fc.oneof(
          { weight: 3, arbitrary: fc.tuple(listArb, fc.array(mutationArb, { maxLength: 3 })) },
          { weight: 1, arbitrary: fc.jsonValue().map((j) => [j, []] as const) },
        ),
        { maxLength: 3 },
      ),
      version: fc.oneof(fc.constant(undefined), fc.constant(1), fc.constant(2), fc.jsonValue()),
      created: fc.oneof(fc.nat(), fc.jsonValue()),
      junk: fc.jsonValue(),
    })
    .map(({ lists, version, created, junk }) => ({
      info: { id: "msg", role: "assistant", time: { created } },
      parts: [
        junk,
        ...lists.map(([list, muts]) => {
          let value = JSON.parse(JSON.stringify(list)) as Json
          for (const m of muts) value = mutateJson(value, m)
          return {
            type: "tool",
            tool: "todo",
            callID: "c",
            state: { status: "completed", metadata: { list: value, version } },
          }
        }),
      ],
    }))

  it("random messages: a list that passes an import's checks, or the reasons it was passed over; never a throw", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof({ weight: 4, arbitrary: messageArb }, { weight: 1, arbitrary: fc.jsonValue() }), {
          maxLength: 6,
        }),
        fc.constantFrom(DEFAULT_LIMITS, TIGHT),
        (messages, limits) => {
          const got = transcriptList(decodeTranscript(messages), limits)
          tally("transcriptList: session messages", got.kind !== "unreadable")
          if (got.kind === "found") {
            expect(checkList(got.list, limits)).toBeUndefined()
            for (const phase of got.list)
              for (const text of [phase.name, ...phase.tasks.map((t) => t.text)])
                expect(hostileText(text)).toBeUndefined()
          }
          if (got.kind !== "none") for (const reason of got.skipped) expect(reason).toMatch(/^message \d+: /)
        },
      ),
      { numRuns: runs(3_000) },
    )
  }, 60_000)
})

describe("stored list histories through decodeHistory", () => {
  it("arbitrary JSON and mutated valid histories: the stored list is kept, at most a warning, never a throw", () => {
    const sessions = [historySession(40, 8, 1).history, historySession(400, 12, 2).history]
    const reverted = revert(sessions[0]!, { message: "msg_237cf0" })
    const edited = recordEdit(reverted.history, {}, [
      { name: "P", tasks: [{ text: "x", status: "pending" }] },
    ])
    const valid = [...sessions, edited.history].map((h) => ({
      raw: JSON.parse(JSON.stringify(encodeHistory(h))) as Json,
      list: currentList(h),
    }))
    fc.assert(
      fc.property(
        fc.oneof(
          {
            weight: 1,
            arbitrary: fc
              .jsonValue()
              .map((j) => ({ raw: j as Json, list: valid[0]!.list, muts: [] as Mutation[] })),
          },
          {
            weight: 4,
            arbitrary: fc
              .record({
                pick: fc.nat(valid.length - 1),
                muts: fc.array(mutationArb, { minLength: 1, maxLength: 4 }),
              })
              .map(({ pick, muts }) => ({ ...valid[pick]!, muts })),
          },
        ),
        fc.array(
          fc.record({
            message: fc.string({ minLength: 1 }),
            part: fc.option(fc.string({ minLength: 1 }), { nil: undefined }),
          }),
          { maxLength: 3 },
        ),
        ({ raw, list, muts }, points) => {
          let value = raw
          for (const m of muts) value = mutateJson(value, m)
          const read = decodeHistory(value, list)
          tally("decodeHistory: stored histories", read.warning === undefined)
          if (read.warning !== undefined) expectSensibleError(read.warning)
          expect(currentList(read.history)).toEqual(list)
          // Whatever was read, every step on it gives a list and never throws.
          for (const point of points) {
            const p =
              point.part === undefined
                ? { message: point.message }
                : { message: point.message, part: point.part }
            expect(Array.isArray(listAt(read.history, p).list)).toBe(true)
            const undone = revert(read.history, p)
            expect(Array.isArray(undone.list)).toBe(true)
            expect(Array.isArray(unrevert(undone.history).list)).toBe(true)
            expect(Array.isArray(commit(undone.history).list)).toBe(true)
          }
        },
      ),
      { numRuns: runs(2_000) },
    )
  }, 60_000)
})

// ---- todo.json and environment ------------------------------------------------------------------

const CONFIG_KEYS = Object.keys(DEFAULT_CONFIG) as (keyof Config)[]
const KEY_NOISE = [
  ...CONFIG_KEYS,
  ...CONFIG_KEYS,
  "max_tasks",
  "MaxTasks",
  "enable",
  "remindersmax",
  "$schema",
  "__proto__",
  "constructor",
  "toString",
  "",
  "k".repeat(300),
]
const configValueArb = fc.oneof(
  fc.jsonValue(),
  fc.boolean(),
  fc.integer({ min: -5, max: 3_000 }),
  fc.double(),
  fc.constantFrom(
    "true",
    "false",
    "default",
    "preferred",
    "always",
    "ALWAYS",
    " always",
    1.5,
    Number.POSITIVE_INFINITY,
    -0,
    1e300,
  ),
)
const configObjectArb = fc
  .array(fc.tuple(fc.constantFrom(...KEY_NOISE), configValueArb), { maxLength: 8 })
  .map((entries) => Object.fromEntries(entries))
const validConfigArb = fc.record(
  {
    enabled: fc.boolean(),
    reminders: fc.boolean(),
    remindersMax: fc.integer({ min: 0, max: 20 }),
    eager: fc.constantFrom(...EAGER_MODES),
    keepTodowrite: fc.boolean(),
    steerHostPrompt: fc.boolean(),
    nudgeAfter: fc.integer({ min: 1, max: 1000 }),
    nudgesMax: fc.integer({ min: 0, max: 20 }),
    maxTaskChars: fc.integer({ min: 20, max: 2000 }),
    maxTasks: fc.integer({ min: 1, max: 2000 }),
    maxPhases: fc.integer({ min: 1, max: 200 }),
  },
  { requiredKeys: [] },
)
const fileTextArb = fc.oneof(
  fc.constant(undefined),
  validConfigArb.map((o) => JSON.stringify(o, null, 2)),
  fc.string({ maxLength: 30 }),
  fc.json(),
  configObjectArb.map((o) => JSON.stringify(o)),
  fc
    .tuple(
      configObjectArb.map((o) => JSON.stringify(o)),
      fc.nat(),
    )
    .map(([text, cut]) => text.slice(0, cut % (text.length + 1))),
  fc.constantFrom("", "   ", "\uFEFF{}", '{"enabled": false}', "null", "[]", "42", '"text"'),
)
const envValueArb = fc.oneof(
  fc.constantFrom(
    "1",
    "0",
    "true",
    "FALSE",
    " yes ",
    "on",
    "Off",
    "nope",
    "",
    "  ",
    "3",
    "-1",
    "+2",
    "20",
    "21",
    "99999999999999999999",
    "1e1",
    "0x3",
    "٣",
    "always",
    " Preferred ",
    "default\n",
  ),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
)
const spaced = (word: string, n: number) => [word, ` ${word} `, word.toUpperCase()][n % 3]!
const validEnvArb = fc.record(
  {
    OPENCODE_TODO_ENABLED: fc
      .tuple(fc.constantFrom("true", "false", "1", "0", "yes", "no", "on", "off"), fc.nat())
      .map(([w, n]) => spaced(w, n)),
    OPENCODE_TODO_REMINDERS: fc.constantFrom("true", "false", "1", "0"),
    OPENCODE_TODO_REMINDERS_MAX: fc.integer({ min: 0, max: 20 }).map(String),
    OPENCODE_TODO_EAGER: fc.tuple(fc.constantFrom(...EAGER_MODES), fc.nat()).map(([w, n]) => spaced(w, n)),
  },
  { requiredKeys: [] },
)
const noisyEnvArb = fc
  .record(
    {
      ...Object.fromEntries(Object.keys(ENV_KEYS).map((name) => [name, envValueArb])),
      OPENCODE_TODO_MAX_TASKS: envValueArb,
      PATH: fc.string(),
    },
    { requiredKeys: [] },
  )
  .map((env) => env as Record<string, string | undefined>)
const envArb = fc.oneof(
  fc.constant({} as Record<string, string | undefined>),
  validEnvArb.map((env) => env as Record<string, string | undefined>),
  noisyEnvArb,
  noisyEnvArb,
)

/** Checks a resolved config against the documented rules; returns the first violation. */
function invalidConfig(config: Config): string | undefined {
  const keys = Object.keys(config).sort()
  if (keys.join() !== [...CONFIG_KEYS].sort().join()) return `keys ${keys.join()}`
  const int = (key: keyof Config, min: number, max: number) => {
    const v = config[key]
    return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? undefined : `${key}=${v}`
  }
  for (const key of ["enabled", "reminders", "keepTodowrite", "steerHostPrompt"] as const)
    if (typeof config[key] !== "boolean") return `${key}=${String(config[key])}`
  if (!["default", "preferred", "always"].includes(config.eager)) return `eager=${config.eager}`
  return (
    int("remindersMax", 0, 20) ??
    int("nudgeAfter", 1, 1000) ??
    int("nudgesMax", 0, 20) ??
    int("maxTaskChars", 20, 2000) ??
    int("maxTasks", 1, 2000) ??
    int("maxPhases", 1, 200)
  )
}

describe("todo.json texts, environment values and plugin options through resolveConfig", () => {
  it("never throws; the config always obeys its rules; warnings are strings", () => {
    fc.assert(
      fc.property(
        fileTextArb,
        fileTextArb,
        envArb,
        fc.oneof(
          fc.constant(undefined),
          fc.constant(undefined),
          validConfigArb,
          configObjectArb,
          fc.anything({ withNullPrototype: true, withBigInt: true, withMap: true, withBoxedValues: true }),
        ),
        (globalText, projectText, env, options) => {
          const { config, warnings } = resolveConfig({ globalText, projectText, env, options })
          // "accepted": no warning at all; "clear errors": every bad value named in a warning.
          tally("resolveConfig: todo.json, env, options", warnings.length === 0)
          expect(invalidConfig(config)).toBeUndefined()
          for (const w of warnings) {
            expect(typeof w).toBe("string")
            expect(w.length).toBeGreaterThan(0)
          }
          // A global "enabled": false is a floor no later layer lifts.
          let global: unknown
          try {
            global = globalText === undefined ? undefined : JSON.parse(globalText)
          } catch {
            global = undefined
          }
          if (
            typeof global === "object" &&
            global !== null &&
            (global as { enabled?: unknown }).enabled === false
          )
            expect(config.enabled).toBe(false)
          // The limits it yields are usable by the core.
          const limits = limitsOf(config)
          expect(limits.maxOpsPerCall).toBe(DEFAULT_LIMITS.maxOpsPerCall)
        },
      ),
      { numRuns: runs(5_000) },
    )
  }, 60_000)
})

describe("valid settings in every layer", () => {
  it("are applied exactly, in order, with no warning (a global enabled: false stays a floor)", () => {
    fc.assert(
      fc.property(
        validConfigArb,
        validConfigArb,
        validEnvArb,
        validConfigArb,
        (global, project, env, options) => {
          const { config, warnings } = resolveConfig({
            globalText: JSON.stringify(global),
            projectText: JSON.stringify(project),
            env,
            options,
          })
          const fromEnv: Partial<Record<keyof Config, unknown>> = {}
          for (const [name, key] of Object.entries(ENV_KEYS)) {
            const raw = env[name as keyof typeof env]
            if (raw === undefined) continue
            const word = raw.trim().toLowerCase()
            fromEnv[key] =
              key === "remindersMax"
                ? Number(word)
                : key === "eager"
                  ? word
                  : ["true", "1", "yes", "on"].includes(word)
          }
          const expected = { ...DEFAULT_CONFIG, ...global, ...project, ...fromEnv, ...options }
          const floor = global.enabled === false
          if (floor) expected.enabled = false
          expect(config).toEqual(expected)
          const lifted = floor && [project.enabled, fromEnv.enabled, options.enabled].includes(true)
          tally("resolveConfig: valid layers", true)
          // The only warning valid settings can draw: a later layer trying to lift the global floor.
          if (lifted) for (const w of warnings) expect(w).toMatch(/the plugin stays off\.$/)
          else expect(warnings).toEqual([])
        },
      ),
      { numRuns: runs(2_000) },
    )
  }, 60_000)
})

// ---- imported Markdown --------------------------------------------------------------------------

const MARKS = [" ", ">", "~", "x", "X", "-", "!", "?", "", "  ", "🚀", "xx"]
const smallText = fc.oneof(
  fc.constantFrom("Parse", "Test", "Ship", "Docs", "Tasks", "Build", "x".repeat(30), ""),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: "binary", maxLength: 12 }),
)
const lineArb = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(
        fc.constantFrom("-", "*", "+", "1.", "--"),
        fc.constantFrom(...MARKS),
        fc.constantFrom(" ", "", "\t", "  "),
        smallText,
      )
      .map(([bullet, mark, gap, text]) => `${bullet} [${mark}]${gap}${text}`),
  },
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.integer({ min: 0, max: 7 }), fc.constantFrom(" ", "", "\t"), smallText)
      .map(([depth, gap, text]) => `${"#".repeat(depth)}${gap}${text}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom("  - ", "\t* ", "    + ", "- ", "  -"),
        fc.constantFrom("blocked:", "BLOCKED: ", "Blocked :"),
        smallText,
      )
      .map(([lead, word, text]) => `${lead}${word}${text}`),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "<!-- opencode-todo -->",
      "<!-- opencode-todo v2 -->",
      "<!--opencode-todo-->",
      "# Todo",
      "",
      "   ",
      "\uFEFF",
      "- [ ]",
      `- [x] ${"y".repeat(301)}`,
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
)
const lineBreakArb = fc.constantFrom("\n", "\n", "\r\n", "\r")

function joinLines(lines: readonly string[], breaks: readonly string[]): string {
  return lines.map((line, i) => line + (i < lines.length - 1 ? breaks[i % breaks.length] : "")).join("")
}

interface LineEdit {
  readonly at: number
  readonly kind: "delete" | "duplicate" | "swap" | "insert" | "mark" | "indent" | "cut"
  readonly line: string
  readonly n: number
}
const lineEditArb: fc.Arbitrary<LineEdit> = fc.record({
  at: fc.nat(),
  kind: fc.constantFrom("delete", "duplicate", "swap", "insert", "mark", "indent", "cut"),
  line: lineArb,
  n: fc.nat(),
})

function editLines(lines: string[], e: LineEdit): string[] {
  const out = [...lines]
  if (out.length === 0) return [e.line]
  const i = e.at % out.length
  const j = e.n % out.length
  switch (e.kind) {
    case "delete":
      out.splice(i, 1)
      break
    case "duplicate":
      out.splice(i, 0, out[i]!)
      break
    case "swap":
      ;[out[i], out[j]] = [out[j]!, out[i]!]
      break
    case "insert":
      out.splice(i, 0, e.line)
      break
    case "mark":
      out[i] = out[i]!.replace(/\[.\]/u, `[${MARKS[e.n % MARKS.length]}]`)
      break
    case "indent":
      out[i] = `  ${out[i]}`
      break
    case "cut":
      out[i] = out[i]!.slice(0, e.n % (out[i]!.length + 1))
      break
  }
  return out
}

const LIMIT_ERROR = /^The list has \d+ (?:phases|tasks); the limit is \d+\./

describe("imported Markdown through parseMarkdown", () => {
  it("line soup and mutated exports: a valid list, or an error naming a line or a list limit", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          {
            weight: 2,
            arbitrary: fc.record({
              lines: fc.array(lineArb, { maxLength: 14 }),
              edits: fc.constant([] as LineEdit[]),
            }),
          },
          {
            weight: 3,
            arbitrary: fc.record({
              lines: listArb.map((list) => renderMarkdown(list).split("\n")),
              edits: fc.array(lineEditArb, { maxLength: 4 }),
            }),
          },
        ),
        fc.array(lineBreakArb, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        fc.constantFrom(DEFAULT_LIMITS, DEFAULT_LIMITS, TIGHT),
        ({ lines, edits }, breaks, bom, limits) => {
          let edited = lines
          for (const e of edits) edited = editLines(edited, e)
          const text = (bom ? "\uFEFF" : "") + joinLines(edited, breaks)
          const result = parseMarkdown(text, limits)
          tally("parseMarkdown: imported files", result.ok)
          if (result.ok) {
            expect(checkList(result.value, limits)).toBeUndefined()
            // An accepted import exports and imports back to itself.
            expect(parseMarkdown(renderMarkdown(result.value), limits)).toEqual(result)
            return
          }
          expectSensibleError(result.error)
          const line = /^Line (\d+): /.exec(result.error)
          if (line) {
            const total = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/).length
            expect(Number(line[1])).toBeGreaterThanOrEqual(1)
            expect(Number(line[1])).toBeLessThanOrEqual(total)
          } else expect(result.error).toMatch(LIMIT_ERROR)
        },
      ),
      { numRuns: runs(8_000) },
    )
  }, 60_000)
})

// ---- /todo arguments ----------------------------------------------------------------------------

// Every verb the parser knows (a new verb is fuzzed at once), plus spellings it must refuse.
const VERBS = ["", ...COMMAND_VERBS, "DONE", "finish", "--force"]
const wordArb = fc.oneof(
  refArb,
  fc.constantFrom(
    "--",
    "-f",
    "--force",
    '"',
    "'",
    '"quoted phase"',
    "'single'",
    "..",
    "../x",
    "/abs/TODO.md",
    "TODO.md",
  ),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: "binary", maxLength: 10 }),
)
const commandArb = fc.oneof(
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  {
    weight: 4,
    arbitrary: fc
      .tuple(
        fc.constantFrom(...VERBS),
        fc.array(wordArb, { maxLength: 5 }),
        fc.constantFrom(" ", "  ", "\t", "\n"),
      )
      .map(([verb, words, gap]) => ({ verb, words, gap })),
  },
)

describe("/todo arguments through parseCommand", () => {
  it("never throws; a plan of ops runs all-or-nothing; errors are plain text", () => {
    fc.assert(
      fc.property(listArb, commandArb, (list, input) => {
        const text =
          typeof input === "string"
            ? input
            : [input.verb, ...input.words.map((w) => (w instanceof Ref ? w.resolve(list) : w))].join(
                input.gap,
              )
        expect(Array.isArray(tokenize(text))).toBe(true)
        const parsed = parseCommand(text, list)
        tally("parseCommand: /todo arguments", parsed.ok)
        if (!parsed.ok) {
          expect(typeof parsed.error).toBe("string")
          expect(parsed.error.length).toBeGreaterThan(0)
          expect(parsed.error.length).toBeLessThan(2_000)
          return
        }
        const plan = parsed.value
        expect(["show", "help", "copy", "edit", "export", "import", "ops"]).toContain(plan.kind)
        if (plan.kind !== "ops") return
        const before = freeze(list)
        const result = executeOps(list, plan.ops, DEFAULT_LIMITS)
        if (result.ok) expect(checkList(result.list, DEFAULT_LIMITS)).toBeUndefined()
        else {
          expect(result.list).toBe(list)
          expectSensibleError(result.error)
        }
        expect(freeze(list)).toBe(before)
      }),
      { numRuns: runs(6_000) },
    )
  }, 60_000)
})

// ---- the real tool, end to end ------------------------------------------------------------------

describe("the real todo tool (src/server/index.ts) with fuzzed arguments", () => {
  let host: FakeHost | undefined
  afterAll(() => host?.cleanup())

  it("never throws into the host; after every error the stored file is byte-for-byte unchanged", async () => {
    host = await startHost()
    const h = host
    const session = "ses_fuzz"
    const file = h.store.file(session)
    const readBytes = () => readFile(file, "utf8").catch(() => "<missing>")
    await fc.assert(
      fc.asyncProperty(listArb, argsArb, fc.boolean(), async (seed, rawArgs, viaJson) => {
        // Start most runs from a list worth acting on.
        let current = (await h.store.read(session)).list
        if (!current.some((p) => p.tasks.length > 0) && seed.length > 0) {
          await h.store.update(session, (s) => ({ next: { ...s, list: seed } }))
          current = seed
        }
        const args = asSent(resolveRefs(rawArgs, current), viaJson)
        const before = await readBytes()
        const reply = await h.call(session, args)
        tally("server todo.execute: end to end", reply.ok)
        expect(typeof reply.output).toBe("string")
        const stored = (await h.store.read(session)).list
        expect(reply.list).toEqual(stored)
        if (reply.ok) {
          expect(checkList(stored, DEFAULT_LIMITS)).toBeUndefined()
        } else {
          expect(reply.output).toMatch(/^Error: .+ Nothing was changed\.$/s)
          expect(await readBytes()).toBe(before)
        }
      }),
      { numRuns: runs(400) },
    )
    expect(h.logs).toEqual([])
    const seen = ran.get("server todo.execute: end to end")!
    expect(seen.ok).toBeGreaterThan(0)
    expect(seen.error).toBeGreaterThan(0)
  }, 60_000)
})
