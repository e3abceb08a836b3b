// What the user can do to a session's stored list, shared by the server's /todo command
// and the TUI: run verbs, replace the list (editor, import), export it. Each change is
// one locked read-modify-write, so it cannot lose a concurrent tool call's update.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, isAbsolute, relative, resolve, sep } from "node:path"
import { diffLists, type ListDiff } from "./core/diff.ts"
import { executeOps } from "./core/execute.ts"
import { checkList } from "./core/list.ts"
import { isTodoExport, parseMarkdown, renderMarkdown } from "./core/markdown.ts"
import type { Limits, Op, TodoList } from "./core/types.ts"
import type { Store } from "./store.ts"

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
}

export function isEditNote(value: unknown): value is EditNote {
  if (typeof value !== "object" || value === null) return false
  const note = value as Record<string, unknown>
  return (
    Array.isArray(note.lines) &&
    note.lines.every((l) => typeof l === "string") &&
    Array.isArray(note.removed) &&
    note.removed.every((r) => typeof r === "string")
  )
}

async function change(
  store: Store,
  session: string,
  notify: Notify,
  compute: (list: TodoList) => { ok: true; list: TodoList } | { ok: false; error: string },
): Promise<EditOutcome> {
  let outcome: EditOutcome | undefined
  const snapshot = await store.update(session, (current) => {
    const next = compute(current.list)
    if (!next.ok) {
      outcome = { ok: false, error: next.error, list: current.list }
      return undefined
    }
    const diff = diffLists(current.list, next.list)
    outcome = { ok: true, before: current.list, list: next.list, diff }
    if (diff.lines.length === 0 && diff.removed.length === 0) return undefined
    const note: EditNote = { lines: diff.lines, removed: diff.removed }
    const edits = notify === "record" ? [...current.edits, note] : current.edits
    return { ...current, list: next.list, edits }
  })
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
    return result.ok ? { ok: true, list: result.list } : { ok: false, error: result.error }
  })
}

/** Replaces the list with one parsed from Markdown (editor or import). A parse error changes nothing. */
export function replaceFromMarkdown(
  store: Store,
  session: string,
  markdown: string,
  limits: Limits,
  notify: Notify,
): Promise<EditOutcome> {
  return change(store, session, notify, () => {
    const parsed = parseMarkdown(markdown, limits)
    if (!parsed.ok) return parsed
    const bad = checkList(parsed.value, limits)
    return bad ? { ok: false, error: bad } : { ok: true, list: parsed.value }
  })
}

/**
 * Resolves a user-given path against the project directory. Relative paths may not
 * climb out of the project; absolute paths are taken as the user wrote them.
 */
export function resolveProjectPath(
  directory: string,
  path: string | undefined,
): { ok: true; path: string } | { ok: false; error: string } {
  const wanted = path?.trim() || "TODO.md"
  if (wanted.includes("\0")) return { ok: false, error: "The path contains a NUL character." }
  const full = resolve(directory, wanted)
  if (!isAbsolute(wanted)) {
    const rel = relative(directory, full)
    if (rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
      return {
        ok: false,
        error: `"${wanted}" leads outside the project; give a path inside it, or an absolute path.`,
      }
  }
  return { ok: true, path: full }
}

export type ExportOutcome =
  | { readonly ok: true; readonly path: string; readonly bytes: number; readonly tasks: number }
  | { readonly ok: false; readonly error: string; readonly needsConfirm?: boolean; readonly path?: string }

/** Writes the list as TODO.md. A file that is not one of our exports is overwritten only with `force`. */
export function exportList(
  list: TodoList,
  directory: string,
  path: string | undefined,
  force: boolean,
): ExportOutcome {
  const target = resolveProjectPath(directory, path)
  if (!target.ok) return target
  try {
    if (!force && existsSync(target.path)) {
      const existing = readFileSync(target.path, "utf8")
      if (!isTodoExport(existing))
        return {
          ok: false,
          needsConfirm: true,
          path: target.path,
          error: `${target.path} exists and is not a todo export; overwrite it with --force, or choose another path.`,
        }
    }
    const text = renderMarkdown(list)
    mkdirSync(dirname(target.path), { recursive: true })
    writeFileSync(target.path, text)
    let tasks = 0
    for (const phase of list) tasks += phase.tasks.length
    return { ok: true, path: target.path, bytes: Buffer.byteLength(text), tasks }
  } catch (error) {
    return { ok: false, error: `Could not write ${target.path}: ${(error as Error).message}` }
  }
}

/** Reads a TODO.md for import; the caller replaces the list with `replaceFromMarkdown`. */
export function readImport(
  directory: string,
  path: string | undefined,
): { ok: true; path: string; text: string } | { ok: false; error: string } {
  const target = resolveProjectPath(directory, path)
  if (!target.ok) return target
  try {
    return { ok: true, path: target.path, text: readFileSync(target.path, "utf8") }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    return {
      ok: false,
      error:
        code === "ENOENT"
          ? `${target.path} does not exist; export first with /todo export, or give another path.`
          : `Could not read ${target.path}: ${(error as Error).message}`,
    }
  }
}
