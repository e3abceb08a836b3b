// What the user can do to a session's stored list, shared by the server's /todo command
// and the TUI: run verbs, replace the list (editor, import), export it. Each change is
// one locked read-modify-write, so it cannot lose a concurrent tool call's update.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, isAbsolute, relative, resolve, sep } from "node:path"
import { diffLists, type ListDiff } from "./core/diff.ts"
import { executeOps } from "./core/execute.ts"
import { importMarkdown } from "./core/import.ts"
import { taskCount } from "./core/list.ts"
import { isTodoExport, renderMarkdown } from "./core/markdown.ts"
import { fail, isRecord, ok, type Result } from "./core/result.ts"
import type { Limits, Op, TodoList } from "./core/types.ts"
import { LIST_BUSY, type Store } from "./store/store.ts"

export type EditOutcome =
  | { readonly ok: true; readonly before: TodoList; readonly list: TodoList; readonly diff: ListDiff }
  | { readonly ok: false; readonly error: string; readonly list: TodoList }

/**
 * How an edit reaches the model. "record": queue a note in the store that the server
 * delivers on the model's next request (TUI edits, which start no turn). "none": the
 * caller tells the model itself (the server command's reply does).
 */
export type Notify = "record" | "none"

/** A pending user-edit note as stored in a record's `edits`. */
export interface EditNote {
  readonly lines: readonly string[]
  readonly removed: readonly string[]
  /** Absent in notes that removed no phase (and in notes written before phases were named apart). */
  readonly removedPhases?: readonly string[]
}

export function isEditNote(value: unknown): value is EditNote {
  return (
    isRecord(value) &&
    Array.isArray(value.lines) &&
    value.lines.every((l) => typeof l === "string") &&
    Array.isArray(value.removed) &&
    value.removed.every((r) => typeof r === "string") &&
    (value.removedPhases === undefined ||
      (Array.isArray(value.removedPhases) && value.removedPhases.every((r) => typeof r === "string")))
  )
}

/** The list a change leaves, and what the reply says beyond the diff (how an imported file was read). */
interface Computed {
  readonly list: TodoList
  readonly notes?: readonly string[]
}

async function change(
  store: Store,
  session: string,
  notify: Notify,
  compute: (list: TodoList) => Result<Computed>,
): Promise<EditOutcome> {
  let outcome: EditOutcome | undefined
  const snapshot = await store.update(session, (current) => {
    const next = compute(current.list)
    if (!next.ok) {
      outcome = { ok: false, error: next.error, list: current.list }
      return undefined
    }
    const { list, notes = [] } = next.value
    const diff = diffLists(current.list, list)
    // The notes lead the lines, so the toast and the reply say first why a line reads as it does.
    const told = notes.length === 0 ? diff : { ...diff, lines: [...notes, ...diff.lines] }
    outcome = { ok: true, before: current.list, list, diff: told }
    if (diff.lines.length === 0 && diff.removed.length === 0 && diff.removedPhases.length === 0)
      return undefined
    const note: EditNote = {
      lines: told.lines,
      removed: diff.removed,
      ...(diff.removedPhases.length > 0 ? { removedPhases: diff.removedPhases } : {}),
    }
    const edits = notify === "record" ? [...current.edits, note] : current.edits
    return { ...current, list, edits }
  })
  if (snapshot.busy) return { ok: false, error: LIST_BUSY, list: snapshot.list }
  return outcome ?? { ok: false, error: "The list could not be read.", list: snapshot.list }
}

/** Runs typed ops (from a /todo verb or a TUI action) against the stored list. */
export function runUserOps(
  store: Store,
  session: string,
  ops: readonly Op[],
  limits: Limits,
  notify: Notify,
): Promise<EditOutcome> {
  return change(store, session, notify, (list) => {
    const result = executeOps(list, ops, limits)
    return result.ok ? ok({ list: result.list }) : fail(result.error)
  })
}

/**
 * Replaces the list with one read from Markdown (editor or import), in the normal form; the diff's
 * lines start with the notes on how the file was read. A parse error changes nothing.
 */
export function replaceFromMarkdown(
  store: Store,
  session: string,
  markdown: string,
  limits: Limits,
  notify: Notify,
): Promise<EditOutcome> {
  return change(store, session, notify, () => importMarkdown(markdown, limits))
}

/**
 * Resolves a user-given path against the project directory. Relative paths may not
 * climb out of the project; absolute paths are taken as the user wrote them.
 */
export function resolveProjectPath(directory: string, path: string | undefined): Result<string> {
  const wanted = path?.trim() || "TODO.md"
  if (wanted.includes("\0")) return fail("The path contains a NUL character.")
  const full = resolve(directory, wanted)
  if (!isAbsolute(wanted)) {
    const rel = relative(directory, full)
    if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
      return fail(`"${wanted}" leads outside the project; give a path inside it, or an absolute path.`)
  }
  return ok(full)
}

export interface Exported {
  readonly path: string
  readonly bytes: number
  readonly tasks: number
}

/** A refused export may need the user's confirmation to overwrite `path`. */
export type ExportOutcome = Result<Exported, { readonly needsConfirm?: boolean; readonly path?: string }>

/** Writes the list as TODO.md. A file that is not one of our exports is overwritten only with `force`. */
export function exportList(
  list: TodoList,
  directory: string,
  path: string | undefined,
  force: boolean,
): ExportOutcome {
  const target = resolveProjectPath(directory, path)
  if (!target.ok) return target
  const file = target.value
  try {
    if (!force && existsSync(file)) {
      const existing = readFileSync(file, "utf8")
      if (!isTodoExport(existing))
        return {
          ...fail(
            `${file} exists and is not a todo export; overwrite it with --force, or choose another path.`,
          ),
          needsConfirm: true,
          path: file,
        }
    }
    const text = renderMarkdown(list)
    mkdirSync(dirname(file), { recursive: true })
    writeFileSync(file, text)
    return ok({ path: file, bytes: Buffer.byteLength(text), tasks: taskCount(list) })
  } catch (error) {
    return fail(`Could not write ${file}: ${(error as Error).message}`)
  }
}

/** Reads a TODO.md for import; the caller replaces the list with `replaceFromMarkdown`. */
export function readImport(
  directory: string,
  path: string | undefined,
): Result<{ readonly path: string; readonly text: string }> {
  const target = resolveProjectPath(directory, path)
  if (!target.ok) return target
  const file = target.value
  try {
    return ok({ path: file, text: readFileSync(file, "utf8") })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return fail(
      code === "ENOENT"
        ? `${file} does not exist; export first with /todo export, or give another path.`
        : `Could not read ${file}: ${(error as Error).message}`,
    )
  }
}
