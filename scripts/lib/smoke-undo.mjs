// Smoke proof that the list follows the host's /undo and /redo on the real binary: plan, done, done; a revert
// to the second done brings back the list before it at once (the stored list in effect, and no turn started
// on its own); a redo the newest list; a second revert committed by the next prompt (the /todo command): the
// command shows the list before the undone turn, the undone turns are gone, and work goes on from there.
// The list is read the way the model sees it: the `todo view` results and the command's text in the
// requests the scripted model received.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { textOf } from "./mock-model.mjs"
import { TASKS } from "./scenarios.mjs"
import { sleep } from "./wait.mjs"

/** How long the plugin gets to follow an event (the host delivers events to plugins asynchronously). */
const FOLLOW_MS = 5000
/** How long nothing may happen after a revert for the check that the plugin started no turn. */
const STILL_MS = 1500

/** Polls `ok` until it holds or `ms` passed; returns the last answer. */
async function until(ok, ms = FOLLOW_MS) {
  const deadline = Date.now() + ms
  for (;;) {
    const answer = ok()
    if (answer || Date.now() > deadline) return answer
    await sleep(100)
  }
}

const toolResults = (req) => req.body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content))
/** A `todo view` result: the whole list, starting with the first phase. */
const isView = (text) => text.startsWith("Explore (")
const lastUserText = (req) => textOf(req.body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "")
/** The status mark a list rendering gives a task: "[x]" done, "[>]" in progress, "[ ]" pending. */
const mark = (text, task) => new RegExp(`(\\[[ x>!~-]\\]) ${task}`).exec(text ?? "")?.[1]

export async function proveUndo({ host, model, check }) {
  const t0 = Date.now()
  const session = await host.createSession()
  const id = session.id
  const stored = () => {
    const file = join(host.dirs.data, "plugin", "todo", `${id}.json`)
    return existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined
  }
  const storedMark = (task) =>
    stored()
      ?.list.flatMap((p) => p.tasks)
      .find((t) => t.text === task)?.status
  const turn = async (step) => {
    const since = model.requests.length
    // Every turn ends with a question: no reminder follows, so idle and settled is the end of it.
    await host.turn(id, `scenario:undo step:${step}`, { idleTimeoutMs: 150_000 })
    const reqs = model.requests.slice(since).filter((r) => r.kind === "main")
    return reqs
  }

  await turn("init")
  await turn("done1")
  await turn("done2")
  const users = (await host.listMessages(id)).filter((m) => m.info.role === "user")
  const thirdTurn = users[2]?.info.id
  check("plan, done, done: the second done is stored", storedMark(TASKS[1]) === "completed")

  // Undo the third turn (the second done).
  const beforeRevert = model.requests.length
  const reverted = await host.revert(id, thirdTurn)
  check(
    "the host took the revert",
    reverted?.revert?.messageID === thirdTurn,
    JSON.stringify(reverted?.revert),
  )
  const tRevert = Date.now()
  const followed = await until(
    () => storedMark(TASKS[0]) === "completed" && storedMark(TASKS[1]) === "in_progress",
  )
  check(
    "revert: the list in effect is the list before the second done, at once",
    followed,
    `${storedMark(TASKS[0])}, ${storedMark(TASKS[1])} after ${Date.now() - tRevert} ms`,
  )
  await sleep(STILL_MS)
  const pending = await host.getSession(id)
  check(
    "...and the plugin started no turn, which would commit the undo",
    model.requests.length === beforeRevert && pending.revert?.messageID === thirdTurn,
  )

  // Redo: the newest list.
  await host.unrevert(id)
  check("redo: the newest list is in effect again", await until(() => storedMark(TASKS[1]) === "completed"))
  const viewed = await turn("view")
  const redoView = viewed.flatMap(toolResults).findLast(isView)
  check(
    "...and the model's todo view shows the second done",
    mark(redoView, TASKS[1]) === "[x]",
    redoView?.split("\n").slice(0, 4).join(" | "),
  )

  // Undo again (the second done and the view turn), committed by the next prompt: the /todo command.
  await host.revert(id, thirdTurn)
  await until(() => storedMark(TASKS[1]) === "in_progress")
  const beforeCommand = model.requests.length
  await host.runCommand(id, "todo", "", { timeoutMs: 120_000 })
  await host.waitSettled(id)
  const commandReq = model.requests.slice(beforeCommand).find((r) => r.kind === "main")
  const shown = commandReq ? lastUserText(commandReq) : ""
  check(
    "/todo during the undo shows the list before the second done (the model receives it)",
    mark(shown, TASKS[0]) === "[x]" && mark(shown, TASKS[1]) === "[>]",
    shown.split("\n").slice(0, 4).join(" | "),
  )
  const left = (await host.listMessages(id)).filter((m) => m.info.role === "user").map((m) => m.info.id)
  check(
    "the prompt committed the undo: the undone turns are gone",
    !left.includes(thirdTurn) && (await host.getSession(id)).revert == null,
    `${left.length} user messages`,
  )

  // Work goes on from the restored list.
  const after = await turn("view-done2")
  const results = after.flatMap(toolResults)
  const restored = results.findLast(isView)
  check(
    "after the commit the model's todo view shows the list before the second done",
    mark(restored, TASKS[1]) === "[>]",
    restored?.split("\n").slice(0, 4).join(" | "),
  )
  check(
    "...and work goes on: the second done again succeeds",
    results.some((t) => t.startsWith(`Done "${TASKS[1]}"`)) && storedMark(TASKS[1]) === "completed",
    results.at(-1)?.split("\n")[0],
  )
  const history = stored()?.history
  check(
    "the stored history keeps no revert pending",
    history !== undefined && !JSON.stringify(history).includes('"rev"'),
  )
  return { seconds: (Date.now() - t0) / 1000 }
}
