// Owns the edits `npm run install-plugin` makes to OpenCode's config files, as pure text-in,
// text-out functions: a JSONC reader that keeps every offset, the rule for which `plugin` entries
// are this package's, and the text edits that add, re-point or remove them while comments,
// formatting and every other entry stay exactly as they were. No file system here.
import { basename, dirname, isAbsolute, resolve, sep } from "node:path"
import { fileURLToPath } from "node:url"

export const PACKAGE_NAME = "opencode-todo"

const SCHEMAS = { opencode: "https://opencode.ai/config.json", tui: "https://opencode.ai/tui.json" }

// ---- reading JSONC ------------------------------------------------------------------------------

/** Line and column (both from 1) of an offset. */
function position(text, offset) {
  const before = text.slice(0, offset).split("\n")
  return { line: before.length, column: before[before.length - 1].length + 1 }
}

class JsoncError extends Error {
  constructor(message, offset) {
    super(message)
    this.offset = offset
  }
}

/**
 * Parse JSONC the way OpenCode reads its config (comments and trailing commas allowed) into a tree
 * that keeps offsets: objects have `members` ({ key, keyStart, value }), arrays have `items`, and
 * both have `commas` (the offset of the comma after each member or item, or -1): a comma is only
 * ever found here, by the parser, never by scanning text that may be a comment or a string.
 * Returns { ok: true, root } or { ok: false, error: { message, line, column } }.
 */
export function parseJsonc(text) {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0

  function skip() {
    for (;;) {
      const c = text[i]
      if (c === " " || c === "\t" || c === "\n" || c === "\r") i++
      else if (c === "/" && text[i + 1] === "/") {
        while (i < text.length && text[i] !== "\n") i++
      } else if (c === "/" && text[i + 1] === "*") {
        const end = text.indexOf("*/", i + 2)
        if (end < 0) throw new JsoncError("unterminated /* comment", i)
        i = end + 2
      } else return
    }
  }

  function value() {
    skip()
    const start = i
    const c = text[i]
    if (c === "{") return object()
    if (c === "[") return array()
    if (c === '"') return string()
    const word = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(
      text.slice(i, i + 400),
    )
    if (!word) throw new JsoncError(i >= text.length ? "unexpected end of file" : "expected a value", i)
    i += word[0].length
    return { kind: "literal", start, end: i, value: JSON.parse(word[0]) }
  }

  function string() {
    const start = i
    i++
    while (i < text.length && text[i] !== '"') {
      if (text[i] === "\\") i++
      else if (text[i] === "\n") break
      i++
    }
    if (text[i] !== '"') throw new JsoncError("unterminated string", start)
    i++
    try {
      return { kind: "string", start, end: i, value: JSON.parse(text.slice(start, i)) }
    } catch {
      throw new JsoncError("invalid string", start)
    }
  }

  function object() {
    const node = { kind: "object", start: i, end: -1, members: [], commas: [] }
    i++
    for (;;) {
      skip()
      if (text[i] === "}") break
      if (text[i] !== '"')
        throw new JsoncError(i >= text.length ? "unexpected end of file" : "expected a key", i)
      const key = string()
      skip()
      if (text[i] !== ":") throw new JsoncError("expected ':'", i)
      i++
      node.members.push({ key: key.value, keyStart: key.start, value: value() })
      node.commas.push(-1)
      skip()
      if (text[i] === ",") {
        node.commas[node.commas.length - 1] = i
        i++
        continue
      }
      if (text[i] === "}") break
      throw new JsoncError("expected ',' or '}'", i)
    }
    i++
    node.end = i
    return node
  }

  function array() {
    const node = { kind: "array", start: i, end: -1, items: [], commas: [] }
    i++
    for (;;) {
      skip()
      if (text[i] === "]") break
      node.items.push(value())
      node.commas.push(-1)
      skip()
      if (text[i] === ",") {
        node.commas[node.commas.length - 1] = i
        i++
        continue
      }
      if (text[i] === "]") break
      throw new JsoncError("expected ',' or ']'", i)
    }
    i++
    node.end = i
    return node
  }

  try {
    const root = value()
    skip()
    if (i < text.length) throw new JsoncError("unexpected text after the end", i)
    return { ok: true, root }
  } catch (error) {
    if (!(error instanceof JsoncError)) throw error
    return { ok: false, error: { message: error.message, ...position(text, error.offset) } }
  }
}

// ---- which entries are ours ---------------------------------------------------------------------

const TARBALL = new RegExp(`^${PACKAGE_NAME}-\\d[^/\\\\]*\\.(?:tgz|tar\\.gz)$`)
const GIT = /^(?:git\+|git:|github:|gitlab:|bitbucket:|ssh:\/\/|https?:\/\/.*\.git(?:#|$))/

/** The spec of a `plugin` item: a string, or the first element of `[spec, options]`. */
export function specOf(item) {
  if (typeof item === "string") return item
  if (Array.isArray(item) && typeof item[0] === "string") return item[0]
  return undefined
}

/** A path-like spec as an absolute path (relative ones are relative to the config file's folder). */
function specPath(spec, configDir) {
  if (spec.startsWith("file://")) {
    try {
      return fileURLToPath(spec)
    } catch {
      return undefined
    }
  }
  const raw = spec.startsWith("file:") ? spec.slice(5) : spec
  if (spec.startsWith("file:") || raw.startsWith(".") || isAbsolute(raw)) return resolve(configDir, raw)
  return undefined
}

/**
 * Does a `plugin` spec load this package? True for its npm name (any version or tag), a tarball
 * `npm pack` made of it, a git URL of a repository named after it, and a path to this checkout or
 * to a folder named after it (also to a built entry inside one, like `.../dist/server.mjs`).
 */
export function isOurSpec(spec, { checkoutDir, configDir }) {
  const s = spec.trim()
  if (GIT.test(s) || /^[\w.-]+\/[\w.-]+(?:#.*)?$/.test(s)) {
    const repo = s.split("#")[0].replace(/\/+$/, "").split(/[/:]/).pop() ?? ""
    return repo.replace(/\.git$/, "") === PACKAGE_NAME
  }
  const path = specPath(s, configDir)
  if (path === undefined) {
    const name = s.startsWith("@") ? `@${s.slice(1).split("@")[0]}` : s.split("@")[0]
    return name === PACKAGE_NAME || s.includes(`@npm:${PACKAGE_NAME}@`) || s.endsWith(`@npm:${PACKAGE_NAME}`)
  }
  if (TARBALL.test(basename(path))) return true
  let folder = path
  if (/\.(?:[cm]?js|tsx?)$/.test(basename(folder))) folder = dirname(folder)
  if (["dist", "src"].includes(basename(folder))) folder = dirname(folder)
  if (checkoutDir && (folder === checkoutDir || folder.startsWith(checkoutDir + sep))) return true
  return basename(folder) === PACKAGE_NAME
}

// ---- editing --------------------------------------------------------------------------------------

function applyEdits(text, edits) {
  let out = text
  for (const e of [...edits].sort((a, b) => b.start - a.start)) {
    out = out.slice(0, e.start) + e.text + out.slice(e.end)
  }
  return out
}

function lineStart(text, offset) {
  return text.lastIndexOf("\n", offset - 1) + 1
}

function lineEnd(text, offset) {
  const n = text.indexOf("\n", offset)
  return n < 0 ? text.length : n
}

/** The whitespace a line starts with. */
function indentAt(text, offset) {
  const start = lineStart(text, offset)
  return /^[ \t]*/.exec(text.slice(start))?.[0] ?? ""
}

/** True when only whitespace and comments follow `offset` on its line. */
function restOfLineIsQuiet(text, offset) {
  const rest = text.slice(offset, lineEnd(text, offset)).trim()
  return rest === "" || rest.startsWith("//") || /^\/\*.*\*\/$/.test(rest)
}

/**
 * Edits that append `itemText` after the last of `nodes` (array items or object members, each with
 * start and end) inside a container that ends at `close` (the offset of `]` or `}`). `commaAfterLast`
 * is the offset of a trailing comma, or -1.
 */
function appendAfter(text, last, commaAfterLast, itemText) {
  const anchor = commaAfterLast >= 0 ? commaAfterLast + 1 : last.end
  // One item a line (only comments after it): the new one goes on a line of its own.
  const at = restOfLineIsQuiet(text, anchor) ? lineEnd(text, anchor) : anchor
  const insert =
    at === anchor && at !== lineEnd(text, anchor)
      ? ` ${itemText}`
      : `\n${indentAt(text, last.start)}${itemText}`
  // A list written with a trailing comma gets one after the new item too.
  if (commaAfterLast >= 0) return [{ start: at, end: at, text: `${insert},` }]
  if (at === last.end) return [{ start: at, end: at, text: `,${insert}` }]
  return [
    { start: last.end, end: last.end, text: "," },
    { start: at, end: at, text: insert },
  ]
}

/** Edits that put `itemText` into an empty container whose opening bracket is at `open`. */
function insertIntoEmpty(text, node, itemText, { block }) {
  const inner = text.slice(node.start + 1, node.end - 1)
  if (inner.trim() === "") {
    const body = block
      ? `\n${indentAt(text, node.start)}  ${itemText}\n${indentAt(text, node.start)}`
      : itemText
    return [{ start: node.start + 1, end: node.end - 1, text: body }]
  }
  return [{ start: node.start + 1, end: node.start + 1, text: block ? ` ${itemText}` : itemText }]
}

/**
 * Edits that remove the items at `indexes` from array `node`. Each run of neighbouring items goes
 * with its commas: up to the comma after the run, or, for a run at the end of a list without a
 * trailing comma, from the comma before it. Lines left empty go too.
 */
function removeItems(text, node, indexes) {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b)
  const runs = []
  for (const i of sorted) {
    const run = runs.at(-1)
    if (run && run[1] === i - 1) run[1] = i
    else runs.push([i, i])
  }
  return runs.flatMap(([p, q]) => {
    const edits = []
    let start = node.items[p].start
    let end = node.items[q].end
    // Spaces after the run go only with the run's own comma: what an install put in, an uninstall takes out.
    const ownComma = node.commas[q] >= 0
    if (ownComma) end = node.commas[q] + 1
    else if (p > 0 && node.commas[p - 1] >= 0) {
      const comma = node.commas[p - 1]
      // Comments between that comma and the run belong to the item before: keep them.
      if (text.slice(comma + 1, start).trim() === "") start = comma
      else edits.push({ start: comma, end: comma + 1, text: "" })
    }
    const ls = lineStart(text, start)
    const le = lineEnd(text, end)
    if (text.slice(ls, start).trim() === "" && text.slice(end, le).trim() === "" && text[le] === "\n") {
      edits.push({ start: ls, end: le + 1, text: "" })
      return edits
    }
    if (ownComma) while (text[end] === " " || text[end] === "\t") end++
    edits.push({ start, end, text: "" })
    return edits
  })
}

/**
 * The new text of one config file after installing `spec` (or uninstalling, when `spec` is
 * undefined). `isOurs(spec)` tells this package's entries apart. `kind` is "opencode" or "tui"
 * (only used when the file is new). Returns { ok: true, text, changes } where changes lists
 * { action: "added" | "replaced" | "removed" | "kept", spec }, or { ok: false, reason }. On
 * uninstall, a file left exactly as this function creates one but with an empty list gives text
 * undefined: the file is to be deleted.
 * Installing keeps the first entry of ours in place (re-pointed, with its options) and removes
 * any others, so the plugin is never listed twice.
 */
export function editPluginList(text, { spec, isOurs, kind }) {
  const itemText = spec === undefined ? "" : JSON.stringify(spec)
  const fresh = (items) => `{\n  "$schema": ${JSON.stringify(SCHEMAS[kind])},\n  "plugin": [${items}]\n}\n`
  if (text === undefined || text.trim() === "") {
    if (spec === undefined) return { ok: true, text, changes: [] }
    return { ok: true, text: fresh(itemText), changes: [{ action: "added", spec }] }
  }
  const parsed = parseJsonc(text)
  if (!parsed.ok) {
    const { message, line, column } = parsed.error
    return {
      ok: false,
      reason: `it is not valid JSON or JSONC (${message} at line ${line}, column ${column})`,
    }
  }
  const root = parsed.root
  if (root.kind !== "object") return { ok: false, reason: "its top level is not an object" }
  const members = root.members.filter((m) => m.key === "plugin")
  if (members.length > 1) return { ok: false, reason: 'it has more than one "plugin" key' }
  const member = members[0]

  if (!member) {
    if (spec === undefined) return { ok: true, text, changes: [] }
    const memberText = `"plugin": [${itemText}]`
    const last = root.members.at(-1)
    const edits = last
      ? appendAfter(text, { start: last.keyStart, end: last.value.end }, root.commas.at(-1), memberText)
      : insertIntoEmpty(text, root, memberText, { block: true })
    return checked(
      text,
      applyEdits(text, edits),
      [...(listedSpecs(text) ?? []), spec],
      [{ action: "added", spec }],
    )
  }

  const list = member.value
  if (list.kind !== "array") return { ok: false, reason: '"plugin" is not a list' }
  const specs = list.items.map((item) => specOf(literalValue(text, item)))
  const ours = specs.flatMap((s, i) => (s !== undefined && isOurs(s) ? [i] : []))

  if (spec === undefined) {
    if (ours.length === 0) return { ok: true, text, changes: [] }
    const changes = ours.map((i) => ({ action: "removed", spec: specs[i] }))
    const left = applyEdits(text, removeItems(text, list, ours))
    const after = checked(
      text,
      left,
      specs.filter((_, i) => !ours.includes(i)),
      changes,
    )
    // The file as this script creates it, now empty: nothing of the user's is in it, so it goes.
    return after.ok && left === fresh("") ? { ...after, text: undefined } : after
  }
  if (ours.length === 0) {
    const last = list.items.at(-1)
    const edits = last
      ? appendAfter(text, last, list.commas.at(-1) ?? -1, itemText)
      : insertIntoEmpty(text, list, itemText, { block: false })
    return checked(text, applyEdits(text, edits), [...specs, spec], [{ action: "added", spec }])
  }
  const [first, ...extra] = ours
  const edits = removeItems(text, list, extra)
  const changes = extra.map((i) => ({ action: "removed", spec: specs[i] }))
  if (specs[first] === spec) changes.unshift({ action: "kept", spec })
  else {
    const item = list.items[first]
    const target = item.kind === "array" ? item.items[0] : item
    edits.push({ start: target.start, end: target.end, text: itemText })
    changes.unshift({ action: "replaced", spec: specs[first], with: spec })
  }
  const wanted = specs.flatMap((s, i) => (i === first ? [spec] : extra.includes(i) ? [] : [s]))
  return checked(text, applyEdits(text, edits), wanted, changes)
}

/**
 * The edit's result, read back before anything is written: it must parse, list exactly `wanted` in
 * "plugin", and hold every other setting as `before` did. Anything else is refused, with the file
 * left as it is: a text edit that landed in a comment would otherwise be reported as done.
 */
function checked(before, after, wanted, changes) {
  const parsed = parseJsonc(after)
  const same =
    parsed.ok &&
    parsed.root.kind === "object" &&
    JSON.stringify(listedSpecs(after)) === JSON.stringify(wanted) &&
    JSON.stringify(settingsOf(before)) === JSON.stringify(settingsOf(after))
  if (same) return { ok: true, text: after, changes }
  return {
    ok: false,
    reason:
      'this script could not edit its "plugin" list safely (the edited text did not read back as planned)',
  }
}

/** Every top-level setting but "plugin", as plain values. */
function settingsOf(text) {
  const parsed = parseJsonc(text)
  if (!parsed.ok || parsed.root.kind !== "object") return undefined
  return parsed.root.members.filter((m) => m.key !== "plugin").map((m) => [m.key, plainValue(m.value)])
}

/** A parsed node as a plain value (objects as [key, value] pairs, in order). */
function plainValue(node) {
  if (node.kind === "object") return node.members.map((m) => [m.key, plainValue(m.value)])
  if (node.kind === "array") return node.items.map(plainValue)
  return node.value
}

/** The plain value of a parsed node (strings, and arrays whose first item is a string). */
function literalValue(_text, node) {
  if (node.kind === "string") return node.value
  if (node.kind === "array" && node.items[0]?.kind === "string") return [node.items[0].value]
  return undefined
}

/** The specs listed in a config file's text (for reports), or undefined when it cannot be read. */
export function listedSpecs(text) {
  if (text === undefined || text.trim() === "") return []
  const parsed = parseJsonc(text)
  if (!parsed.ok || parsed.root.kind !== "object") return undefined
  const member = parsed.root.members.findLast((m) => m.key === "plugin")
  if (member?.value.kind !== "array") return []
  return member.value.items.map((item) => specOf(literalValue(text, item))).filter((s) => s !== undefined)
}
