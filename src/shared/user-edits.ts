// What the user can do to a session's stored list, shared by the server's /todo command
// and the TUI: run verbs, replace the list (editor, import), export it. Each change is
// one locked read-modify-write, so it cannot lose a concurrent tool call's update, and
// is recorded in the list's history where it happened in the conversation (its anchor).

import { readlink, realpath } from "node:fs/promises"
import { homedir } from "node:os"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { currentList, recordEdit, revert, revertPoint } from "../core/history/history.ts"
import { type EditAnchor, samePoint } from "../core/history/rewind.ts"
import { diffLists, type EditNote, type ListDiff } from "../core/list/diff.ts"
import { executeOps } from "../core/list/execute.ts"
import { type ImportOptions, importMarkdown } from "../core/list/import.ts"
import { isTodoExport, renderMarkdown } from "../core/list/markdown.ts"
import { taskCount } from "../core/list/queries.ts"
import { fail, ok, type Result } from "../core/list/result.ts"
import type { Limits, Op, TodoList } from "../core/list/types.ts"
import { describeError, type Fs } from "../store/files.ts"
import { historyOf } from "../store/record.ts"
import { type Computed, LIST_BUSY, type Store } from "../store/store.ts"
import { entryKind, readProblemText, readTextFile, replaceFile, TODO_MAX_BYTES } from "./safe-file.ts"

export type EditOutcome =
  | { readonly ok: true; readonly before: TodoList; readonly list: TodoList; readonly diff: ListDiff }
  | { readonly ok: false; readonly error: string; readonly list: TodoList }

/**
 * How an edit reaches the model. "record": queue a note in the store that the server
 * delivers on the model's next request (TUI edits, which start no turn). "none": the
 * caller tells the model itself (the server command's reply does).
 */
export type Notify = "record" | "none"

/**
 * Where in the conversation a user edit is made (core/rewind.ts): while the session is reverted, at the
 * revert point (`{kind: "reverted", point}`, the host's `session.revert` as `{message, part?}`); otherwise
 * after the newest message the caller knows of (`{kind: "after", message}`). Undefined: after the newest
 * recorded change.
 */
export type { EditAnchor }

/** The list a change leaves, and what the reply says beyond the diff (how an imported file was read). */
interface Replacement {
  readonly list: TodoList
  readonly notes?: readonly string[]
}

/**
 * One user edit: `compute` runs on the list the user sees (while reverted, the list before the revert
 * point, with the edits made since), and the result is recorded in the history at `at`. `ops` are kept
 * with an edit made while reverted, so that redo makes it again as those ops.
 */
async function change(
  store: Store,
  session: string,
  notify: Notify,
  at: EditAnchor | undefined,
  limits: Limits,
  compute: (list: TodoList) => Result<Replacement>,
  ops?: readonly Op[],
): Promise<EditOutcome> {
  const { snapshot, value: outcome } = await store.update(session, (current): Computed<EditOutcome> => {
    let history = historyOf(current)
    // The edit follows an undo the history has not heard of yet (the server follows the host's events).
    const point = revertPoint(history) ?? null
    if (at?.kind === "reverted" && !samePoint(point, at.point))
      history = revert(history, at.point, limits).history
    const seen = currentList(history)
    const next = compute(seen)
    if (!next.ok) return { value: { ok: false, error: next.error, list: seen } }
    const { list, notes = [] } = next.value
    const diff = diffLists(seen, list)
    // The notes lead the lines, so the toast and the reply say first why a line reads as it does.
    const told = notes.length === 0 ? diff : { ...diff, lines: [...notes, ...diff.lines] }
    const outcome: EditOutcome = { ok: true, before: seen, list, diff: told }
    if (diff.lines.length === 0 && diff.removed.length === 0 && diff.removedPhases.length === 0)
      return { value: outcome }
    const note: EditNote = {
      lines: told.lines,
      removed: diff.removed,
      ...(diff.removedPhases.length > 0 ? { removedPhases: diff.removedPhases } : {}),
    }
    const edits = notify === "record" ? [...current.edits, note] : current.edits
    const anchor = at?.kind === "after" ? { after: at.message } : {}
    const recorded = recordEdit(history, ops ? { ...anchor, ops } : anchor, list)
    return { next: { ...current, list: recorded.list, history: recorded.history, edits }, value: outcome }
  })
  if (snapshot.busy) return { ok: false, error: LIST_BUSY, list: snapshot.list }
  return outcome ?? { ok: false, error: "The list could not be read.", list: snapshot.list }
}

/** Runs typed ops (from a /todo verb or a TUI action) against the list the user sees, recorded at `at`. */
export function runUserOps(
  store: Store,
  session: string,
  ops: readonly Op[],
  limits: Limits,
  notify: Notify,
  at?: EditAnchor,
): Promise<EditOutcome> {
  return change(
    store,
    session,
    notify,
    at,
    limits,
    (list) => {
      const result = executeOps(list, ops, limits)
      return result.ok ? ok({ list: result.list }) : fail(result.error)
    },
    ops,
  )
}

/**
 * Replaces the list with one read from Markdown (editor or import), in the normal form; the diff's
 * lines start with the notes on how the file was read. A parse error, or a file with no tasks that is
 * not our export without `force`, changes nothing (see core/import.ts).
 */
export function replaceFromMarkdown(
  store: Store,
  session: string,
  markdown: string,
  limits: Limits,
  notify: Notify,
  options: ImportOptions = {},
  at?: EditAnchor,
): Promise<EditOutcome> {
  return change(store, session, notify, at, limits, () => importMarkdown(markdown, limits, options))
}

/**
 * Resolves a user-given path against the project directory, by its letters only: relative paths may not climb
 * out of the project, `~/…` is the home folder, absolute paths are taken as the user wrote them.
 */
export function resolveProjectPath(directory: string, path: string | undefined): Result<string> {
  const wanted = path?.trim() || "TODO.md"
  if (wanted.includes("\0")) return fail("The path contains a NUL character.")
  const home = homePath(wanted)
  if (home !== undefined) return ok(home)
  const full = resolve(directory, wanted)
  if (!isAbsolute(wanted) && !inside(directory, full)) return fail(outsideText(wanted))
  return ok(full)
}

function homePath(wanted: string): string | undefined {
  if (wanted === "~") return homedir()
  return /^~[/\\]/.test(wanted) ? join(homedir(), wanted.slice(2)) : undefined
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path)
  return !(rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel))
}

function outsideText(wanted: string, real?: string): string {
  const to = real === undefined ? "" : ` (to ${real})`
  return `"${wanted}" leads outside the project${to}; give a path inside it, or an absolute path.`
}

async function realOrSelf(path: string): Promise<string> {
  try {
    return await realpath(path)
  } catch {
    return path
  }
}

/** The path with every existing folder on the way resolved through its links; missing folders kept as written. */
async function realFolderPath(path: string): Promise<string> {
  const missing: string[] = [basename(path)]
  let folder = dirname(path)
  for (;;) {
    try {
      return join(await realpath(folder), ...missing)
    } catch {
      const up = dirname(folder)
      if (up === folder) return path
      missing.unshift(basename(folder))
      folder = up
    }
  }
}

/**
 * Where a user-given path really leads: links in its folders resolved, and for reading also a link at the
 * file itself. The project rule applies to that real path unless the user typed an absolute or home path.
 */
export async function resolveRealPath(
  directory: string,
  path: string | undefined,
  followFile: boolean,
): Promise<Result<string>> {
  const lexical = resolveProjectPath(directory, path)
  if (!lexical.ok) return lexical
  const wanted = path?.trim() || "TODO.md"
  let real = await realFolderPath(lexical.value)
  if (followFile) real = await realOrSelf(real)
  if (isAbsolute(wanted) || homePath(wanted) !== undefined) return ok(real)
  return inside(await realOrSelf(directory), real) ? ok(real) : fail(outsideText(wanted, real))
}

export interface Exported {
  readonly path: string
  readonly bytes: number
  readonly tasks: number
}

/** A refused export may need the user's confirmation to overwrite `path`. */
export type ExportOutcome = Result<Exported, { readonly needsConfirm?: boolean; readonly path?: string }>

/**
 * Writes the list as TODO.md, atomically. A file that is not one of our exports is overwritten only with `force`;
 * a symbolic link or a special file never is. Replies name the real path written.
 */
export async function exportList(
  list: TodoList,
  directory: string,
  path: string | undefined,
  force: boolean,
  fs?: Fs,
): Promise<ExportOutcome> {
  const target = await resolveRealPath(directory, path, false)
  if (!target.ok) return target
  const file = target.value
  try {
    const kind = await entryKind(file)
    if (kind === "link")
      return fail(
        `${file} is a symbolic link${await linkTarget(file)}; export never writes through a link, even with --force. Remove the link, or choose another path.`,
      )
    if (kind === "other")
      return fail(`${file} is not a regular file; export writes only regular files. Choose another path.`)
    if (kind === "file" && !force) {
      const existing = await readTextFile(file, TODO_MAX_BYTES)
      if (!existing.ok || !isTodoExport(existing.text))
        return {
          ...fail(
            `${file} exists and is not a todo export; overwrite it with --force, or choose another path.`,
          ),
          needsConfirm: true,
          path: file,
        }
    }
    const text = renderMarkdown(list)
    await replaceFile(file, text, fs)
    return ok({ path: file, bytes: Buffer.byteLength(text), tasks: taskCount(list) })
  } catch (error) {
    return fail(
      `Could not write ${file} (${describeError(error)}); nothing was changed. Free space or choose another path.`,
    )
  }
}

async function linkTarget(path: string): Promise<string> {
  try {
    return ` to ${await readlink(path)}`
  } catch {
    return ""
  }
}

/** Reads a TODO.md for import; the caller replaces the list with `replaceFromMarkdown`. */
export async function readImport(
  directory: string,
  path: string | undefined,
): Promise<Result<{ readonly path: string; readonly text: string }>> {
  const target = await resolveRealPath(directory, path, true)
  if (!target.ok) return target
  const file = target.value
  const read = await readTextFile(file, TODO_MAX_BYTES)
  if (read.ok) return ok({ path: file, text: read.text })
  if (read.kind === "missing")
    return fail(`${file} does not exist; export first with /todo export, or give another path.`)
  return fail(`${file} ${readProblemText(read)}; import reads a regular UTF-8 file of at most 4 MB.`)
}
