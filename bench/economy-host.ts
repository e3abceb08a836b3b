// What the economy benchmarks share: the real host with the built plugin beside the same host with the
// plugin turned off (the built-in `todowrite`), the scripted model, and how a request body is read: the
// fixed characters of the todo tool (its entry in `tools`, the skill entry, the host prompt's todo
// passages) and what a request carries of the tool's calls (arguments, results, notices, and the JSON
// around them). Needs `npm run build` first (the host loads dist/server.mjs).

import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { execute } from "../src/core/list/execute.ts"
import { DEFAULT_LIMITS, type TaskStatus, type TodoList } from "../src/core/list/types.ts"
import { findPassages } from "../src/core/model/host-prompt.ts"
import { MARKER } from "../src/core/model/prompts.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
/** The plugin build the host loads; BENCH_SERVER_ENTRY measures another build (an older commit's, to compare). */
export const SERVER_ENTRY = process.env.BENCH_SERVER_ENTRY ?? join(ROOT, "dist", "server.mjs")
export const CLAUDE = "claude-sonnet-4"
export const MODEL_IDS = ["m", CLAUDE] as const
export type ModelID = (typeof MODEL_IDS)[number]
export type Tool = "todo" | "todowrite"
/**
 * A side of a run: the plugin as configured by default (`todo`), the plugin with `mode: "lean"` (`lean`, the
 * same `todo` tool under lean guidance), or the bare host (`todowrite`).
 */
export type Side = "todo" | "lean" | "todowrite"
export const SIDES = ["todo", "lean", "todowrite"] as const satisfies readonly Side[]
/** The tool a side's requests offer. */
export const toolOf = (side: Side): Tool => (side === "todowrite" ? "todowrite" : "todo")

export const n = (value: number) => Math.round(value).toLocaleString("en-US")
export const pct = (share: number) => `${(share * 100).toFixed(1)}%`
export const millions = (value: number) => `${(value / 1e6).toFixed(2)} M`

// ---- the plan as todowrite calls ------------------------------------------------------------------

const TODOWRITE_STATUS: Readonly<Record<TaskStatus, string>> = {
  pending: "pending",
  in_progress: "in_progress",
  completed: "completed",
  abandoned: "cancelled",
  blocked: "pending",
}

/** A list as `todowrite` writes it: flat, each task with its status and the default priority; a reason in its text. */
function todos(list: TodoList) {
  return list.flatMap((phase) =>
    phase.tasks.map((task) => ({
      content: task.blocker
        ? `${task.text} (${task.status === "blocked" ? "blocked" : "dropped"}: ${task.blocker})`
        : task.text,
      status: TODOWRITE_STATUS[task.status],
      priority: "medium",
    })),
  )
}

/** After each of `calls` (our tool's arguments, run in order), the whole list it leaves, as `todowrite` arguments. */
export function todowriteCalls(calls: readonly unknown[]): Record<string, unknown>[] {
  let list: TodoList = []
  return calls.map((args) => {
    const outcome = execute(list, args, DEFAULT_LIMITS)
    if (!outcome.ok) throw new Error(`call ${JSON.stringify(args)} failed: ${outcome.error}`)
    list = outcome.list
    return { todos: todos(list) }
  })
}

// ---- the host side (untyped helpers shared with the smoke script) ----------------------------------

export interface ToolCall {
  readonly id: string
  readonly function: { readonly name: string; readonly arguments: string }
}
export interface Message {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: readonly ToolCall[]
  readonly tool_call_id?: string
}
interface ToolEntry {
  readonly function: { readonly name: string; readonly description: string; readonly parameters: unknown }
}
export interface Body {
  readonly model: string
  readonly messages: readonly Message[]
  readonly tools?: readonly ToolEntry[]
}
export interface Request {
  readonly kind: string
  readonly body: Body
}
export interface RequestInfo {
  readonly kind: string
  readonly turnToolResults: readonly unknown[]
}
type Usage = { prompt_tokens: number; completion_tokens: number }
export type Reply =
  | { text: string; usage: Usage }
  | { toolCalls: { name: string; args: unknown }[]; usage: Usage }
  | undefined
interface MockModel {
  readonly url: string
  readonly requests: readonly Request[]
  close(): Promise<void>
}
interface Api {
  post(path: string, body: unknown, options?: { timeoutMs?: number }): Promise<{ id: string }>
  get(path: string, options?: { timeoutMs?: number }): Promise<Record<string, { type: string }> | undefined>
  call(
    method: string,
    path: string,
    options: { body: unknown; timeoutMs?: number; raw: true },
  ): Promise<{ status: number; body: unknown }>
}
interface Host {
  readonly url: string
  readonly api: Api
  readonly dirs: { readonly root: string; readonly project: string }
  stop(): Promise<unknown>
}
interface HostLib {
  startHost(options: {
    modelUrl: string
    plugins: string[]
    bootTimeoutMs: number
    configExtra?: Record<string, unknown>
  }): Promise<Host>
  makeApi(url: string, directory: string): Api
  makeProjectDir(dir: string): void
  waitSettled(api: Api, id: string, options?: { timeoutMs?: number }): Promise<void>
}
interface MockLib {
  startMockModel(options: { decide: (body: Body, info: RequestInfo) => Reply }): Promise<MockModel>
  textOf(content: unknown): string
}

/**
 * A small fixed usage: the todowrite history would otherwise cross the mock's context limit and the
 * host would compact the session halfway.
 */
export const USAGE = { prompt_tokens: 1000, completion_tokens: 10 }

// ---- reading what the host sent --------------------------------------------------------------------

/** The skill's entry with the line break that joins it to the list: the characters it adds. */
/**
 * The skill entry's `<location>` is the install path, written by the host: counted as this stand-in (a
 * checkout at /path/to/opencode-todo, 54 characters) so the figures and their gates do not depend on where
 * the benchmark runs. A real install path adds or takes away what its length differs by.
 */
export const CANONICAL_LOCATION = "/path/to/opencode-todo/skills/todo-discipline/SKILL.md"

function atCanonicalLocation(system: string): string {
  return system.replace(
    /(<skill>\s*<name>todo-discipline<\/name>[\s\S]*?<location>)[^<]*(<\/location>)/,
    `$1${CANONICAL_LOCATION}$2`,
  )
}

const SKILL_ENTRY = /\n[ \t]*<skill>\s*<name>todo-discipline<\/name>[\s\S]*?<\/skill>/

export interface Fixed {
  description: number
  parameters: number
  skill: number
  passages: number
  system: string
  /** The skill entry as sent, to show where its characters go. */
  skillText: string
}
export const fixedTotal = (f: Fixed) => f.description + f.parameters + f.skill + f.passages

/** What one request carries of a tool: its calls' arguments and results, notices, and the JSON around them. */
export interface Carried {
  readonly args: number
  /** Of `args`, the first call's: the plan, laid out whole. */
  readonly planArgs: number
  readonly results: number
  readonly injected: number
  /** The JSON of the messages around the calls and results (ids, roles, field names), beyond the content. */
  readonly envelope: number
  /** Calls of the tool in the request. */
  readonly calls: number
}
export const carriedContent = (c: Carried) => c.args + c.results + c.injected

/** The tool's calls in a request: arguments and (once answered) result lengths, notices, and the JSON around them. */
export function carriedBy(
  body: Body,
  tool: string,
  textOf: (c: unknown) => string,
): Carried & { each: { args: number; result: number }[] } {
  const calls = new Map<string, { args: number; result: number }>()
  let injected = 0
  let envelope = 0
  for (const m of body.messages) {
    for (const call of m.tool_calls ?? [])
      if (call.function.name === tool) {
        calls.set(call.id, { args: call.function.arguments.length, result: 0 })
        envelope += JSON.stringify(call).length - call.function.arguments.length
      }
    const answered = m.role === "tool" && m.tool_call_id ? calls.get(m.tool_call_id) : undefined
    if (answered) {
      answered.result = textOf(m.content).length
      envelope += JSON.stringify(m).length - answered.result
    }
    if (m.role === "user") {
      const text = textOf(m.content)
      const at = text.indexOf(MARKER)
      if (at >= 0) injected += text.length - at
    }
  }
  const each = [...calls.values()]
  return {
    args: each.reduce((a, c) => a + c.args, 0),
    planArgs: each[0]?.args ?? 0,
    results: each.reduce((a, c) => a + c.result, 0),
    injected,
    envelope,
    calls: each.length,
    each,
  }
}

/** A request body's characters: `json` as the host sent it, `content` without the JSON around the texts. */
export interface BodySize {
  readonly json: number
  /**
   * What the model reads of it: every message's text (system prompt, prompts, answers, tool results), every
   * call's tool name and arguments, every tool's name, description and parameters (as compact JSON).
   */
  readonly content: number
}

export function bodySize(body: Body, textOf: (c: unknown) => string): BodySize {
  let content = 0
  for (const m of body.messages) {
    content += textOf(m.content).length
    for (const call of m.tool_calls ?? [])
      content += call.function.name.length + call.function.arguments.length
  }
  for (const t of body.tools ?? [])
    content +=
      t.function.name.length + t.function.description.length + JSON.stringify(t.function.parameters).length
  return { json: JSON.stringify(body).length, content }
}

export const addSizes = (a: BodySize, b: BodySize): BodySize => ({
  json: a.json + b.json,
  content: a.content + b.content,
})
export const NO_SIZE: BodySize = { json: 0, content: 0 }

/** Tool calls the model made in this request's history (one assistant message per step, however many calls). */
export function stepsIn(body: Body): number {
  return body.messages.filter((m) => m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0).length
}

// ---- the two hosts -----------------------------------------------------------------------------------

export interface Hosts {
  readonly model: MockModel
  readonly mock: MockLib
  /** The project folder of each side (the todowrite side's turns the plugin off, the lean side sets lean mode). */
  readonly projects: Record<Side, string>
  /** One prompt in a new session, run to its end; returns the main requests it caused. */
  prompt(side: Side, modelID: string, text: string): Promise<Request[]>
  stop(): Promise<void>
}

/** Starts the scripted model and one host with the plugin; its second project turns the plugin off. */
export async function startHosts(decide: (body: Body, info: RequestInfo) => Reply): Promise<Hosts> {
  if (!existsSync(SERVER_ENTRY))
    throw new Error("dist/server.mjs is missing: run `npm run build` before the economy benchmarks.")
  const lib = (await import(new URL("../scripts/lib/host.mjs", import.meta.url).href)) as HostLib
  const mock = (await import(new URL("../scripts/lib/mock-model.mjs", import.meta.url).href)) as MockLib
  const model = await mock.startMockModel({ decide })
  let host: Host | undefined
  try {
    host = await lib.startHost({
      modelUrl: model.url,
      plugins: [SERVER_ENTRY],
      bootTimeoutMs: 120_000,
      // The host's snapshot of the project at every step (git, for its undo) cost about 0.7 s of CPU a
      // request here and puts nothing in a request body: off, a run takes a quarter of the time.
      configExtra: { snapshot: false },
    })
    // The same host without the plugin: a project folder of the same name length whose todo.json
    // turns it off, so the environment block of the system prompt is as long on both sides.
    const plain = join(host.dirs.root, "plugoff")
    lib.makeProjectDir(plain)
    writeFileSync(join(plain, ".opencode", "todo.json"), JSON.stringify({ enabled: false }))
    // The plugin in lean mode, the same way: a project folder of the same name length.
    const lean = join(host.dirs.root, "leanmod")
    lib.makeProjectDir(lean)
    writeFileSync(join(lean, ".opencode", "todo.json"), JSON.stringify({ mode: "lean" }))
    const apis = {
      todo: host.api,
      lean: lib.makeApi(host.url, lean),
      todowrite: lib.makeApi(host.url, plain),
    }
    const started = host
    return {
      model,
      mock,
      projects: { todo: host.dirs.project, lean, todowrite: plain },
      async prompt(side, modelID, text) {
        const api = apis[side]
        const tool = toolOf(side)
        const from = model.requests.length
        // This turn's requests, told apart from those of other turns running at the same time by the
        // model, the side's tool and the prompt's text.
        const ours = (r: Request) =>
          r.kind === "main" &&
          r.body.model === modelID &&
          (r.body.tools ?? []).some((t) => t.function.name === tool) &&
          r.body.messages.some((m) => m.role === "user" && mock.textOf(m.content).includes(text))
        const mainSince = () => model.requests.slice(from).filter(ours)
        const session = await api.post("/session", {})
        // The asynchronous prompt: a turn of hundreds of requests outlasts the time fetch waits for the
        // answer's headers, which the synchronous one sends only when the turn ends.
        const sent = await api.call("POST", `/session/${session.id}/prompt_async`, {
          body: { parts: [{ type: "text", text }], model: { providerID: "mock", modelID } },
          raw: true,
        })
        if (sent.status >= 300) throw new Error(`${side}: prompt_async answered ${sent.status}`)
        await turnEnd(api, session.id, () => mainSince().length, lib)
        return mainSince()
      },
      async stop() {
        await started.stop().catch(() => {})
        await model.close()
      },
    }
  } catch (error) {
    await host?.stop().catch(() => {})
    await model.close()
    throw error
  }
}

/** How long a turn may go without a new model request before it counts as stalled. */
const STALL_MS = 300_000

/**
 * Waits for a turn started with prompt_async to end: until the model has had a request of it, then until
 * the host says the session is idle with its last answer stored. The plugin-off side's project is not the
 * one whose events the host helper follows, so this polls the session's status instead of waiting for an
 * idle event. Fails when the turn makes no request for STALL_MS.
 */
async function turnEnd(api: Api, id: string, requests: () => number, lib: HostLib): Promise<void> {
  let seen = requests()
  let lastProgress = Date.now()
  const stalled = () => {
    const now = requests()
    if (now !== seen) {
      seen = now
      lastProgress = Date.now()
    }
    if (Date.now() - lastProgress > STALL_MS)
      throw new Error(`session ${id}: no model request for ${STALL_MS / 1000} s after ${seen}`)
  }
  while (requests() === 0) {
    stalled()
    await sleep(200)
  }
  for (;;) {
    stalled()
    const status = await api.get("/session/status", { timeoutMs: 10_000 }).catch(() => undefined)
    const state = status?.[id]
    if (status && (state === undefined || state.type === "idle")) break
    await sleep(500)
  }
  await lib.waitSettled(api, id, { timeoutMs: 60_000 })
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The fixed characters of each side under each prompt, from the first request of a prompt that says `marker`. */
export async function measureFixed(
  hosts: Hosts,
  marker: string,
): Promise<Record<Side, Record<ModelID, Fixed>>> {
  const out = {} as Record<Side, Record<ModelID, Fixed>>
  const firsts = new Map<string, Request | undefined>()
  // The six prompts run at the same time: each is one request, mostly waiting on the host.
  await Promise.all(
    SIDES.flatMap((side) =>
      MODEL_IDS.map(async (modelID) => {
        // The todo and lean sides offer the same tool: each side's prompt is its own, all of one length.
        const [first] = await hosts.prompt(side, modelID, `${marker}:${side.slice(0, 1)} Say hello.`)
        firsts.set(`${side}/${modelID}`, first)
      }),
    ),
  )
  for (const side of SIDES) {
    out[side] = {} as Record<ModelID, Fixed>
    for (const modelID of MODEL_IDS) {
      const first = firsts.get(`${side}/${modelID}`)
      if (!first) throw new Error(`${side}/${modelID}: no main request reached the model`)
      const entry = first.body.tools?.find((t) => t.function.name === toolOf(side))
      if (!entry) throw new Error(`${side}/${modelID}: the tool is not in the request`)
      const system = atCanonicalLocation(
        first.body.messages
          .filter((m) => m.role === "system")
          .map((m) => hosts.mock.textOf(m.content))
          .join("\n"),
      )
      const skillText = SKILL_ENTRY.exec(system)?.[0] ?? ""
      out[side][modelID] = {
        description: entry.function.description.length,
        parameters: JSON.stringify(entry.function.parameters).length,
        skill: skillText.length,
        passages: 0,
        system,
        skillText,
      }
    }
  }
  // The host's todo passages. Without the plugin they are found in the prompt as sent; with it, what the
  // steering left is the difference of the two prompts once the skill entry is set aside (both sides'
  // prompts are otherwise the same text).
  for (const modelID of MODEL_IDS) {
    const plain = out.todowrite[modelID]
    plain.passages = findPassages(plain.system, modelID).reduce((a, p) => a + p.chars, 0)
    for (const side of ["todo", "lean"] as const) {
      const mine = out[side][modelID]
      mine.passages = mine.system.length - plain.system.length + plain.passages - mine.skill
    }
  }
  return out
}

export type Cost = Carried & { readonly fixed: number; readonly total: number; readonly withEnvelope: number }

/** The characters of a session whose requests carry `perRequest` each, plus `fixed` each. */
export function sessionCost(perRequest: readonly Carried[], fixed: number): Cost {
  const sum = { fixed: 0, args: 0, planArgs: 0, results: 0, injected: 0, envelope: 0, calls: 0 }
  for (const carried of perRequest) {
    sum.fixed += fixed
    sum.args += carried.args
    sum.planArgs += carried.planArgs
    sum.results += carried.results
    sum.injected += carried.injected
    sum.envelope += carried.envelope
    sum.calls += carried.calls
  }
  const total = sum.fixed + carriedContent(sum)
  return { ...sum, total, withEnvelope: total + sum.envelope }
}
