// Scripted model behaviour for the end-to-end runs (smoke and demo). Each scenario is chosen
// by a keyword the test itself writes in the session's first prompt; every reply after that is
// decided from the request's structure only (how many user messages and tool results it has),
// never from text the plugin injected, so the checks cannot pass by echoing the plugin.
import { textOf } from "./mock-model.mjs"

/** The scenario of a request: the keyword ("scenario:stall") of the latest prompt the test wrote. */
export function scenarioOf(body) {
  const users = (body.messages ?? []).filter((m) => m.role === "user").reverse()
  for (const m of users) {
    const match = /scenario:([a-z0-9-]+)/.exec(textOf(m.content))
    if (match) return match[1]
  }
  return undefined
}

export const call = (name, args) => ({ toolCalls: [{ name, args }] })
export const todo = (args) => call("todo", args)

/** Tool results since the last user message, and all user messages, of one request. */
export function shape(info) {
  return { users: info.userCount, turnResults: info.turnToolResults.length, results: info.toolResults.length }
}

export const PLAN = [
  { phase: "Explore", items: ["Read the parser module", "List the failing cases"] },
  { phase: "Fix", items: ["Handle empty input", "Handle nested quotes", "Add regression tests"] },
]
export const TASKS = PLAN.flatMap((p) => p.items)
/** A `todo view` result of the plan: the whole list, starting with its first phase. */
export const isView = (text) => text.startsWith(`"${PLAN[0].phase}" (`)
/** The status mark a list rendering gives a task: "[x]" done, "[>]" in progress, "[ ]" pending. */
export const taskMark = (text, task) => new RegExp(`(\\[[ x>!~-]\\]) "${task}"`).exec(text ?? "")?.[1]

/**
 * Every scenario: (info) => reply. `info` comes from mock-model's describeRequest plus kind/seq.
 * Reminder turns arrive as a new user message, so `users` counts prompts plus reminders.
 */
export const scenarios = {
  // Plans, stops with work open, and after the reminder stops again without progress.
  stall(info) {
    const { users, turnResults } = shape(info)
    if (users === 1 && turnResults === 0) return todo({ list: PLAN })
    if (users === 1) return { text: "I have a plan. Pausing here." }
    return { text: "Still thinking about the approach." }
  },
  // Plans, stops; each reminder is answered with one task done (progress), so reminders recur up to the cap.
  progress(info) {
    const { users, turnResults } = shape(info)
    if (users === 1 && turnResults === 0) return todo({ list: PLAN })
    if (turnResults === 0) return todo({ op: "done", task: TASKS[users - 2] })
    return { text: "One more step done; stopping for now." }
  },
  // Plans, then ends with a question to the user.
  question(info) {
    const { results } = shape(info)
    if (results === 0) return todo({ list: PLAN })
    return {
      text: "I found two ways to fix this.\nShould I rewrite the tokenizer or patch the existing one?",
    }
  },
  // Plans, closes or blocks everything, stops.
  closed(info) {
    const { results } = shape(info)
    if (results === 0) return todo({ items: ["Update the changelog", "Publish the release"] })
    if (results === 1)
      return todo({
        ops: [
          { op: "done", task: "Update the changelog" },
          { op: "block", task: "Publish the release", reason: "needs the registry token" },
        ],
      })
    return { text: "Changelog updated; publishing waits for the token." }
  },
  // Plans, then hangs until the user aborts.
  abort(info) {
    const { results } = shape(info)
    if (results === 0) return todo({ list: PLAN })
    return { hang: true }
  },
  // Twelve shell commands without a todo update, then stops.
  nudge(info) {
    const { users, results } = shape(info)
    if (results === 0) return todo({ list: PLAN })
    if (users === 1 && results <= 13) return call("bash", { command: "true", description: `step ${results}` })
    return { text: "Done with the edits." }
  },
  // Bad calls: unknown task, ambiguous shape, duplicate, then stops.
  errors(info) {
    const { users, results } = shape(info)
    if (results === 0) return todo({ list: PLAN })
    if (users > 1) return { text: "Acknowledged." }
    if (results === 1) return todo({ op: "done", task: "Deploy to production" })
    if (results === 2) return todo({ task: "Handle empty input" })
    if (results === 3) return todo({ op: "append", phase: "Fix", items: ["Handle empty input"] })
    return { text: "Those calls failed." }
  },
  // One todo init, then text; used before compaction and resume checks.
  plan(info) {
    const { results } = shape(info)
    if (results === 0) return todo({ list: PLAN })
    return { text: "Noted." }
  },
  // Reads the list back with view, then answers.
  view(info) {
    const { turnResults } = shape(info)
    if (turnResults === 0) return todo({ op: "view" })
    return { text: "Here is where we are." }
  },
}

/**
 * The step the undo proof's prompt asks for ("step:done1", written by the test): the last user message's,
 * or mid-turn (after tool results, where a notice may follow) the latest prompt's. None for a /todo
 * command's turn.
 */
function undoStep(body, turnResults) {
  const users = (body?.messages ?? []).filter((m) => m.role === "user").map((m) => textOf(m.content))
  const latest = turnResults === 0 ? users.at(-1) : users.findLast((t) => t.includes("step:"))
  return /step:([a-z0-9-]+)/.exec(latest ?? "")?.[1]
}

// Undo and redo (scripts/lib/smoke-undo.mjs): each prompt names one step, made once; every turn ends with a
// question, so that no reminder adds turns.
scenarios.undo = (info, body) => {
  const { turnResults } = shape(info)
  const step = undoStep(body, turnResults)
  const first = {
    init: todo({ list: PLAN }),
    done1: todo({ op: "done", task: TASKS[0] }),
    done2: todo({ op: "done", task: TASKS[1] }),
    view: todo({ op: "view" }),
    "view-done2": todo({ op: "view" }),
  }[step]
  // Words, then the call, in one reply: an undo can cut that message at the call's part.
  if (step === "partial" && turnResults === 0)
    return { text: "Marking it done.", ...todo({ op: "done", task: TASKS[2] }) }
  if (first && turnResults === 0) return first
  if (step === "view-done2" && turnResults === 1) return todo({ op: "done", task: TASKS[1] })
  return { text: "Noted. Shall I go on?" }
}

/**
 * The README's demo: plans, works, and stops early with work open; the user drops the changelog task
 * in the /todo dialog meanwhile (scripts/demo.mjs does that); reminded, the model finishes the rest.
 */
export const DEMO_PLAN = [
  { phase: "Investigate", items: ["Reproduce the crash", "Find the root cause"] },
  { phase: "Fix", items: ["Patch the tokenizer", "Add a regression test"] },
  { phase: "Ship", items: ["Update the changelog"] },
]
/** The task the demo's user drops in the dialog, once the model has closed its first task. */
export const DEMO_USER_DROPS = "Update the changelog"
export const DEMO_FIRST = [
  todo({ list: DEMO_PLAN }),
  call("bash", { command: "echo 'parse(\"\") -> TypeError'", description: "Reproduce the crash" }),
  todo({ op: "done", task: "Reproduce the crash" }),
  call("bash", {
    command: "echo 'tokenizer assumes a non-empty buffer'",
    description: "Find the root cause",
  }),
  todo({ op: "done", task: "Find the root cause" }),
  { text: "The tokenizer assumes a non-empty buffer. That explains the crash." },
]
export const DEMO_AFTER_REMINDER = [
  call("bash", { command: "echo 'guard empty buffer' > fix.txt", description: "Patch the tokenizer" }),
  todo({ op: "done", task: "Patch the tokenizer" }),
  call("bash", { command: "echo 'test: empty input' >> fix.txt", description: "Add a regression test" }),
  todo({ op: "done", task: "Add a regression test" }),
  { text: "Fixed: empty input no longer crashes, and a regression test covers it." },
]
// Keyed by the tool results so far and the turns the model has ended, not by user messages: the
// plugin's notice of the user's edit arrives mid-turn as a user message of its own.
scenarios.demo = (info, body) => {
  const stops = (body?.messages ?? []).filter((m) => m.role === "assistant" && !m.tool_calls?.length).length
  const results = info.toolResults.length
  const [script, at] =
    stops === 0 ? [DEMO_FIRST, results] : [DEMO_AFTER_REMINDER, results - DEMO_FIRST.length + 1]
  return withHostShell(script[Math.max(0, Math.min(at, script.length - 1))], info.toolNames)
}

/**
 * A reply's `bash` call as the host offers a shell: OpenCode 2 names its tool `shell` and takes no
 * `description`, so there the call is `shell` with the command alone.
 */
export function withHostShell(reply, toolNames = []) {
  if (!reply?.toolCalls || toolNames.includes("bash") || !toolNames.includes("shell")) return reply
  return {
    ...reply,
    toolCalls: reply.toolCalls.map((c) =>
      c.name === "bash" ? { ...c, name: "shell", args: { command: c.args.command } } : c,
    ),
  }
}

export function decide(body, info) {
  if (info.kind !== "main") return undefined
  const name = scenarioOf(body)
  const run = name && scenarios[name]
  return run ? run(info, body) : { text: "ok" }
}
