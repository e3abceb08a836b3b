// The TODO.md file of the /todo command and the TUI: where a user-given path leads (inside the project unless
// the user typed an absolute or home path, links resolved), writing the list there as an export (atomically,
// never through a link or over a file that is not ours without `force`), and reading a file to import (the list
// is replaced by user-edits.ts's replaceFromMarkdown).

import { readlink, realpath } from "node:fs/promises"
import { homedir } from "node:os"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import { isTodoExport, renderMarkdown } from "../core/list/markdown.ts"
import { taskCount } from "../core/list/queries.ts"
import { fail, ok, type Result } from "../core/list/result.ts"
import type { TodoList } from "../core/list/types.ts"
import { describeError, type Fs } from "../store/files.ts"
import { entryKind, readProblemText, readTextFile, replaceFile, TODO_MAX_BYTES } from "./safe-file.ts"

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
