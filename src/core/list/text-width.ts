// Terminal text width: the columns a code point or a string takes, and cutting text to a width with "…".
// One home for the sidebar, the compact line and the dialog; the scripts that read the terminal back
// (scripts/lib/tui.mjs) load it from the build (dist/text-width.mjs, not a package export).

// Emoji drawn two columns wide by default, including those outside the ranges below ("✅", "⚡", "⏳").
const EMOJI_PRESENTATION = /\p{Emoji_Presentation}/u

/** Terminal columns of one code point: 2 for wide East Asian and emoji, 0 for combining marks. */
export function charWidth(cp: number): number {
  if (cp === 0 || (cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || cp === 0xfe0f) return 0
  if (cp >= 0x2000 && cp < 0x1f300 && EMOJI_PRESENTATION.test(String.fromCodePoint(cp))) return 2
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2
  return 1
}

export function displayWidth(text: string): number {
  let width = 0
  for (const ch of text) width += charWidth(ch.codePointAt(0)!)
  return width
}

/**
 * Cuts pieces of text (a painted line's segments, whatever they carry besides their text) to `width`
 * columns; a cut line ends in "…", in the piece it falls in. Empty pieces are dropped.
 */
export function clipSegments<S extends { readonly text: string }>(
  segments: readonly S[],
  width: number,
): S[] {
  let total = 0
  for (const s of segments) total += displayWidth(s.text)
  if (total <= width) return segments.filter((s) => s.text !== "")
  const room = width - 1
  const out: S[] = []
  let used = 0
  for (const s of segments) {
    let kept = ""
    let full = true
    for (const ch of s.text) {
      const w = charWidth(ch.codePointAt(0)!)
      if (used + w > room) {
        full = false
        break
      }
      kept += ch
      used += w
    }
    if (full) {
      if (kept !== "") out.push({ ...s, text: kept })
      continue
    }
    out.push({ ...s, text: `${kept.trimEnd()}…` })
    return out
  }
  return out
}

/** One line of text cut to `width` columns with "…"; control characters are shown as spaces. */
export function fitText(text: string, width: number): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")
  const max = Math.floor(width)
  if (!(max >= 1)) return ""
  return clipSegments([{ text: flat }], max)
    .map((s) => s.text)
    .join("")
}
