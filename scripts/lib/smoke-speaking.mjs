// Smoke proof that the plugin speaks only when it helps, on the real host: an agent whose rules deny `todo`
// gets no prelude, nudge or reminder while `build` in the same session does; `todo: "ask"` goes through the
// host's permission prompt; stored plugin messages that a later todo update made stale reach the model as a
// one-line stub, for good, and never before the model answered them; so do todo results a later successful
// todo call superseded, while the newest result and every call's arguments stay whole. The scripted replies
// decide from the request's structure only, never from text the plugin injected.
import { textOf } from "./mock-model.mjs"
import { call, PLAN, shape, todo } from "./scenarios.mjs"

export const MARKER = "[todo plugin: automatic message, not written by the user]"
export const STUB = "[todo plugin: earlier message, superseded by a later todo update]"
const RESULT_STUBS = [
  "[Superseded; the newest todo result is current, todo view shows the list]",
  "[This call failed and changed nothing; the newest todo result is current]",
]
const NUDGE = "edits or commands since the todo list was last updated"

/**
 * Agents the smoke host declares: todo denied for one, asked for by another; two that allow everything, one of
 * them naming todowrite before its catch-all (the host reads an agent's own rules after the global ones).
 */
export const AGENTS = {
  review: { mode: "primary", description: "Reviews without a todo list", permission: { todo: "deny" } },
  careful: { mode: "primary", description: "Approves each todo call", permission: { todo: "ask" } },
  open: { mode: "primary", description: "Allows every tool", permission: { "*": "allow" } },
  keen: {
    mode: "primary",
    description: "Allows todowrite by name",
    permission: { todowrite: "allow", "*": "allow" },
  },
}

const bash = (n) => call("bash", { command: "true", description: `step ${n}` })

export const speakingScenarios = {
  // A denied agent's first prompt in a new session: it answers in words.
  "deny-first": () => ({ text: "Reviewed: two bugs found." }),
  // Build plans, runs twelve commands without a todo update, stops with work open; after the reminder, stops.
  "deny-build"(info) {
    const { results } = shape(info)
    if (results === 0) return todo({ list: PLAN })
    if (results <= 12) return bash(results)
    return { text: "Pausing here." }
  },
  // The denied agent again, with the list open: twelve more commands, then it stops.
  "deny-review"(info) {
    const { turnResults } = shape(info)
    if (turnResults < 13) return bash(turnResults + 1)
    return { text: "Reviewed more." }
  },
  // An agent that allows every tool answers in words: the request's tool list is what is checked.
  "open-tools": () => ({ text: "Looked." }),
  // An agent whose todo calls wait for the user's approval views the list.
  "ask-view"(info) {
    const { turnResults } = shape(info)
    if (turnResults === 0) return todo({ op: "view" })
    return { text: "Shown." }
  },
  // After a resume: a new plan, then a stop.
  reinit(info) {
    const { turnResults } = shape(info)
    if (turnResults === 0) return todo({ list: [{ phase: "Again", items: ["Redo the parser"] }] })
    return { text: "Re-planned." }
  },
}

const userTexts = (req) => req.body.messages.filter((m) => m.role === "user").map((m) => textOf(m.content))
const markers = (req) => userTexts(req).join("\n").split(MARKER).length - 1
const toolNames = (req) => (req.body.tools ?? []).map((t) => t.function?.name)

/** Point 1: one session, the denied agent and build taking turns. Returns the session id. */
export async function proveDeniedAgent({ host, check, requestsOf, reminderMessages, quiet }) {
  const session = await host.createSession()
  const id = session.id
  const turn = async (keyword, text, agent) => {
    await host.turn(id, `scenario:${keyword} ${text}`, { agent, idleTimeoutMs: 150_000 })
    await quiet(host, id)
  }
  await turn("deny-first", "Review the parser bugs.", "review")
  const first = requestsOf("deny-first")
  check("a denied agent is not offered todo", first.length > 0 && !toolNames(first[0]).includes("todo"))
  check(
    "...and gets no prelude on the first prompt of a new session",
    first.every((r) => markers(r) === 0),
  )

  await turn("deny-build", "Fix the parser bugs.", "build")
  const build = requestsOf("deny-build")
  check("build in the same session gets the prelude held for it", markers(build[0]) === 1)
  check(
    "...and the nudge after twelve commands",
    build.some((r) => userTexts(r).some((t) => t.includes(NUDGE))),
  )
  const afterBuild = await reminderMessages(host, id)
  check("...and a reminder", afterBuild.length === 1, `${afterBuild.length}`)
  check("...as build", afterBuild[0]?.info.agent === "build", afterBuild[0]?.info.agent)

  await turn("deny-review", "Go on reviewing.", "review")
  const review = requestsOf("deny-review")
  check("the denied agent ran twelve commands with the list open", review.length >= 13, `${review.length}`)
  check(
    "...and got no nudge",
    review.every((r) => !userTexts(r).some((t) => t.includes(NUDGE))),
  )
  const afterReview = await reminderMessages(host, id)
  check("...and no reminder", afterReview.length === 1, `${afterReview.length}`)
  return id
}

/** Agents whose own rules allow everything, todowrite by name too: offered `todo`, never the host's `todowrite`. */
export async function proveOpenAgents({ host, check, requestsOf, quiet }) {
  for (const agent of ["open", "keen"]) {
    const session = await host.createSession()
    const since = requestsOf("open-tools").length
    await host.turn(session.id, "scenario:open-tools Look around.", { agent, idleTimeoutMs: 150_000 })
    await quiet(host, session.id)
    const offered = requestsOf("open-tools").slice(since)
    const names = offered.flatMap(toolNames)
    check(`an agent with ${JSON.stringify(AGENTS[agent].permission)} is offered todo`, names.includes("todo"))
    check(
      "...and never todowrite",
      offered.length > 0 && offered.every((r) => !toolNames(r).includes("todowrite")),
      names.join(","),
    )
  }
}

/** `todo: "ask"`: the call waits for the user's approval through the host, then runs. */
export async function proveAsk({ host, model, check, quiet }) {
  const session = await host.createSession()
  const since = host.events.length
  await host.sendMessageAsync(session.id, "scenario:ask-view Show the list.", { agent: "careful" })
  const asked = await host.waitEvent(
    (e) =>
      e.type === "permission.asked" &&
      e.properties?.sessionID === session.id &&
      e.properties?.permission === "todo",
    { since, timeoutMs: 120_000 },
  )
  await host.api.post(`/permission/${asked.properties.id}/reply`, { reply: "once" })
  await host.waitIdle(session.id, { since, timeoutMs: 120_000 })
  await quiet(host, session.id)
  const reqs = model.requests.filter(
    (r) => r.kind === "main" && userTexts(r).some((t) => t.includes("scenario:ask-view")),
  )
  const result = reqs
    .at(-1)
    ?.body.messages.filter((m) => m.role === "tool")
    .map((m) => textOf(m.content))
    .at(-1)
  check("todo: ask puts the call to the user through the host's permission prompt", Boolean(asked))
  check("...and runs it once approved", typeof result === "string" && !/^Error/.test(result), result)
  check("...with no prelude for that agent", reqs.length > 0 && markers(reqs[0]) === 0)
}

/**
 * Point 3: in every request of a session, each user message as the model saw it; a stub, once there, stays,
 * and a message is never stubbed in the request that answers it. Returns the characters the stubs saved
 * over the session's requests, against the stored texts.
 */
export async function proveStubs({ host, check, requestsOf }, keyword, id, label) {
  const reqs = requestsOf(keyword)
  const stored = (await host.listMessages(id)).filter((m) => m.info.role === "user")
  const seen = reqs.map(userTexts)
  let permanent = true
  let answeredFirst = true
  let userTextKept = true
  let saved = 0
  let stubbed = 0
  for (let j = 0; j < stored.length; j++) {
    const ours = stored[j].parts.filter((p) => p.type === "text" && p.synthetic && p.text.startsWith(MARKER))
    const typed = stored[j].parts.filter((p) => p.type === "text" && !p.synthetic).map((p) => p.text)
    let wasStub = false
    let firstSeen = true
    for (const texts of seen) {
      const text = texts[j]
      if (text === undefined) continue
      const isStub = text.includes(STUB)
      if (wasStub && !isStub) permanent = false
      if (isStub && firstSeen) answeredFirst = false
      if (typed.some((t) => !text.includes(t))) userTextKept = false
      if (isStub) {
        stubbed++
        for (const part of ours) saved += part.text.length - STUB.length
      }
      wasStub = wasStub || isStub
      firstSeen = false
    }
  }
  check(`${label}: stale plugin messages reach the model as a stub`, stubbed > 0, `${stubbed}`)
  check(`${label}: a stub, once sent, is sent in every later request`, permanent)
  check(`${label}: never in the request that answers the message`, answeredFirst)
  check(`${label}: the user's own text is never touched`, userTextKept)
  return { saved, stubbed, requests: reqs.length }
}

/**
 * In every request of a session, each todo call as the model saw it: its result whole in the first request
 * that carries it and, once a stub, a stub in every later request; the newest todo result is never a stub;
 * the arguments never change. Returns the characters the stubs saved over the session's requests.
 */
export function proveResultStubs({ check, requestsOf }, keyword, label) {
  const reqs = requestsOf(keyword)
  const first = new Map() // call id -> { args, result } as first sent
  const stubbedIn = new Map() // call id -> whether the last request seen sent its result as a stub
  let permanent = true
  let wholeFirst = true
  let newestWhole = true
  let argsKept = true
  let stubbed = 0
  let saved = 0
  for (const req of reqs) {
    const names = new Map()
    const args = new Map()
    for (const m of req.body.messages)
      for (const c of m.tool_calls ?? []) {
        names.set(c.id, c.function?.name)
        args.set(c.id, c.function?.arguments)
      }
    const results = req.body.messages
      .filter((m) => m.role === "tool" && names.get(m.tool_call_id) === "todo")
      .map((m) => ({ id: m.tool_call_id, text: textOf(m.content) }))
    for (const [i, r] of results.entries()) {
      const isStub = RESULT_STUBS.includes(r.text)
      const seen = first.get(r.id)
      if (!seen) {
        first.set(r.id, { args: args.get(r.id), result: r.text })
        if (isStub) wholeFirst = false
      } else if (seen.args !== args.get(r.id)) argsKept = false
      if (stubbedIn.get(r.id) && !isStub) permanent = false
      if (isStub && i === results.length - 1) newestWhole = false
      if (isStub) {
        stubbed++
        saved += (seen?.result.length ?? 0) - r.text.length
      }
      stubbedIn.set(r.id, isStub)
    }
  }
  check(`${label}: superseded todo results reach the model as a stub`, stubbed > 0, `${stubbed}`)
  check(`${label}: a todo result is whole in the first request that carries it`, wholeFirst)
  check(`${label}: a result stub, once sent, is sent in every later request`, permanent)
  check(`${label}: the newest todo result is always whole`, newestWhole)
  check(`${label}: every todo call's arguments go out unchanged`, argsKept)
  return { saved, stubbed }
}
