// What the model pays for the todo tool over a whole session, measured from what the real host sends:
// the reference session (bench/sessions/reference.ts, 52 calls) driven through `opencode serve` with the
// built plugin (`todo`) and, side by side in the same run, through the same host with the plugin turned
// off (the built-in `todowrite`, given the same plan). Both sides are read from the request bodies the
// scripted model receives:
// - fixed characters per request: the tool's entry (description and parameters), the plugin's skill
//   entry, and the host prompt's todo passages (steered by the plugin, as written for `todowrite`),
//   under the host's default prompt (model id `m`) and its Claude prompt (`claude-sonnet-4`);
// - characters sent once: every call's arguments and result, and any notice the plugin injected;
// - characters paid over sessions of 50 and 200 requests, with the 52 calls spread evenly over the
//   requests: call i is made in the reply to request floor(i × N / 52), and a request carries the
//   fixed part plus what the real host sent after that many calls (our old results as the stubs the
//   plugin sends in their place), and where those characters go at 200 requests.
// The plugin is measured as configured by default and in lean mode (`mode: "lean"`, core/model/mode.ts).
// Goals: fixed cost at most 0.5× todowrite's under the default prompt and 0.35× under the Claude prompt
// (the default mode; lean is far below); the whole session at most 5% of todowrite's at 200 requests.
// Needs `npm run build` first (the host loads dist/server.mjs).

import { expect, it } from "vitest"
import {
  addSizes,
  type BodySize,
  bodySize,
  CANONICAL_LOCATION,
  type Carried,
  CLAUDE,
  type Cost,
  carriedBy,
  type Fixed,
  fixedTotal,
  MODEL_IDS,
  type ModelID,
  measureFixed,
  millions,
  NO_SIZE,
  n,
  pct,
  type Reply,
  SIDES,
  type Side as SideName,
  sessionCost,
  startHosts,
  todowriteCalls,
  toolOf,
  USAGE,
} from "./economy-host.ts"
import { record } from "./lib.ts"
import { REFERENCE_CALLS } from "./sessions/reference.ts"

const SESSION_REQUESTS = [50, 200] as const
/** Goals: the fixed part at most 0.5× todowrite's under the default prompt and 0.35× under the Claude prompt. */
const FIXED_GOALS = { claude: 0.35, default: 0.5 }
const GOALS = { session200: 0.05 }
/**
 * What the whole-session figure is held to: the goal. It is met because old todo results go out as
 * one-line stubs (src/core/model/stale.ts): about 3.4% when they landed, against 6.7% without them. The
 * figures are character counts, the same on every run, so the bound is the goal itself.
 */
const SESSION_BOUND = GOALS.session200
const RUN = "economy:run"
const FIXED = "economy:fixed"

interface Side {
  readonly tool: SideName
  /** Per request of the real run (index = calls made before it): the tool's share of that request. */
  readonly carried: Carried[]
  /** Per call: its arguments and its result the first time they are sent. */
  readonly args: number[]
  readonly results: number[]
  /** Notices the plugin injected, each counted once. */
  injected: number
  /** Per request of the real run (index = calls made before it): its whole body. */
  readonly bodies: BodySize[]
  readonly fixed: Record<ModelID, Fixed>
}

/** Calls made before each request of a session of `requests` requests with the calls spread evenly. */
function madeBefore(calls: number, requests: number): number[] {
  const out: number[] = []
  for (let j = 0; j < requests; j++) {
    let made = 0
    while (made < calls && Math.floor((made * requests) / calls) < j) made++
    out.push(made)
  }
  return out
}

/** Characters paid over a session of `requests` requests with the 52 calls spread evenly, by part. */
function referenceCost(side: Side, fixed: number, requests: number): Cost {
  return sessionCost(
    madeBefore(side.args.length, requests).map((made) => side.carried[made]!),
    fixed,
  )
}

/** The whole request bodies of that session: request j's body is the real one sent after as many calls. */
function referenceBodies(side: Side, requests: number): BodySize {
  return madeBefore(side.args.length, requests).reduce(
    (sum, made) => addSizes(sum, side.bodies[made]!),
    NO_SIZE,
  )
}

it("measures the whole-session cost of todo against todowrite on the real host", async () => {
  const todowrite = todowriteCalls(REFERENCE_CALLS)
  expect(todowrite).toHaveLength(REFERENCE_CALLS.length)
  let textOf: (c: unknown) => string = String
  const decide = (
    body: Parameters<Parameters<typeof startHosts>[0]>[0],
    info: { kind: string; turnToolResults: readonly unknown[] },
  ): Reply => {
    if (info.kind !== "main") return undefined
    const asked = body.messages.filter((m) => m.role === "user").map((m) => textOf(m.content))
    if (!asked.some((t) => t.includes(RUN))) return { text: "ok", usage: USAGE }
    const names = (body.tools ?? []).map((t) => t.function.name)
    const calls = names.includes("todo") ? REFERENCE_CALLS : todowrite
    const i = info.turnToolResults.length
    if (i >= calls.length) return { text: "All done.", usage: USAGE }
    return {
      toolCalls: [{ name: names.includes("todo") ? "todo" : "todowrite", args: calls[i] }],
      usage: USAGE,
    }
  }

  const hosts = await startHosts(decide)
  textOf = hosts.mock.textOf
  try {
    const fixedBoth = await measureFixed(hosts, FIXED)
    // The sides run at the same time, each in its own session and project folder.
    const sides = await Promise.all(
      SIDES.map(async (tool) => {
        // Each side's prompt is its own (the todo and lean sides offer the same tool), all of one length.
        const run = await hosts.prompt(tool, "m", `${RUN}:${tool.slice(0, 1)} Work through the plan.`)
        expect(run, `${tool}: one request per call and a last one`).toHaveLength(REFERENCE_CALLS.length + 1)
        const side: Side = {
          tool,
          carried: [],
          args: [],
          results: [],
          injected: 0,
          fixed: fixedBoth[tool],
          bodies: [],
        }
        for (const [index, request] of run.entries()) {
          side.bodies.push(bodySize(request.body, textOf))
          const content = carriedBy(request.body, toolOf(tool), textOf)
          expect(content.each, `${tool}: request ${index} carries every earlier call`).toHaveLength(index)
          side.carried.push(content)
          const newest = content.each.at(-1)
          if (newest) {
            side.args.push(newest.args)
            side.results.push(newest.result)
          }
          side.injected = Math.max(side.injected, content.injected)
        }
        return side
      }),
    )
    const [ours, lean, theirs] = sides as [Side, Side, Side]

    const shareOf = (side: Side) => ({
      m: fixedTotal(side.fixed.m) / fixedTotal(theirs.fixed.m),
      [CLAUDE]: fixedTotal(side.fixed[CLAUDE]) / fixedTotal(theirs.fixed[CLAUDE]),
    })
    const fixedShare = shareOf(ours)
    const leanShare = shareOf(lean)
    const skill = ours.fixed.m.skillText
    const once = (s: Side) =>
      s.args.reduce((a, b) => a + b, 0) + s.results.reduce((a, b) => a + b, 0) + s.injected
    const sessions = SESSION_REQUESTS.flatMap((requests) =>
      MODEL_IDS.flatMap((modelID) =>
        [ours, lean].map((mine) => {
          const a = referenceCost(mine, fixedTotal(mine.fixed[modelID]), requests)
          const b = referenceCost(theirs, fixedTotal(theirs.fixed[modelID]), requests)
          return {
            requests,
            modelID,
            mode: mine.tool === "lean" ? "lean" : "default",
            ours: a.total,
            theirs: b.total,
            share: a.total / b.total,
            parts: { a, b },
          }
        }),
      ),
    )
    const prompt200 = sessions.filter((s) => s.requests === 200)

    const fixedRow = (label: string, pick: (f: Fixed) => number) => [
      label,
      n(pick(ours.fixed.m)),
      n(pick(lean.fixed.m)),
      n(pick(theirs.fixed.m)),
      n(pick(ours.fixed[CLAUDE])),
      n(pick(lean.fixed[CLAUDE])),
      n(pick(theirs.fixed[CLAUDE])),
    ]
    record("economy-session", [
      {
        title: "Fixed characters on every request, as the host sends them (every session shape)",
        note: `The tool's entry in the request's \`tools\` (its description, and its \`parameters\` as compact JSON), the \`todo-discipline\` entry in the system prompt's skill list (its \`<location>\`, the install path, counted as \`${CANONICAL_LOCATION}\` so the figures do not depend on where the benchmark runs), and the host prompt's passages about todo lists: as the host writes them for \`todowrite\`, and what is left of them after the plugin points them at \`todo\`. Under the default prompt (model id \`m\`) and the Claude prompt (\`${CLAUDE}\`). "lean": the plugin with \`mode: "lean"\` (a few-line description; src/core/model/mode.ts). Goals: ours (default mode) at most ${FIXED_GOALS.default}× todowrite's under the default prompt, at most ${FIXED_GOALS.claude}× under the Claude prompt. The skill entry as counted: \`${skill.trim().replace(/\s+/g, " ")}\` (${skill.length} characters, of which the location ${/<location>(.*?)<\/location>/.exec(skill)?.[1]?.length ?? 0}).`,
        columns: [
          "part",
          "todo, default",
          "todo lean, default",
          "todowrite, default",
          "todo, Claude",
          "todo lean, Claude",
          "todowrite, Claude",
        ],
        rows: [
          fixedRow("tool description", (f) => f.description),
          fixedRow("tool parameters", (f) => f.parameters),
          fixedRow("skill entry", (f) => f.skill),
          fixedRow("host prompt's todo passages", (f) => f.passages),
          fixedRow("per request", fixedTotal),
          [
            "share of todowrite's",
            pct(fixedShare.m),
            pct(leanShare.m),
            "",
            pct(fixedShare[CLAUDE]),
            pct(leanShare[CLAUDE]),
            "",
          ],
        ],
      },
      {
        title: "The reference session: characters sent once",
        note: `The ${REFERENCE_CALLS.length} calls of bench/sessions/reference.ts, made one per request by the scripted model through the real host; each call's arguments and result counted the first time a request carries them. The todowrite side sends, after each of our calls, the whole list that call leaves (flat, each task with its status and priority "medium"; a blocked task pending with its reason in its text; a \`view\` as the unchanged list).`,
        columns: ["", "todo", "todowrite", "share"],
        rows: [
          ["call arguments", ...pair(ours.args, theirs.args)],
          ["call results", ...pair(ours.results, theirs.results)],
          ["injected notices", n(ours.injected), n(theirs.injected), ""],
          ["total", n(once(ours)), n(once(theirs)), pct(once(ours) / once(theirs))],
          ["total, lean mode", n(once(lean)), n(once(theirs)), pct(once(lean) / once(theirs))],
        ],
      },
      {
        title: "The reference session: characters paid over a whole session",
        note: `A session of N requests with the ${REFERENCE_CALLS.length} calls spread evenly: call i is made in the reply to request floor(i × N / ${REFERENCE_CALLS.length}), so a request carries the fixed part plus everything the real host sent, after that many calls, for the calls made before it (after the last call, what the host sent with the last request). Goal: todo at most ${pct(GOALS.session200)} of todowrite's at 200 requests.`,
        columns: ["requests", "prompt", "mode", "todo", "todowrite", "share", "goal"],
        rows: sessions.map((s) => [
          String(s.requests),
          s.modelID === "m" ? "default" : "Claude",
          s.mode,
          `${(s.ours / 1e6).toFixed(2)} M`,
          `${(s.theirs / 1e6).toFixed(2)} M`,
          pct(s.share),
          s.requests === 200
            ? `${pct(GOALS.session200)}: ${s.share <= GOALS.session200 ? "met" : "not met"}`
            : "",
        ]),
      },
      {
        title: "The reference session: where the characters of a 200-request session go",
        note: `The session of 200 requests above, by part, under the default prompt. On the todo side, the results of earlier calls go out as a one-line stub once a later todo call succeeded (src/core/model/stale.ts), so "call results" is mostly the newest result in full plus one stub per older call. Arguments always go out as the model wrote them: they are its own record of what it did, and the plan call's are the only copy of the plan in the request once that call's result is a stub.`,
        columns: ["part", "todo", "todowrite", "todo, share of its total"],
        rows: (() => {
          const { a, b } = sessions.find(
            (s) => s.requests === 200 && s.modelID === "m" && s.mode === "default",
          )!.parts
          const row = (label: string, pick: (c: typeof a) => number) => [
            label,
            `${(pick(a) / 1e6).toFixed(2)} M`,
            `${(pick(b) / 1e6).toFixed(2)} M`,
            pct(pick(a) / a.total),
          ]
          return [
            row("fixed part of every request", (c) => c.fixed),
            row("call arguments", (c) => c.args),
            row("…of which the first call's (the plan)", (c) => c.planArgs),
            row("call results", (c) => c.results),
            row("injected notices", (c) => c.injected),
            row("total", (c) => c.total),
          ]
        })(),
      },
      {
        title: "The reference session: whole request bodies (characters)",
        note: `Every request body as the host sent it (default prompt), with the plugin and with the bare host (todowrite), over the real run of ${REFERENCE_CALLS.length + 1} requests and over sessions of N requests computed as above (request j's body is the real one sent after as many calls). "With envelope" is the JSON as sent; "without" counts what the model reads of it: every message's text, every call's tool name and arguments, every tool's name, description and parameters. This session makes no other tool calls, so the system prompt and the tools weigh more here than in a working session.`,
        columns: [
          "requests",
          "todo",
          "todowrite",
          "share",
          "todo, with envelope",
          "todowrite, with envelope",
          "share, with envelope",
        ],
        rows: [
          [
            REFERENCE_CALLS.length + 1,
            ours.bodies.reduce(addSizes, NO_SIZE),
            theirs.bodies.reduce(addSizes, NO_SIZE),
          ] as const,
          ...SESSION_REQUESTS.map((r) => [r, referenceBodies(ours, r), referenceBodies(theirs, r)] as const),
        ].map(([requests, a, b]) => [
          `${requests}${requests === REFERENCE_CALLS.length + 1 ? " (real)" : ""}`,
          millions(a.content),
          millions(b.content),
          pct(a.content / b.content),
          millions(a.json),
          millions(b.json),
          pct(a.json / b.json),
        ]),
      },
    ])

    expect(ours.fixed.m.passages, "the default prompt differs by the skill entry only").toBe(0)
    expect(theirs.fixed[CLAUDE].passages, "the Claude prompt carries the todowrite passages").toBeGreaterThan(
      2000,
    )
    expect(fixedShare[CLAUDE], "fixed per request under the Claude prompt vs todowrite").toBeLessThanOrEqual(
      FIXED_GOALS.claude,
    )
    expect(fixedShare.m, "fixed per request under the default prompt vs todowrite").toBeLessThanOrEqual(
      FIXED_GOALS.default,
    )
    for (const modelID of MODEL_IDS)
      expect(
        leanShare[modelID],
        `lean mode's fixed part, ${modelID} prompt, below the default mode's`,
      ).toBeLessThan(fixedShare[modelID])
    for (const s of prompt200)
      expect(s.share, `whole session of 200 requests, ${s.modelID} prompt`).toBeLessThanOrEqual(SESSION_BOUND)
  } finally {
    await hosts.stop()
  }
})

function pair(a: readonly number[], b: readonly number[]): [string, string, string] {
  const sa = a.reduce((x, y) => x + y, 0)
  const sb = b.reduce((x, y) => x + y, 0)
  return [n(sa), n(sb), pct(sa / sb)]
}
