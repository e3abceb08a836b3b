// The size rule of src/, checked (`npm run check` runs scripts/check-sizes.mjs). No file outside src/core/ over
// FILE_MAX lines, no function anywhere over FUNCTION_MAX, counted from its first line to its closing brace with
// the closures inside it (TypeScript's parser finds them), no module header over HEADER_MAX lines (what the module
// owns; the reasons go to docs/design.md), save what an allowlist names.

import { readFileSync } from "node:fs"
import { relative, resolve, sep } from "node:path"
import ts from "typescript"
import { sourceFiles } from "./rooms.mjs"

export const FILE_MAX = 300
export const FUNCTION_MAX = 120
export const HEADER_MAX = 4

/** The lines of the comment a module starts with (its header). */
export function headerLines(text) {
  let count = 0
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break
    count++
  }
  return count
}

/** Lines in a text, a last line without its newline counted too. */
function lineCount(text) {
  if (text === "") return 0
  const breaks = text.split("\n").length - 1
  return text.endsWith("\n") ? breaks : breaks + 1
}

/** A function's name as a reader finds it: its own, the variable or property it is given to, or its line. */
function nameOf(node, sf) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text
  if (node.name) return node.name.getText(sf)
  if (ts.isConstructorDeclaration(node)) return "constructor"
  const parent = node.parent
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText(sf)
  return `(anonymous, line ${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1})`
}

/** Every function in `text` (nested ones too) with its length in lines, first to last. */
export function functionLengths(text, fileName = "file.ts") {
  const kind = fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, kind)
  const out = []
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line
      out.push({ name: nameOf(node, sf), line: first + 1, lines: last - first + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(sf)
  return out
}

/**
 * What breaks the size rule under `src` (src/ in this repository), as `{ file, problem }` with `file`
 * relative to `src`. `allowed` maps a file to why it may break the rule for now; an allowed file that
 * keeps the rule is reported too, so the list shrinks as the files do.
 */
export function sizeViolations(src, allowed = {}) {
  const root = resolve(src)
  const found = []
  const seen = new Set()
  for (const path of sourceFiles(root).sort()) {
    const file = relative(root, path).split(sep).join("/")
    const text = readFileSync(path, "utf8")
    const problems = []
    const lines = lineCount(text)
    if (!file.startsWith("core/") && lines > FILE_MAX)
      problems.push(`${lines} lines, over ${FILE_MAX} (outside src/core/)`)
    const header = headerLines(text)
    if (header > HEADER_MAX) problems.push(`its header is ${header} lines, over ${HEADER_MAX}`)
    for (const f of functionLengths(text, path))
      if (f.lines > FUNCTION_MAX)
        problems.push(`function ${f.name} (line ${f.line}) is ${f.lines} lines, over ${FUNCTION_MAX}`)
    if (file in allowed) {
      seen.add(file)
      if (problems.length === 0)
        found.push({ file, problem: "keeps the size rule now: take it off the allowlist" })
    } else for (const problem of problems) found.push({ file, problem })
  }
  for (const file of Object.keys(allowed))
    if (!seen.has(file)) found.push({ file, problem: "is on the allowlist but is not in src/" })
  return found
}
