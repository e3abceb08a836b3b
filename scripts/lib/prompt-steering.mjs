// The smoke's proof that the host's system prompt is steered to the `todo` tool: the scripted model
// is served under ids that make the host pick its anthropic, Muse and gpt-4 ("beast") prompts, and
// every check reads the system text the model server received. The baseline "without the plugin" is
// a second project folder on the same host whose todo.json turns the plugin off. A third folder holds
// an AGENTS.md with the host's headings and an agent with its own prompt: the user's text must reach
// the model byte for byte.
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { makeApi, makeProjectDir, PROMPT_MODEL_IDS } from "./host.mjs"
import { textOf } from "./mock-model.mjs"

/** Names of the built-in tool the plugin replaces; no system text may name them while it is off. */
const BUILT_IN = /TodoWrite|todowrite|todoread/
/** A paragraph that asks for a todo list (in any wording the host prompts use). */
const ASKS_FOR_LIST = /\btodo lists?\b|\btodos\b|checked off|check(ed)? (it|them|steps?) off/i
const CLAUDE = "claude-sonnet-4"
const PROMPT = "scenario:steer Say hello."

const systemOf = (request) =>
  (request?.body.messages ?? [])
    .filter((m) => m.role === "system")
    .map((m) => textOf(m.content))
    .join("\n")

/** Paragraphs of a system text that ask for a todo list without naming the `todo` tool. */
export function listRequestsWithoutTodo(system) {
  return system.split(/\n[ \t]*\n/).filter((p) => ASKS_FOR_LIST.test(p) && !p.includes("`todo`"))
}

/**
 * Runs the steering checks on a running host (with the built plugin) and its scripted model.
 * `check(label, ok, detail)` is the smoke report's; returns the measured lengths for the log.
 */
export async function proveSteering({ host, model, check }) {
  console.log("9. host system prompt steered to todo")
  const since = model.requests.length
  /** The first main request for `modelID` since index `from` (each turn here runs alone). */
  const mainOf = (modelID, from) =>
    model.requests.slice(from).find((r) => r.kind === "main" && r.body.model === modelID)

  const steered = {}
  for (const modelID of PROMPT_MODEL_IDS) {
    const from = model.requests.length
    const session = await host.createSession()
    await host.turn(session.id, PROMPT, {
      model: { providerID: "mock", modelID },
      idleTimeoutMs: 150_000,
    })
    steered[modelID] = systemOf(mainOf(modelID, from))
  }
  for (const [modelID, system] of Object.entries(steered)) {
    check(`${modelID}: the request reached the model with a system prompt`, system.length > 0)
    check(`${modelID}: the prompt's todo passages name the todo tool`, system.includes("`todo` tool"))
    const unsteered = listRequestsWithoutTodo(system)
    check(
      `${modelID}: every passage asking for a todo list names \`todo\``,
      unsteered.length === 0,
      unsteered[0]?.slice(0, 80),
    )
  }

  // A subagent's todo calls are refused, so its prompt loses the passages instead.
  const parent = await host.createSession()
  const child = await host.createSession({ parentID: parent.id })
  let from = model.requests.length
  await host.turn(child.id, PROMPT, {
    model: { providerID: "mock", modelID: CLAUDE },
    idleTimeoutMs: 150_000,
  })
  const childSystem = systemOf(mainOf(CLAUDE, from))
  check("an agent that cannot call todo: the request reached the model", childSystem.length > 0)
  check(
    "...its prompt names neither todowrite nor `todo` and has no Task Management section",
    childSystem.length > 0 &&
      !BUILT_IN.test(childSystem) &&
      !childSystem.includes("`todo`") &&
      !/^# Task Management/m.test(childSystem),
  )

  // An agent whose rules deny todo (the smoke host's `review`) loses the passages the same way.
  from = model.requests.length
  const reviewSession = await host.createSession()
  await host.turn(reviewSession.id, PROMPT, {
    agent: "review",
    model: { providerID: "mock", modelID: CLAUDE },
    idleTimeoutMs: 150_000,
  })
  const deniedSystem = systemOf(mainOf(CLAUDE, from))
  check(
    "an agent whose rules deny todo: its prompt names neither todowrite nor `todo`",
    deniedSystem.length > 0 &&
      !BUILT_IN.test(deniedSystem) &&
      !deniedSystem.includes("`todo`") &&
      !/^# Task Management/m.test(deniedSystem),
    `${deniedSystem.length} chars`,
  )

  const sent = model.requests.slice(since)
  const naming = sent.filter((r) => BUILT_IN.test(systemOf(r)))
  check(
    "no system text sent names todowrite, TodoWrite or todoread",
    sent.length > 0 && naming.length === 0,
    naming.map((r) => `${r.kind} ${r.body.model}`).join(", "),
  )

  // The same host without the plugin: a project folder whose todo.json turns it off. The folder
  // name has the length of the host's own project folder, so the environment block is as long.
  const plain = join(host.dirs.root, "plugoff")
  makeProjectDir(plain)
  writeFileSync(join(plain, ".opencode", "todo.json"), JSON.stringify({ enabled: false }))
  const api = makeApi(host.url, plain)
  const bare = await api.post("/session", {})
  from = model.requests.length
  await api.post(
    `/session/${bare.id}/message`,
    { parts: [{ type: "text", text: PROMPT }], model: { providerID: "mock", modelID: CLAUDE } },
    { timeoutMs: 150_000 },
  )
  const baseline = systemOf(mainOf(CLAUDE, from))
  const claude = steered[CLAUDE]
  check("without the plugin the host sends its anthropic prompt naming TodoWrite", BUILT_IN.test(baseline))
  check(
    "the Claude system prompt is shorter than without the plugin",
    claude.length > 0 && claude.length < baseline.length,
    `${claude.length} vs ${baseline.length} chars`,
  )
  check(
    "...and shorter still for an agent that cannot call todo",
    childSystem.length > 0 && childSystem.length < claude.length,
    `${childSystem.length} chars`,
  )
  const user = await proveUserTextUntouched({ host, model, check, mainOf })
  return {
    systemMessages: user.systemMessages,
    baseline: baseline.length,
    steered: Object.fromEntries(Object.entries(steered).map(([id, s]) => [id, s.length])),
    withoutTodo: childSystem.length,
  }
}

/** A project's AGENTS.md that repeats the headings and first words of the host's todo passages. */
const AGENTS_MD = [
  "# Task Management",
  "You have access to the TodoWrite tools of our tracker. All work is tracked in Linear.",
  "Never push to main.",
  "",
  "# Doing tasks",
  "- Use the TodoWrite tool to plan releases with the release manager",
  "",
  "IMPORTANT: Always use the TodoWrite tool to plan and track tasks in Linear.",
  "",
  "# Git",
  "Sign every commit.",
  "",
].join("\n")
const OWN_PROMPT = "You plan releases for this repository. Read before you write."

/**
 * The user's instructions are never edited: in a project with that AGENTS.md, an agent with its own
 * prompt (which can call todo), the built-in `explore` subagent (which cannot) and `build` (whose
 * prompt is the host's, steered) all send the AGENTS.md to the model exactly as the file holds it.
 */
async function proveUserTextUntouched({ host, model, check, mainOf }) {
  const dir = join(host.dirs.root, "userrules")
  makeProjectDir(dir)
  const agentsFile = join(dir, "AGENTS.md")
  writeFileSync(agentsFile, AGENTS_MD)
  mkdirSync(join(dir, ".opencode"), { recursive: true })
  writeFileSync(
    join(dir, ".opencode", "opencode.json"),
    JSON.stringify({
      agent: { planner: { mode: "primary", description: "Plans releases", prompt: OWN_PROMPT } },
    }),
  )
  const api = makeApi(host.url, dir)
  const asSent = `Instructions from: ${agentsFile}\n${AGENTS_MD}`
  const send = async (sessionId, agent) => {
    const from = model.requests.length
    await api.post(
      `/session/${sessionId}/message`,
      { parts: [{ type: "text", text: PROMPT }], agent, model: { providerID: "mock", modelID: CLAUDE } },
      { timeoutMs: 150_000 },
    )
    return mainOf(CLAUDE, from)
  }
  const parent = await api.post("/session", {})
  const child = await api.post("/session", { parentID: parent.id })
  const sent = {
    planner: await send(parent.id, "planner"),
    explore: await send(child.id, "explore"),
    build: await send((await api.post("/session", {})).id, "build"),
  }
  for (const [agent, request] of Object.entries(sent)) {
    const system = systemOf(request)
    check(`${agent} in a project with an AGENTS.md: the request reached the model`, system.length > 0)
    check(
      `...the AGENTS.md reaches the model byte for byte`,
      system.includes(asSent),
      `${system.length} chars`,
    )
  }
  const planner = systemOf(sent.planner)
  check("...the planner's own prompt opens the system text, unchanged", planner.startsWith(`${OWN_PROMPT}\n`))
  check("...build's own host prompt is still steered", systemOf(sent.build).includes("`todo` tool"))
  const systemMessages = (sent.build?.body.messages ?? []).filter((m) => m.role === "system").length
  check(
    "...the host sends its whole system text as one system message",
    systemMessages === 1,
    `${systemMessages}`,
  )
  return { systemMessages }
}
