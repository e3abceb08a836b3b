// Whether the agent's text ends by asking the user something: then a stop with open work is an answer, not a
// stop to remind about. A question, a cue phrase such as "let me know", or a request for input such as "tell
// me which". Pure text rules; the tracker (tracker.ts) asks.

/** Phrases that mean the agent is waiting on the user; matched as whole words, case-insensitive. */
export const QUESTION_CUES: readonly string[] = [
  "please confirm",
  "let me know",
  "should i",
  "would you like",
  "do you want me",
  "shall i",
  "can you confirm",
  "could you confirm",
  "waiting for your",
  "would you prefer",
]

// ASCII and full-width question marks, Arabic, Greek (U+037E, not the ASCII semicolon) and the reversed mark.
const QUESTION_END = /[?\uFF1F\u061F\u037E\u2E2E]$/u
// Decoration that often trails a sentence: markdown emphasis, quotes, closing brackets, emoji.
const TRAILING_DECORATION =
  /(?:[\s*_~`"'\u201D\u2019\u00BB)\]\u300D\u300F\u3011\p{Extended_Pictographic}]|\uFE0F)+$/u
const CUE_PATTERN = new RegExp(
  `\\b(?:${QUESTION_CUES.map((c) => c.replace(/ /g, "\\s+")).join("|")})\\b`,
  "i",
)

/**
 * Requests for the user's input that start the last sentence (after "please", "kindly" or an "if …," clause):
 * a verb and what must follow it, so that a summary that starts with the same word ("Reply handling is done",
 * "Select queries are faster") is not read as a request.
 */
export const REQUEST_CUES: readonly string[] = [
  "answer (?:yes|no|with|the|this|these|each|either|one|below)",
  "(?:choose|pick|select) (?:one|between|from|which|whether|either|an?|the|your)",
  "reply (?:with|to|yes|no|in)",
  "respond (?:with|to)",
  "tell (?:me|us)",
  "confirm (?:the|that|whether|if|which|this|your|you)",
  "(?:please )?advise (?:how|whether|which|what|on|me|us)",
  "decide (?:which|whether|how|what|between)",
  "(?:specify|clarify|indicate) (?:which|the|what|whether|how|your)",
]
const REQUEST_PATTERN = new RegExp(
  `^(?:(?:please|kindly|now|so|then|just)[,]?\\s+)*(?:(?:if|when|once)\\b[^,]{1,80},\\s*(?:please\\s+)?)?(?:${REQUEST_CUES.map((c) => c.replace(/ /g, "\\s+")).join("|")})\\b`,
  "i",
)
// A list item: "1.", "2)", "a.", "-", "*" or "•" and a space.
const LIST_ITEM = /^\s*(?:\d{1,3}[.)]|[a-z][.)]|[-*\u2022])\s+/i
// Markdown a sentence may start with: emphasis, quotes, headings.
const LEADING_DECORATION = /^[\s*_~`>#"'\u201C\u2018\u00AB]+/u

function lastSentence(line: string): string {
  const sentences = line.split(/(?<=[.!?\u3002\uFF01\uFF1F])\s+/u).filter((s) => s.trim() !== "")
  return (sentences[sentences.length - 1] ?? "").replace(LEADING_DECORATION, "")
}

/** True when one line asks the user something: a question mark, a cue phrase or a request for input. */
function asksInLine(line: string): boolean {
  const bare = line.replace(TRAILING_DECORATION, "")
  return QUESTION_END.test(bare) || CUE_PATTERN.test(line) || REQUEST_PATTERN.test(lastSentence(bare))
}

/**
 * True when the agent's text ends by asking the user something: its last non-empty line asks, or it ends with
 * a list of options after a line that asks ("Which one?" then "1. …", "2. …").
 */
export function asksUser(text: string | undefined): boolean {
  if (!text) return false
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "")
  let end = lines.length - 1
  if (end < 0) return false
  if (asksInLine(lines[end]!)) return true
  while (end >= 0 && LIST_ITEM.test(lines[end]!)) end--
  return end >= 0 && end < lines.length - 1 && asksInLine(lines[end]!)
}

/** True when a text (the user's prompt) ends in a question mark, decoration after it aside. */
export function endsInQuestion(text: string): boolean {
  return QUESTION_END.test(text.replace(TRAILING_DECORATION, ""))
}
