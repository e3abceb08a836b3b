// Smoke proof that a record turned corrupt while the host runs keeps its list: another program writes garbage
// over a running session's record; on the next prompt the model's `todo view` still shows the list, the
// garbage lies beside the record as `<record>.corrupt-N`, the record holds the list again, and the log says
// so once. The list is read the way the model sees it: the `todo view` result the scripted model received.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, dirname, join } from "node:path"
import { toolResults } from "./mock-model.mjs"

const GARBAGE = "\u0000\u0001 not a todo record {"

/** `id` is a session with a stored list whose tasks are `tasks`; the scenario "view" makes the model call `todo view`. */
export async function proveCorrupt({ host, model, check, quiet, id, tasks }) {
  const file = join(host.dirs.data, "plugin", "todo", `${id}.json`)
  const before = JSON.parse(readFileSync(file, "utf8"))
  const asides = () => readdirSync(dirname(file)).filter((n) => n.startsWith(`${basename(file)}.corrupt-`))
  const asidesBefore = asides().length
  const logBefore = host.log().length
  writeFileSync(file, GARBAGE)

  const since = model.requests.length
  await host.turn(id, "scenario:view The list, please.", { idleTimeoutMs: 150_000 })
  await quiet(host, id)
  const view = model.requests
    .slice(since)
    .filter((r) => r.kind === "main")
    .flatMap(toolResults)
    .findLast((t) => t.length > 0)
  check(
    "a record overwritten with garbage: the model's todo view still shows the list",
    view !== undefined && !view.includes("The list is empty") && tasks.every((t) => view.includes(t)),
    view?.split("\n").slice(0, 3).join(" | "),
  )
  const moved = asides().slice(asidesBefore)
  check(
    "...the garbage is moved aside to <record>.corrupt-N",
    moved.length === 1 && readFileSync(join(dirname(file), moved[0]), "utf8") === GARBAGE,
    moved.join(", "),
  )
  const after = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : undefined
  check(
    "...the record holds the list again, at a later revision",
    after !== undefined &&
      JSON.stringify(after.list) === JSON.stringify(before.list) &&
      after.revision > before.revision,
    after && `revision ${before.revision} -> ${after.revision}`,
  )
  const said = host.log().slice(logBefore).split("was unreadable").length - 1
  check(
    "...and the log says so once, that the list was saved in its place",
    said === 1 && host.log().slice(logBefore).includes("saved in its place"),
    `${said} warnings`,
  )
}
