// The history line of a record as text: split into spans without parsing it whole, written from each span's
// kept text. A big record is read a span at a time (record.ts); a span's text is kept from when it was read
// or first written (why: docs/design.md). Pure but for that cache, keyed by the span objects.

import type { ListHistory } from "../core/history/history.ts"
import { isRecord } from "../core/list/result.ts"

/** How the writer starts every history line (JSON.stringify of `{ v: 1, spans }`). */
const START = '{"v":1,"spans":['

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const COLON = 58
const OPEN_SQUARE = 91
const CLOSE_SQUARE = 93
const OPEN_CURLY = 123
const CLOSE_CURLY = 125
const ZERO = 48
const NINE = 57

/** Each span's text as written or read, for spans whose text is the writer's own (see `keepSpanText`). */
const spanTexts = new WeakMap<object, string>()

/** The history line `JSON.stringify(encodeHistory(history))` gives, from the spans' kept texts. */
export function historyText(history: ListHistory): string {
  return historyPieces(history).join("")
}

/** historyText in pieces, a span each (the first and last with the line's start and end). */
export function historyPieces(history: ListHistory): string[] {
  const pieces = history.spans.map((span, i) => {
    let text = spanTexts.get(span)
    if (text === undefined) {
      text = JSON.stringify({ l: span.l, e: span.e })
      spanTexts.set(span, text)
    }
    return i === 0 ? `${START}${text}` : `,${text}`
  })
  const rev = history.rev
  const revText = rev === undefined ? "" : `,"rev":${JSON.stringify({ at: rev.at, edits: rev.edits })}`
  pieces[pieces.length - 1] += `]${revText}}`
  return pieces
}

/** One span of a history line: its text, and whether that text is written as the writer writes it. */
export interface SpanText {
  readonly text: string
  readonly plain: boolean
}

/**
 * The spans of a history line as the writer writes it, one text at a time, then what follows them (the
 * stored revert, undefined for none). Returns undefined for a line in any other form (a hand edit, an older
 * or other writer): the caller then reads it whole. Finding a span's end costs its length; parsing it is
 * the caller's.
 */
export function* spansOf(line: string): Generator<SpanText, { readonly rev: unknown } | undefined> {
  if (!line.startsWith(START)) return undefined
  let i = START.length
  if (line.charCodeAt(i) === CLOSE_SQUARE) i++
  else
    for (;;) {
      if (line.charCodeAt(i) !== OPEN_CURLY) return undefined
      const scanned = scanValue(line, i)
      if (scanned === undefined) return undefined
      yield { text: line.slice(i, scanned.end), plain: scanned.plain }
      i = scanned.end
      const c = line.charCodeAt(i++)
      if (c === CLOSE_SQUARE) break
      if (c !== COMMA) return undefined
    }
  let rest: unknown
  try {
    rest = JSON.parse(`{"spans":0${line.slice(i)}`)
  } catch {
    return undefined
  }
  if (!isRecord(rest) || rest.spans !== 0 || Object.keys(rest).some((k) => k !== "spans" && k !== "rev"))
    return undefined
  return { rev: rest.rev }
}

/**
 * Keeps `text` as the text of `span`, parsed from it, when writing the span again would give the same text:
 * written plain (no whitespace, escapes or numbers other than digits) with its two keys in order.
 */
export function keepSpanText(span: unknown, piece: SpanText): void {
  if (!piece.plain || !isRecord(span)) return
  const keys = Object.keys(span)
  if (keys.length === 2 && keys[0] === "l" && keys[1] === "e") spanTexts.set(span, piece.text)
}

/**
 * Where the JSON object or array that starts at `start` ends (one past its closing bracket), and whether its
 * text holds nothing but brackets, commas, colons, digits and strings without escapes; undefined when it does
 * not end. Strings are skipped with indexOf, so the cost is the brackets and numbers, not the text.
 */
function scanValue(text: string, start: number): { end: number; plain: boolean } | undefined {
  let depth = 0
  let plain = true
  let backslash = text.indexOf("\\", start)
  for (let i = start; i < text.length; ) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      if (backslash !== -1 && backslash <= i) backslash = text.indexOf("\\", i + 1)
      let close = text.indexOf('"', i + 1)
      if (backslash !== -1 && backslash < close) {
        plain = false
        while (close !== -1 && escaped(text, close)) close = text.indexOf('"', close + 1)
      }
      if (close === -1) return undefined
      i = close + 1
      continue
    }
    if (c === OPEN_CURLY || c === OPEN_SQUARE) depth++
    else if (c === CLOSE_CURLY || c === CLOSE_SQUARE) {
      if (--depth === 0) return { end: i + 1, plain }
    } else if (c !== COMMA && c !== COLON && (c < ZERO || c > NINE)) plain = false
    i++
  }
  return undefined
}

/** The quote at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let run = 0
  while (text.charCodeAt(at - 1 - run) === BACKSLASH) run++
  return run % 2 === 1
}
