// Hook cost against session length: the real server hooks (src/server-hooks.ts) driven with a fake
// host on sessions of 10, 1,000 and 10,000 messages. Each session is first replayed through the
// hooks (events, prompts and tool results, in the order the host sends them) so the plugin has
// seen the whole history, and it has a stored list so the paths that read the store run.
// Target: every hook costs the same on a long session as on a short one (ratio 10,000 : 10 < 3).

import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Hooks, PluginInput } from "@opencode-ai/plugin"
import { afterAll, expect, it } from "vitest"
import { server } from "../src/server-hooks.ts"
import { formatNs, record, SHORT } from "./lib.ts"

const SIZES = [10, 1_000, 10_000] as const
const MAX_RATIO = 3
const MODEL = { providerID: "mock", modelID: "m" }
const PLAN = [
  { phase: "Explore", items: ["Read the parser module", "List the failing cases"] },
  { phase: "Fix", items: ["Handle empty input", "Handle nested quotes", "Add regression tests"] },
]

// The store and the settings resolve their folders from the environment when server() runs.
const sandbox = mkdtempSync(join(tmpdir(), "octodo-bench-hooks-"))
const savedEnv = { data: process.env.XDG_DATA_HOME, config: process.env.XDG_CONFIG_HOME }
afterAll(() => {
  restoreEnv("XDG_DATA_HOME", savedEnv.data)
  restoreEnv("XDG_CONFIG_HOME", savedEnv.config)
  rmSync(sandbox, { recursive: true, force: true })
})

function restoreEnv(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
}

type Obj = Record<string, unknown>
interface Message {
  readonly info: Obj
  readonly parts: Obj[]
}

/** A session's transcript: user and assistant messages alternating, assistants with text and bash calls. */
function makeMessages(sessionID: string, count: number): Message[] {
  const messages: Message[] = []
  const start = 1_700_000_000_000
  let lastUserID = ""
  for (let i = 0; i < count; i++) {
    const id = `msg_${sessionID}_${String(i).padStart(6, "0")}`
    const created = start + i * 1_000
    const part = (n: number, rest: Obj): Obj => ({
      id: `prt_${id.slice(4)}_${n}`,
      sessionID,
      messageID: id,
      ...rest,
    })
    if (i % 2 === 0) {
      lastUserID = id
      messages.push({
        info: { id, sessionID, role: "user", time: { created }, agent: "build", model: MODEL },
        parts: [
          part(0, {
            type: "text",
            text: `Step ${i / 2 + 1}: fix the parser so that input number ${i} no longer crashes, and keep the tests green.`,
          }),
        ],
      })
      continue
    }
    // Every third answer is text only; the latest one is mid-turn, after a tool call.
    const withTool = i === count - 1 || i % 3 !== 0
    const tokens = { input: 1_200 + i, output: 80, reasoning: 0, cache: { read: 900, write: 0 } }
    const parts: Obj[] = [
      part(0, { type: "step-start" }),
      part(1, {
        type: "text",
        text: `Looked at case ${i}: the tokenizer assumes a non-empty buffer. ${withTool ? "Running the tests." : "Done for now."}`,
        time: { start: created + 10, end: created + 200 },
      }),
    ]
    if (withTool)
      parts.push(
        part(2, {
          type: "tool",
          callID: `call_${i}`,
          tool: "bash",
          state: {
            status: "completed",
            input: { command: "npm test -- parser", description: "Run the parser tests" },
            output: `ok ${i} tests passed\n`,
            title: "Run the parser tests",
            metadata: { exit: 0, description: "Run the parser tests" },
            time: { start: created + 210, end: created + 700 },
          },
        }),
      )
    parts.push(part(3, { type: "step-finish", reason: withTool ? "tool-calls" : "stop", cost: 0, tokens }))
    messages.push({
      info: {
        id,
        sessionID,
        role: "assistant",
        time: { created, completed: created + 800 },
        parentID: lastUserID,
        modelID: MODEL.modelID,
        providerID: MODEL.providerID,
        mode: "build",
        agent: "build",
        path: { cwd: sandbox, root: sandbox },
        cost: 0,
        tokens,
        finish: withTool ? "tool-calls" : "stop",
      },
      parts,
    })
  }
  return messages
}

const ev = (type: string, properties: Obj) => ({ event: { id: `evt_${type}`, type, properties } as never })

/** Feeds a transcript through the hooks the way the host does while the session runs. */
async function replay(hooks: Hooks, sessionID: string, messages: readonly Message[]): Promise<void> {
  const event = hooks.event!
  for (const { info, parts } of messages) {
    if (info.role === "user") {
      await event(ev("session.status", { sessionID, status: { type: "busy" } }))
      await hooks["chat.message"]!(
        { sessionID, agent: "build", model: MODEL, messageID: info.id as string },
        { message: info as never, parts: parts.map((p) => ({ ...p })) as never },
      )
      await event(ev("message.updated", { sessionID, info }))
      for (const part of parts) await event(ev("message.part.updated", { sessionID, part, time: 0 }))
      continue
    }
    const { completed: _, ...running } = info.time as Obj
    await event(ev("message.updated", { sessionID, info: { ...info, time: running, finish: undefined } }))
    for (const part of parts) {
      await event(ev("message.part.updated", { sessionID, part, time: 0 }))
      if (part.type === "tool") {
        const state = part.state as Obj
        await hooks["tool.execute.after"]!(
          { tool: part.tool as string, sessionID, callID: part.callID as string, args: state.input },
          { title: state.title as string, output: state.output as string, metadata: state.metadata },
        )
      }
    }
    await event(ev("message.updated", { sessionID, info }))
    if (info.finish === "stop") {
      await event(ev("session.status", { sessionID, status: { type: "idle" } }))
      await event(ev("session.idle", { sessionID }))
    }
  }
}

interface Runner {
  /** Outside the timed region: builds the arguments of the next `count` calls. */
  prepare(count: number): void
  run(index: number): Promise<unknown>
}

/**
 * Median time per awaited call of each runner. Batches of the runners are interleaved (in a
 * rotating order) so that drift, GC and JIT phases hit every session size alike.
 */
async function timeInterleaved(runners: readonly Runner[], batches: number, perBatch: number) {
  for (const r of runners) {
    for (let round = 0; round < 2; round++) {
      r.prepare(perBatch)
      for (let i = 0; i < perBatch; i++) await r.run(i)
    }
  }
  const samples: number[][] = runners.map(() => [])
  for (let b = 0; b < batches; b++) {
    for (let k = 0; k < runners.length; k++) {
      const index = (b + k) % runners.length
      const r = runners[index]!
      r.prepare(perBatch)
      const t0 = process.hrtime.bigint()
      for (let i = 0; i < perBatch; i++) await r.run(i)
      samples[index]!.push(Number(process.hrtime.bigint() - t0) / perBatch)
    }
  }
  return samples.map((s) => {
    s.sort((a, b) => a - b)
    return s[Math.floor(s.length / 2)]!
  })
}

interface Session {
  readonly id: string
  readonly messages: Message[]
  readonly lastAssistant: Message
}

interface HookCase {
  readonly name: string
  runner(hooks: Hooks, s: Session): Runner
}

/** A call whose arguments are the same every time. */
const fixed = (run: () => Promise<unknown>): Runner => ({ prepare() {}, run })

const CASES: readonly HookCase[] = [
  {
    name: "event message.part.delta (text)",
    runner: (hooks, s) => {
      const text = s.lastAssistant.parts.find((p) => p.type === "text")!
      const e = ev("message.part.delta", {
        sessionID: s.id,
        messageID: s.lastAssistant.info.id,
        partID: text.id,
        field: "text",
        delta: " and the fix",
      })
      return fixed(() => hooks.event!(e))
    },
  },
  {
    name: "event message.part.updated (text)",
    runner: (hooks, s) => {
      const part = s.lastAssistant.parts.find((p) => p.type === "text")!
      const e = ev("message.part.updated", { sessionID: s.id, part, time: 0 })
      return fixed(() => hooks.event!(e))
    },
  },
  {
    name: "event message.part.updated (tool)",
    runner: (hooks, s) => {
      const part = s.lastAssistant.parts.find((p) => p.type === "tool")!
      const e = ev("message.part.updated", { sessionID: s.id, part, time: 0 })
      return fixed(() => hooks.event!(e))
    },
  },
  {
    name: "event session.status",
    runner: (hooks, s) => {
      const e = ev("session.status", { sessionID: s.id, status: { type: "busy" } })
      return fixed(() => hooks.event!(e))
    },
  },
  {
    name: "messages.transform (per model request)",
    runner: (hooks, s) => {
      // The hook may push a message, so each call gets an unmodified shallow copy of the history,
      // prepared outside the timing. The copies are pooled and cut back to the history after use:
      // allocating 50 fresh 10,000-slot arrays per batch would time the garbage collector instead.
      const pool: Message[][] = []
      return {
        prepare(count) {
          while (pool.length < count) pool.push(s.messages.slice())
          for (const copy of pool) copy.length = s.messages.length
        },
        run: (i) => hooks["experimental.chat.messages.transform"]!({}, { messages: pool[i]! as never }),
      }
    },
  },
  {
    name: "chat.message (real user text)",
    runner: (hooks, s) => {
      const user = s.messages.findLast((m) => m.info.role === "user")!
      const input = { sessionID: s.id, agent: "build", model: MODEL, messageID: user.info.id as string }
      let outputs: { message: never; parts: never }[] = []
      return {
        prepare(count) {
          outputs = Array.from({ length: count }, () => ({
            message: user.info as never,
            parts: user.parts.map((p) => ({ ...p })) as never,
          }))
        },
        run: (i) => hooks["chat.message"]!(input, outputs[i]!),
      }
    },
  },
  {
    name: "tool.execute.after (bash)",
    runner: (hooks, s) => {
      const input = { tool: "bash", sessionID: s.id, callID: "call_bench", args: { command: "true" } }
      const output = { title: "true", output: "", metadata: { exit: 0 } }
      return fixed(() => hooks["tool.execute.after"]!(input, output))
    },
  },
]

it("keeps every hook's cost flat from 10 to 10,000 messages", async () => {
  process.env.XDG_DATA_HOME = join(sandbox, "data")
  process.env.XDG_CONFIG_HOME = join(sandbox, "config")
  const project = join(sandbox, "project")
  const noop = async () => ({ data: {} })
  // A hook never throws to the host (it logs instead): collect the logs to prove every call succeeded.
  const logged: string[] = []
  const log = async (entry: { body: { level: string; message: string } }) => {
    logged.push(`${entry.body.level}: ${entry.body.message}`)
    return { data: true }
  }
  const client = { app: { log }, session: { get: noop, promptAsync: noop } }
  const input = {
    client,
    directory: project,
    worktree: project,
    project: { id: "bench", worktree: project },
    serverUrl: new URL("http://127.0.0.1:4096"),
  } as unknown as PluginInput
  const hooks = await server(input, {})
  expect(hooks.event && hooks["experimental.chat.messages.transform"] && hooks.tool?.todo).toBeTruthy()

  const sessions: Session[] = []
  for (const size of SIZES) {
    const id = `ses_bench_${size}`
    const messages = makeMessages(id, size)
    await hooks.event!(ev("session.created", { info: { id, title: "bench", time: { created: 0 } } }))
    const init = await hooks.tool!.todo!.execute({ list: PLAN } as never, {
      sessionID: id,
      messageID: `msg_${id}_init`,
      agent: "build",
      directory: project,
      worktree: project,
      abort: new AbortController().signal,
      metadata() {},
      ask: async () => {},
    })
    expect((init as unknown as { metadata: { ok: boolean } }).metadata.ok).toBe(true)
    expect(existsSync(join(sandbox, "data", "opencode", "plugin", "todo", `${id}.json`))).toBe(true)
    await replay(hooks, id, messages)
    sessions.push({ id, messages, lastAssistant: messages.findLast((m) => m.info.role === "assistant")! })
  }

  const batches = SHORT ? 15 : 60
  const perBatch = 50
  const rows: string[][] = []
  const ratios: Record<string, number> = {}
  for (const c of CASES) {
    const medians = await timeInterleaved(
      sessions.map((s) => c.runner(hooks, s)),
      batches,
      perBatch,
    )
    const ratio = medians[2]! / medians[0]!
    ratios[c.name] = ratio
    rows.push([c.name, ...medians.map(formatNs), `${ratio.toFixed(2)}×`])
  }
  record("hooks", [
    {
      title: "Server hooks against session length (median per call)",
      note:
        "The real hooks of src/server-hooks.ts with a fake host client, on sessions replayed through the hooks first " +
        "(prompts, message and part events, bash results) and holding a stored list. `messages.transform` gets the " +
        "whole history (a fresh shallow copy per call) and stats the store once. Target: 10,000 : 10 below " +
        `${MAX_RATIO}×.`,
      columns: ["hook", "10 messages", "1,000 messages", "10,000 messages", "10,000 : 10"],
      rows,
    },
  ])
  expect(logged).toEqual([])
  for (const [name, ratio] of Object.entries(ratios))
    expect(ratio, `${name}: 10,000-message cost / 10-message cost`).toBeLessThan(MAX_RATIO)
})
