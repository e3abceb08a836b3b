// Smoke proof that the list follows the host's /undo and /redo on the real binary: plan, done, done; a revert
// to the second done brings back the list before it at once (the stored list in effect, and no turn started
// on its own); a redo the newest list; a second revert committed by the next prompt (the /todo command): the
// command shows the list before the undone turn, the undone turns are gone, and work goes on from there;
// an undo that cuts a reply at its todo call's part takes back that call only, and redo brings it back;
// an undo (and a fork) at a /todo command's own message takes back the command's edit, though the host runs
// the command before it makes that message; a redo that drops one of two dialog edits made while undone
// keeps the other and tells the model of it, not of the dropped one; a dialog edit while undone survives the
// prompt that makes the undo final, and a fork made during the undo at the point undone to starts with them.
// The list is read the way the model sees it: the `todo view` results and the command's text in the
// requests the scripted model received.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { textOf, toolResults } from "./mock-model.mjs"
import { isView, TASKS, taskMark } from "./scenarios.mjs"
import { sleep, until } from "./wait.mjs"

/** How long the plugin gets to follow an event (the host delivers events to plugins asynchronously). */
const FOLLOW_MS = 5000
/** How long nothing may happen after a revert for the check that the plugin started no turn. */
const STILL_MS = 1500

const lastUserText = (req) => textOf(req.body.messages.filter((m) => m.role === "user").at(-1)?.content ?? "")

export async function proveUndo({ host, model, kit, check }) {
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

  const turnIn = async (session, step) => {
    const since = model.requests.length
    await host.turn(session, `scenario:undo step:${step}`, { idleTimeoutMs: 150_000 })
    return model.requests.slice(since).filter((r) => r.kind === "main")
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
    FOLLOW_MS,
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
  check(
    "redo: the newest list is in effect again",
    await until(() => storedMark(TASKS[1]) === "completed", FOLLOW_MS),
  )
  const viewed = await turn("view")
  const redoView = viewed.flatMap(toolResults).findLast(isView)
  check(
    "...and the model's todo view shows the second done",
    taskMark(redoView, TASKS[1]) === "[x]",
    redoView?.split("\n").slice(0, 4).join(" | "),
  )

  // Undo again (the second done and the view turn), committed by the next prompt: the /todo command.
  await host.revert(id, thirdTurn)
  await until(() => storedMark(TASKS[1]) === "in_progress", FOLLOW_MS)
  const beforeCommand = model.requests.length
  await host.runCommand(id, "todo", "", { timeoutMs: 120_000 })
  await host.waitSettled(id)
  const commandReq = model.requests.slice(beforeCommand).find((r) => r.kind === "main")
  const shown = commandReq ? lastUserText(commandReq) : ""
  check(
    "/todo during the undo shows the list before the second done (the model receives it)",
    taskMark(shown, TASKS[0]) === "[x]" && taskMark(shown, TASKS[1]) === "[>]",
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
    taskMark(restored, TASKS[1]) === "[>]",
    restored?.split("\n").slice(0, 4).join(" | "),
  )
  check(
    "...and work goes on: the second done again succeeds",
    results.some((t) => t.startsWith(`Done "${TASKS[1]}"`)) && storedMark(TASKS[1]) === "completed",
    results.at(-1)?.split("\n")[0],
  )
  // An undo that cuts inside a reply, at the todo call's part: the call is undone, the words before it stay.
  await turn("partial")
  const reply = (await host.listMessages(id)).findLast((m) =>
    m.parts.some((p) => p.type === "tool" && p.tool === "todo"),
  )
  const callPart = reply?.parts.find((p) => p.type === "tool")
  const cut = await host.revert(id, reply?.info.id, { partID: callPart?.id })
  check("the host cut the reply at the call's part", cut?.revert?.partID === callPart?.id)
  check(
    "a partial undo takes back the call at that part, at once",
    await until(() => storedMark(TASKS[2]) === "in_progress", FOLLOW_MS),
    storedMark(TASKS[2]),
  )
  await host.unrevert(id)
  check("...and redo brings it back", await until(() => storedMark(TASKS[2]) === "completed", FOLLOW_MS))
  const history = stored()?.history
  check(
    "the stored history keeps no revert pending",
    history !== undefined && !JSON.stringify(history).includes('"rev"'),
  )

  // A /todo command's edit belongs to the command's own message, which the host makes after the command ran.
  const removed = TASKS.at(-1)
  await host.runCommand(id, "todo", `rm "${removed}"`, { timeoutMs: 120_000 })
  await host.waitSettled(id)
  check("/todo rm removed the task", storedMark(removed) === undefined)
  const commandMessage = (await host.listMessages(id)).filter((m) => m.info.role === "user").at(-1)
  check(
    "...and the host made the command's own message",
    commandMessage?.parts.some((p) => p.type === "text" && p.text?.includes(`removed "${removed}"`)),
  )
  const forked = await host.api.post(`/session/${id}/fork`, { messageID: commandMessage?.info.id })
  await host.revert(id, commandMessage?.info.id)
  check(
    "an undo at the /todo command's message takes its edit back, at once",
    await until(() => storedMark(removed) === "pending", FOLLOW_MS),
    String(storedMark(removed)),
  )
  const forkView = (await turnIn(forked.id, "view")).flatMap(toolResults).findLast(isView)
  check(
    "...and a fork at that message starts without the edit",
    taskMark(forkView, removed) === "[ ]",
    forkView?.split("\n").slice(-2).join(" | "),
  )

  // Two dialog edits while undone; the redo keeps the one that still applies and drops the other.
  const anchor = { kind: "reverted", point: { message: commandMessage?.info.id } }
  const dir = kit.todoDir(host.env)
  const kept = TASKS[3]
  await kit.dialogAction({ dir, session: id, task: removed, action: "done", anchor })
  await kit.dialogAction({ dir, session: id, task: kept, action: "drop", anchor })
  check(
    "dialog edits while undone change the list in effect",
    storedMark(removed) === "completed" && storedMark(kept) === "abandoned",
  )
  const forkedUndone = await host.api.post(`/session/${id}/fork`, { messageID: commandMessage?.info.id })
  const undoneView = (await turnIn(forkedUndone.id, "view")).flatMap(toolResults).findLast(isView)
  check(
    "a fork at the point undone to, made during the undo, starts with the dialog edits made while undone",
    taskMark(undoneView, removed) === "[x]" && taskMark(undoneView, kept) === "[-]",
    `${taskMark(undoneView, removed)} ${taskMark(undoneView, kept)}`,
  )
  await host.unrevert(id)
  check(
    "redo: the command's edit is back, the edit on its removed task dropped, the other kept",
    await until(() => storedMark(removed) === undefined && storedMark(kept) === "abandoned", FOLLOW_MS),
    `${storedMark(removed)}, ${storedMark(kept)}`,
  )
  const afterRedo = await turn("view")
  const notices = afterRedo.flatMap((r) =>
    r.body.messages.filter((m) => m.role === "user").map((m) => textOf(m.content)),
  )
  // The newest: the command's own message earlier in the conversation says "changed the todo list" too.
  const notice = notices.findLast((t) => t.includes("changed the todo list"))
  check(
    "...and the model is told of the kept edit, not of the dropped one",
    notice?.includes(`"${kept}"`) && !notice.includes(`"${removed}"`),
    notice?.split("\n").slice(1, 4).join(" | "),
  )

  // A dialog edit while undone, then a new prompt: the prompt makes the undo final, the edit kept.
  await host.revert(id, commandMessage?.info.id)
  await until(() => storedMark(removed) === "pending", FOLLOW_MS)
  await kit.dialogAction({ dir, session: id, task: removed, action: "done", anchor })
  const committed = await turn("view")
  const finalView = committed.flatMap(toolResults).findLast(isView)
  check(
    "a dialog edit while undone, then a prompt: the undo is final and the edit kept",
    storedMark(removed) === "completed" && taskMark(finalView, removed) === "[x]",
    `${storedMark(removed)}; ${finalView?.split("\n").find((l) => l.includes(removed))}`,
  )
  const told = committed[0]?.body.messages
    .filter((m) => m.role === "user")
    .map((m) => textOf(m.content))
    .filter((t) => t.includes("changed the todo list"))
    .at(-1)
  check(
    "...and the model is told of it once, in the prompt that made the undo final",
    told?.includes(`"${removed}"`) && told.split("changed the todo list").length === 2,
    told?.split("\n").slice(1, 3).join(" | "),
  )
  return { seconds: (Date.now() - t0) / 1000 }
}
