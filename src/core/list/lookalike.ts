// How text reads to a person or a model, for telling whether it poses as one of the plugin's own phrases.
// Lookalike letters map to one prototype (confusables.ts); the whole fold is in docs/design.md. Pure; the
// per-character fold is memoised, so checking a long list costs a map lookup a character.

import { CONFUSABLE_PROTOTYPES } from "./confusables.ts"

const PROTOTYPE = new Map<string, string>()
for (const [prototype, sources] of Object.entries(CONFUSABLE_PROTOTYPES))
  for (const source of sources) PROTOTYPE.set(source, prototype)

/** What a reader does not see: marks, default-ignorable and format characters, any space or blank. */
const UNSEEN = /[\p{M}\p{Default_Ignorable_Code_Point}\p{Cf}\p{White_Space}\p{Z}\u2800]/gu
const OPENING_BRACKET = /^\p{Ps}$/u

/** Bounded, so a text of many distinct characters cannot grow it without end. */
const MEMO_LIMIT = 4096
const memo = new Map<string, string>()

/** One code point as a reader sees it: "" for what is not seen, ASCII for what looks like ASCII. */
function foldChar(char: string): string {
  const known = memo.get(char)
  if (known !== undefined) return known
  let out = ""
  for (const part of char.normalize("NFKD").toLowerCase().replace(UNSEEN, ""))
    out += OPENING_BRACKET.test(part) ? "[" : (PROTOTYPE.get(part) ?? part)
  // Case is folded first, so "I" (whose prototype is "l") became "i": read the two as one letter.
  out = out.toLowerCase().replace(UNSEEN, "").replaceAll("i", "l")
  if (memo.size >= MEMO_LIMIT) memo.clear()
  memo.set(char, out)
  return out
}

/** A text as a reader sees it, for comparing with another folded text. */
export function fold(text: string): string {
  let out = ""
  for (const char of text) out += foldChar(char)
  return out
}

/** Blocks where compatibility forms of ASCII punctuation live (fullwidth, small, vertical, math, CJK). */
const COMPAT_BLOCKS: readonly [number, number][] = [
  [0xa0, 0x33ff],
  [0xfe10, 0xffef],
  [0x10780, 0x107bf],
  [0x1d400, 0x1d7ff],
  [0x1f100, 0x1f2ff],
]
const gates = new Map<string, RegExp>()

/** A character class of everything that folds to `target` (one character of a folded phrase). */
function foldsTo(target: string): RegExp {
  const known = gates.get(target)
  if (known) return known
  const chars = new Set([target, target.toUpperCase()])
  for (const [prototype, sources] of Object.entries(CONFUSABLE_PROTOTYPES))
    if (prototype.toLowerCase().includes(target)) for (const source of sources) chars.add(source)
  for (const [from, to] of COMPAT_BLOCKS)
    for (let cp = from; cp <= to; cp++) {
      const char = String.fromCodePoint(cp)
      if (foldChar(char).includes(target)) chars.add(char)
    }
  const escaped = [...chars].map((c) => `\\u{${c.codePointAt(0)!.toString(16)}}`).join("")
  const made = new RegExp(`[${escaped}${target === "[" ? "\\p{Ps}" : ""}]`, "u")
  gates.set(target, made)
  return made
}

/**
 * A cheap test that a text may read as `phrase`: it holds characters that fold to the first and to the last
 * character of the phrase's fold. Most text does not, and is passed over without folding (the unit tests
 * check both classes against every code point up to U+1FFFF).
 */
export function mayRead(text: string, phrase: string): boolean {
  const wanted = fold(phrase)
  return foldsTo(wanted.at(-1) ?? "").test(text) && foldsTo(wanted[0] ?? "").test(text)
}

/** Where a text reads as `phrase`: UTF-16 offsets into `text`, `end` exclusive, in order, not overlapping. */
export interface Lookalike {
  readonly start: number
  readonly end: number
}

/** Every place `text` reads as `phrase` (which must fold to something). */
export function lookalikes(text: string, phrase: string): Lookalike[] {
  if (!mayRead(text, phrase)) return []
  const wanted = fold(phrase)
  let folded = ""
  // For each UTF-16 unit of `folded`, the offset of the character of `text` it came from.
  const from: number[] = []
  let at = 0
  for (const char of text) {
    const f = foldChar(char)
    folded += f
    for (let k = 0; k < f.length; k++) from.push(at)
    at += char.length
  }
  const found: Lookalike[] = []
  for (let hit = folded.indexOf(wanted); hit >= 0; hit = folded.indexOf(wanted, hit + wanted.length)) {
    const last = from[hit + wanted.length - 1]!
    found.push({ start: from[hit]!, end: last + (text.codePointAt(last)! > 0xffff ? 2 : 1) })
  }
  return found
}
