// The checks a printed demo story passes: its steps appear in order, no step prints the list twice,
// and no two sidebar frames in a row are the same. Pure; the demo runs them on what it printed, and
// test/unit/demo-story.test.ts on the story of a session stepped through the core.

import { displayWidth } from "../../src/core/list/text-width.ts"
import { STATUS_BOXES, STATUS_GLYPHS } from "../../src/core/list/words.ts"
import { COLUMNS, INDENT, LABELS } from "./demo-story.ts"

/** The steps of the story, in the order they must first appear. */
export const STEPS = [
  { name: "the user asks", labels: [LABELS.user] },
  { name: "the agent plans", labels: [`${LABELS.tool} todo init`] },
  // In the dialog (1.18), or typed and run on the server over RPC (OpenCode 2).
  { name: "the user edits the list", labels: [LABELS.edit, LABELS.typed] },
  { name: "the model is told of the edit", labels: [LABELS.notice] },
  { name: "the agent stops early", labels: [LABELS.assistant] },
  { name: "the plugin reminds it", labels: [LABELS.reminder] },
  { name: "the figures", labels: [LABELS.figures] },
  { name: "the next step", labels: [LABELS.next] },
] as const

/**
 * What is wrong with a printed story (plain text), as sentences; empty when nothing is. Checks the
 * steps appear in order, no step prints the list twice (the same task as a list row, or the same phase
 * heading, twice between two step labels), no line is wider than 80 columns, and no two sidebar frames
 * in a row are the same.
 */
export function storyProblems(text: string, tasks: readonly string[], phases: readonly string[]): string[] {
  const problems: string[] = []
  const lines = text.split("\n")
  let from = 0
  for (const step of STEPS) {
    const at = lines.findIndex((line, i) => i >= from && step.labels.some((l) => startsStep(line, l)))
    if (at === -1) {
      problems.push(`step "${step.name}" is missing or out of order`)
      continue
    }
    from = at + 1
  }
  const labels = Object.values(LABELS)
  const blocks: string[][] = []
  for (const line of lines) {
    if (blocks.length === 0 || labels.some((l) => startsStep(line, l))) blocks.push([])
    blocks.at(-1)!.push(line)
  }
  const markers = [...Object.values(STATUS_BOXES), ...Object.values(STATUS_GLYPHS)]
  for (const block of blocks) {
    const head = block[0]!.trim()
    for (const task of tasks) {
      // The sidebar shows a task's text as it is; the model's list quotes it.
      const rows = block.filter((line) =>
        markers.some((m) => line.includes(`${m} ${task}`) || line.includes(`${m} "${task}"`)),
      ).length
      if (rows > 1) problems.push(`"${head}" prints the list twice (task "${task}" ${rows} times)`)
    }
    for (const phase of phases) {
      const rows = block.filter((line) =>
        new RegExp(`(^|│ )\\s*"?${escapeRegExp(phase)}"? \\(?(\\d+/\\d+|dropped)`).test(line.trim()),
      )
      if (rows.length > 1)
        problems.push(`"${head}" prints the list twice (phase "${phase}" ${rows.length} times)`)
    }
  }
  const wide = lines.filter((line) => displayWidth(line) > COLUMNS)
  if (wide.length > 0)
    problems.push(`${wide.length} lines are wider than ${COLUMNS} columns, e.g. "${wide[0]!.trim()}"`)
  const frames = framesOf(lines)
  for (let i = 1; i < frames.length; i++)
    if (frames[i] === frames[i - 1]) problems.push(`sidebar frame ${i + 1} is the same as the one before it`)
  return problems
}

/** Whether a line starts a step: its label at the step's indent (a result's own "Next:" line is deeper). */
function startsStep(line: string, label: string): boolean {
  return line.startsWith(label) || line.startsWith(INDENT + label)
}

/** The sidebar frames of a printed story, each as its lines joined. */
export function framesOf(lines: readonly string[]): string[] {
  const frames: string[] = []
  let current: string[] | undefined
  for (const line of lines) {
    const t = line.trim()
    if (t.startsWith("┌")) current = []
    else if (t.startsWith("└") && current) {
      frames.push(current.join("\n"))
      current = undefined
    } else current?.push(t)
  }
  return frames
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
}
