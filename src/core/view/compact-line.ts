// The one-line progress summary shown where the session sidebar is not: "▶ Write the parser · 3/8".
// Pure: the shell decides where it goes and how wide the room is, this decides the words and the cut.

/*
 * Rules:
 * - An empty list (no phases, or phases without tasks) shows nothing.
 * - The focus is the task in progress, else the next pending task, else the first blocked one;
 *   with no open task left the line is "✓ 8/8 done" (" · 1 dropped" when tasks were dropped).
 * - The counts ("· 3/8", with ", 1 blocked" and " · 1 dropped" as words.ts's one rule says) always stay whole; the task text
 *   is cut with "…" to make room. Below 4 columns for the task, only the counts show (cut themselves
 *   if even they do not fit).
 * - The result is a single line no wider than `width` columns (wide characters count two).
 */

import { counts, eachTask, inProgressTask, nextPendingTask } from "../list/queries.ts"
import { displayWidth, fitText } from "../list/text-width.ts"
import type { Task, TodoList } from "../list/types.ts"
import { doneText, droppedText, neutralize, STATUS_GLYPHS, tallyText } from "../list/words.ts"

/** Fewer columns than this for the task part and the line shows the counts alone. */
const MIN_TASK_COLUMNS = 4

export function compactLine(list: TodoList, width: number): string | undefined {
  const max = Math.floor(width)
  if (!(max >= 1)) return undefined
  const c = counts(list)
  if (c.total === 0) return undefined
  const tally = `${tallyText(c)}${c.blocked > 0 ? `, ${c.blocked} blocked` : ""}${droppedText(c)}`
  const focus = focusTask(list)
  if (focus === undefined) return fitText(`${STATUS_GLYPHS.completed} ${doneText(c)}${droppedText(c)}`, max)
  const suffix = ` · ${tally}`
  const room = max - displayWidth(suffix)
  if (room < MIN_TASK_COLUMNS) return fitText(tally, max)
  return `${fitText(`${STATUS_GLYPHS[focus.status]} ${neutralize(focus.text)}`, room)}${suffix}`
}

function focusTask(list: TodoList): Task | undefined {
  const active = inProgressTask(list) ?? nextPendingTask(list)
  if (active) return active.task
  for (const hit of eachTask(list)) if (hit.task.status === "blocked") return hit.task
  return undefined
}
