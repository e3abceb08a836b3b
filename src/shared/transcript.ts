// Decodes what OpenCode 1.18 answers about a whole session (GET /session/:id and its messages) into the
// core's Transcript values. They feed core/history/rebuild.ts and fork.ts. Host shapes are read defensively:
// a message without an id is left out, a field of the wrong type reads as absent, and nothing here throws.

import type { ListedSession } from "../core/history/fork.ts"
import type { PartList, Transcript, TranscriptMessage } from "../core/history/rebuild.ts"
import { partCarriedList } from "../core/list/carried.ts"
import { isRecord } from "../core/list/result.ts"
import { TODO_TOOL } from "../core/list/words.ts"

function message(raw: unknown): TranscriptMessage | undefined {
  if (!isRecord(raw) || !isRecord(raw.info)) return undefined
  const info = raw.info
  if (typeof info.id !== "string") return undefined
  const time = isRecord(info.time) ? info.time : {}
  const parts = Array.isArray(raw.parts) ? raw.parts : []
  const calls: string[] = []
  const callParts: (string | undefined)[] = []
  const lists: PartList[] = []
  for (const part of parts) {
    const callID =
      isRecord(part) && part.type === "tool" && part.tool === TODO_TOOL && typeof part.callID === "string"
        ? part.callID
        : undefined
    if (callID !== undefined) {
      calls.push(callID)
      callParts.push(isRecord(part) && typeof part.id === "string" ? part.id : undefined)
    }
    const carried = partCarriedList(part)
    if (carried !== undefined) lists.push(callID === undefined ? carried : { ...carried, callID })
  }
  return {
    id: info.id,
    role: typeof info.role === "string" ? info.role : "unknown",
    created: typeof time.created === "number" ? time.created : undefined,
    calls,
    parts: callParts,
    lists,
  }
}

/** The messages of `GET /session/:id/message` (oldest first), as the core reads them. */
export function decodeTranscript(raw: unknown): Transcript {
  if (!Array.isArray(raw)) return []
  const out: TranscriptMessage[] = []
  for (const item of raw) {
    const decoded = message(item)
    if (decoded) out.push(decoded)
  }
  return out
}

/** A session as GET /session/:id and GET /session answer it, as the core reads it: id, title, when created. */
export function decodeListedSession(raw: unknown): ListedSession | undefined {
  if (!isRecord(raw) || typeof raw.id !== "string") return undefined
  const time = isRecord(raw.time) ? raw.time : {}
  return {
    id: raw.id,
    title: typeof raw.title === "string" ? raw.title : "",
    created: typeof time.created === "number" ? time.created : undefined,
  }
}
