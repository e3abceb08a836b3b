// End-to-end overhead: the real `opencode serve` with the built plugin against the same binary
// without it, side by side in one run, each driven by the same scripted model through the same
// multi-turn session (every turn: five bash calls, then a text answer; no todo tool involved, so
// both hosts make exactly the same model requests). Turns alternate between the two hosts, so each
// round is a pair of turns run back to back under the same load; the figure is the median of the
// rounds' ratios. Target: with the plugin below 1.5× without (the plugin adds a few per cent).
// Needs `npm run build` first (the host loads dist/server.mjs).

import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { expect, it } from "vitest"
import { median, record, SHORT } from "./lib.ts"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const SERVER_ENTRY = join(ROOT, "dist", "server.mjs")
const MAX_RATIO = 1.5
const BASH_CALLS = 5
const WARMUP_TURNS = 1
const TURNS = SHORT ? 7 : 15

// The sandbox helpers are plain JavaScript shared with the smoke script; these are the parts used here.
interface RequestInfo {
  readonly kind: string
  readonly turnToolResults: readonly unknown[]
}
type Reply = { text: string } | { toolCalls: { name: string; args: unknown }[] } | undefined
interface MockModel {
  readonly url: string
  readonly requests: readonly { kind: string; body: { tools?: { function?: { name?: string } }[] } }[]
  close(): Promise<void>
}
interface Host {
  readonly timings: { readonly readyMs: number }
  readonly events: readonly { type: string; properties?: { sessionID?: string } }[]
  createSession(): Promise<{ id: string }>
  sendMessageAsync(id: string, text: string): Promise<{ status: number; body: unknown }>
  stop(): Promise<unknown>
}
interface HostLib {
  startHost(options: { modelUrl: string; plugins: string[]; bootTimeoutMs: number }): Promise<Host>
}
interface MockLib {
  startMockModel(options: { decide: (body: unknown, info: RequestInfo) => Reply }): Promise<MockModel>
}

/** Every turn of the scripted session: BASH_CALLS shell commands, then a short answer. */
function decide(_body: unknown, info: RequestInfo): Reply {
  if (info.kind !== "main") return undefined
  const done = info.turnToolResults.length
  if (done < BASH_CALLS)
    return { toolCalls: [{ name: "bash", args: { command: "true", description: `Check ${done + 1}` } }] }
  return { text: "All checks passed." }
}

/** True when a source file changed after the last build, so the figures would be for old code. */
function buildIsStale(): boolean {
  const built = statSync(SERVER_ENTRY).mtimeMs
  const src = join(ROOT, "src")
  return readdirSync(src, { recursive: true, encoding: "utf8" }).some(
    (name) => /\.tsx?$/.test(name) && statSync(join(src, name)).mtimeMs > built,
  )
}

interface Side {
  readonly label: string
  readonly model: MockModel
  readonly host: Host
  readonly session: string
  readonly turns: number[]
}

/** The session's `session.idle` events so far (the host sends one at the end of every turn here). */
const idles = (side: Side) =>
  side.host.events.filter((e) => e.type === "session.idle" && e.properties?.sessionID === side.session).length

/**
 * One turn, from the prompt to its own `session.idle` event: the turn is over when the count of idle
 * events goes up by one. (Under load, an idle found by polling the status can come before the event
 * of that same turn, which would then end the next turn early.)
 */
async function turn(side: Side, index: number): Promise<number> {
  const before = idles(side)
  const t0 = performance.now()
  const sent = await side.host.sendMessageAsync(side.session, `Run the checks again (round ${index + 1}).`)
  if (sent.status >= 300) throw new Error(`${side.label}: prompt_async answered ${sent.status}`)
  const deadline = Date.now() + 90_000
  while (idles(side) === before) {
    if (Date.now() > deadline) throw new Error(`${side.label}: turn ${index + 1} did not end within 90 s`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  return performance.now() - t0
}

const ms = (value: number) => `${Math.round(value)} ms`
const toolNames = (model: MockModel) =>
  (model.requests.find((r) => r.kind === "main")?.body.tools ?? []).map((t) => t.function?.name)

it("adds little to a turn of the real host", async () => {
  if (!existsSync(SERVER_ENTRY))
    throw new Error("dist/server.mjs is missing: run `npm run build` before the host benchmark.")
  if (buildIsStale()) console.warn("host bench: src/ is newer than dist/server.mjs; run `npm run build`.")
  // Imported at run time: the helpers are untyped JavaScript, described by the interfaces above.
  const { startHost } = (await import(new URL("../scripts/lib/host.mjs", import.meta.url).href)) as HostLib
  const { startMockModel } = (await import(
    new URL("../scripts/lib/mock-model.mjs", import.meta.url).href
  )) as MockLib

  const models: MockModel[] = []
  const hosts: Host[] = []
  const sides: Side[] = []
  try {
    for (const [label, plugins] of [
      ["without plugin", []],
      ["with plugin", [SERVER_ENTRY]],
    ] as const) {
      const model = await startMockModel({ decide })
      models.push(model)
      const host = await startHost({ modelUrl: model.url, plugins: [...plugins], bootTimeoutMs: 120_000 })
      hosts.push(host)
      sides.push({ label, model, host, session: (await host.createSession()).id, turns: [] })
    }
    const [bare, plugged] = sides as [Side, Side]
    // Alternate the hosts, swapping which goes first each round.
    for (let round = 0; round < WARMUP_TURNS + TURNS; round++) {
      const order = round % 2 === 0 ? [bare, plugged] : [plugged, bare]
      for (const side of order) side.turns.push(await turn(side, round))
    }

    // Same scenario on both sides: the same model requests, and the plugin really loaded.
    const perTurn = BASH_CALLS + 1
    for (const side of sides)
      expect(
        side.model.requests.filter((r) => r.kind === "main").length,
        `${side.label}: main model requests`,
      ).toBe((WARMUP_TURNS + TURNS) * perTurn)
    expect(toolNames(plugged.model)).toContain("todo")
    expect(toolNames(bare.model)).not.toContain("todo")

    const warm = (side: Side) => side.turns.slice(WARMUP_TURNS)
    const row = (name: string, a: number, b: number) => [name, ms(a), ms(b), `${(b / a).toFixed(2)}×`]
    // Round by round: both turns of a round ran back to back, whichever went first.
    const ratio = median(warm(plugged).map((ms, i) => ms / warm(bare)[i]!))
    record("host", [
      {
        title: "Real host with and without the plugin",
        note:
          `\`opencode serve\` with \`dist/server.mjs\` against the same binary with no plugin, both in sandboxes ` +
          `with a scripted model, turns alternating between them. A turn is ${BASH_CALLS} bash calls then a text ` +
          `answer (${perTurn} model requests), timed from the prompt to \`session.idle\`; medians are over ` +
          `${TURNS} rounds after ${WARMUP_TURNS} warm-up round of one growing session. Target: the median of the ` +
          `rounds' ratios below ${MAX_RATIO}×.`,
        columns: ["", "without plugin", "with plugin", "ratio"],
        rows: [
          row("boot to ready", bare.host.timings.readyMs, plugged.host.timings.readyMs),
          row("first turn", bare.turns[0]!, plugged.turns[0]!),
          row(`median turn (${TURNS} turns)`, median(warm(bare)), median(warm(plugged))),
          row("fastest turn", Math.min(...warm(bare)), Math.min(...warm(plugged))),
          ["median of the rounds' ratios", "", "", `${ratio.toFixed(2)}×`],
        ],
      },
    ])
    expect(ratio, "median of the rounds' turn time with the plugin / without").toBeLessThan(MAX_RATIO)
  } finally {
    for (const host of hosts) await host.stop().catch(() => {})
    for (const model of models) await model.close()
  }
})
