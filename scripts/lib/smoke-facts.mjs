// Smoke proof that the list follows what the host knows, not which events a server saw, on the real binary:
// an undo, a restart of OpenCode, then a redo gives the redone list; two OpenCode servers on one data folder
// (two windows), undo in one and redo in the other, give the whole list back; a chain of forks never prompted
// (fork of a fork of a fork) starts the last with the list of the first source, a dialog edit made there
// before the fork included; a task added in the 1.18 TUI's dialog to a fork of a fork no server has met (its
// write path, over a v2 SDK client of this server) joins the list the fork starts with, not an empty one.
// Lists are read from the stored record and from the model's `todo view` results.
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { toolResults } from "./mock-model.mjs"
import { isView, TASKS, taskMark } from "./scenarios.mjs"
import { until } from "./wait.mjs"

/** How long the plugin gets to follow an event (the host delivers events to plugins asynchronously). */
const FOLLOW_MS = 8000

/**
 * Runs on hosts of its own (`boot` starts one on a data folder): the first is stopped for the restart, the
 * second and third share the folder.
 */
export async function proveHostFacts({ boot, model, kit, check, need }) {
  const t0 = Date.now()
  const first = await boot()
  const data = first.dirs.xdgData
  const records = join(first.dirs.data, "plugin", "todo")
  const project = first.dirs.project
  const file = (id) => join(records, `${id}.json`)
  const storedMark = (id, task) => {
    if (!existsSync(file(id))) return undefined
    const record = JSON.parse(readFileSync(file(id), "utf8"))
    return record.list.flatMap((p) => p.tasks).find((t) => t.text === task)?.status
  }
  const turn = async (host, id, step) => {
    const since = model.requests.length
    await host.turn(id, `scenario:undo step:${step}`, { idleTimeoutMs: 150_000 })
    return model.requests.slice(since).filter((r) => r.kind === "main")
  }

  // 1. Plan, done, done; undo the last turn; restart OpenCode; redo.
  const id = (await first.createSession()).id
  await turn(first, id, "init")
  await turn(first, id, "done1")
  await turn(first, id, "done2")
  const third = (await first.listMessages(id)).filter((m) => m.info.role === "user")[2]?.info.id
  await first.revert(id, third)
  need(
    "restart: the undo is stored",
    await until(() => storedMark(id, TASKS[1]) === "in_progress", FOLLOW_MS),
  )
  await first.stop({ keep: true })
  const second = await boot({ dataDir: data, projectDir: project })
  await second.unrevert(id)
  check(
    "undo, restart OpenCode, redo: the redone list is in effect",
    await until(
      () => storedMark(id, TASKS[1]) === "completed" && storedMark(id, TASKS[2]) === "in_progress",
      FOLLOW_MS,
    ),
    `${storedMark(id, TASKS[1])}, ${storedMark(id, TASKS[2])}`,
  )
  const view = (await turn(second, id, "view")).flatMap(toolResults).findLast(isView)
  check(
    "...and the model's todo view after the restart shows it",
    taskMark(view, TASKS[1]) === "[x]" && taskMark(view, TASKS[2]) === "[>]",
    view?.split("\n").slice(0, 4).join(" | "),
  )

  // 2. A second OpenCode server on the same data folder: undo in one, redo in the other.
  const other = await boot({ dataDir: data, projectDir: project })
  const fourth = (await second.listMessages(id)).filter((m) => m.info.role === "user")[3]?.info.id
  await second.revert(id, third)
  need(
    "two servers: the undo in the first is stored",
    await until(() => storedMark(id, TASKS[1]) === "in_progress", FOLLOW_MS),
  )
  await other.unrevert(id)
  check(
    "two servers on one data folder: undo in one, redo in the other gives the whole list back",
    await until(() => storedMark(id, TASKS[1]) === "completed", FOLLOW_MS),
    `${storedMark(id, TASKS[1])} (view turn ${fourth ? "kept" : "missing"})`,
  )

  // 3. A chain of forks never prompted: plan, a dialog edit, a plain turn; fork, fork the fork, fork that.
  const source = (await second.createSession({ title: "Chain" })).id
  await turn(second, source, "init")
  const dropped = TASKS[3]
  const dialog = await kit.dialogAction({
    dir: kit.todoDir(second.env),
    session: source,
    task: dropped,
    action: "drop",
  })
  need(
    "the dialog dropped a task in the source",
    dialog.list.some((p) => p.tasks.some((t) => t.text === dropped && t.status === "abandoned")),
  )
  await turn(second, source, "plain")
  const f1 = await second.api.post(`/session/${source}/fork`, {})
  const f2 = await second.api.post(`/session/${f1.id}/fork`, {})
  const f3 = await second.api.post(`/session/${f2.id}/fork`, {})
  check("the host titles the chain", f3.title === "Chain (fork #3)", f3.title)
  const chained = (await turn(second, f3.id, "view")).flatMap(toolResults).findLast(isView)
  check(
    "a fork of a fork of a fork, the middle ones never prompted, starts with the source's list, the dialog edit included",
    taskMark(chained, dropped) === "[-]" && taskMark(chained, TASKS[0]) === "[>]",
    chained?.split("\n").slice(0, 6).join(" | "),
  )

  // 4. Another source (forks of one source with the same copies cannot tell their source apart), forked and
  // forked again, never prompted; the user adds a task in the TUI's dialog to the last.
  const planned = (await second.createSession({ title: "Edited chain" })).id
  await turn(second, planned, "init")
  const drop = await kit.dialogAction({
    dir: kit.todoDir(second.env),
    session: planned,
    task: dropped,
    action: "drop",
  })
  need(
    "the dialog dropped a task in the second source",
    drop.list.some((p) => p.tasks.some((t) => t.text === dropped && t.status === "abandoned")),
  )
  await turn(second, planned, "plain")
  const g1 = await second.api.post(`/session/${planned}/fork`, {})
  const g2 = await second.api.post(`/session/${g1.id}/fork`, {})
  const added = "Update the changelog"
  const tuiEdit = await kit.dialogAdd({
    dir: kit.todoDir(second.env),
    session: g2.id,
    phase: "Fix",
    task: added,
    server: { url: second.url, directory: project },
  })
  const shown = (list) => list.flatMap((p) => p.tasks).map((t) => `${t.text}: ${t.status}`)
  check(
    "a task added in the TUI's dialog to a fork of a fork no server has met joins the source's list",
    TASKS.every((t) => shown(tuiEdit.list).some((s) => s.startsWith(`${t}: `))) &&
      shown(tuiEdit.list).includes(`${added}: pending`) &&
      shown(tuiEdit.list).includes(`${dropped}: abandoned`),
    shown(tuiEdit.list).join(", "),
  )
  const edited = (await turn(second, g2.id, "view")).flatMap(toolResults).findLast(isView)
  check(
    "...and the fork's todo view, its first prompt, shows the source's tasks, the dialog's drop and the added task",
    taskMark(edited, TASKS[0]) === "[>]" &&
      taskMark(edited, dropped) === "[-]" &&
      TASKS.every((t) => taskMark(edited, t) !== undefined) &&
      taskMark(edited, added) === "[ ]",
    edited?.split("\n").slice(0, 8).join(" | "),
  )
  check(
    "...and the stored record the sidebar reads agrees",
    storedMark(g2.id, TASKS[0]) === "in_progress" &&
      storedMark(g2.id, dropped) === "abandoned" &&
      storedMark(g2.id, added) === "pending",
    `${storedMark(g2.id, TASKS[0])}, ${storedMark(g2.id, dropped)}, ${storedMark(g2.id, added)}`,
  )
  await other.stop()
  await second.stop()
  console.log(`   host facts section took ${((Date.now() - t0) / 1000).toFixed(1)}s`)
}
