// Follows OpenCode 2's event stream for as long as the plugin is loaded, subscribing again whenever it stops, and
// hands each event to the runtime decoded (v2-events.ts): turn notes, a fork, or the core's host events.

import type { Log } from "./output.ts"
import type { Runtime } from "./runtime.ts"
import type { Fn } from "./v2-context.ts"
import { decodeV2Event, v2TurnNotes } from "./v2-events.ts"
import { endedBefore } from "./v2-request.ts"

/** The first pause before subscribing again to an event stream that stopped, and the longest. */
const RESUBSCRIBE_FIRST_MS = 50
const RESUBSCRIBE_MAX_MS = 5_000

/**
 * Follows the host's events until `stop`. The adapter's subscription fails for good when one event cannot be
 * encoded (2.0.15: `event.subscribe` pipes the bus through the protocol's encoder into one async iterator), and an
 * iterator may also just end: either way a new subscription is made, after a pause that grows to
 * RESUBSCRIBE_MAX_MS while the host keeps failing and starts over once an event came through. Said once.
 */
export async function followStream(
  open: Fn,
  stop: AbortSignal,
  log: Log,
  onEvent: (raw: unknown) => Promise<void>,
): Promise<void> {
  let pause = RESUBSCRIBE_FIRST_MS
  let said = false
  while (!stop.aborted) {
    let why = "it ended"
    try {
      const stream = open({ signal: stop } as never) as AsyncIterable<unknown>
      for await (const raw of stream) {
        if (stop.aborted) return
        pause = RESUBSCRIBE_FIRST_MS
        await onEvent(raw)
      }
    } catch (error) {
      why = error instanceof Error ? error.message : String(error)
    }
    if (stop.aborted) return
    if (!said)
      log(
        "warn",
        `the host's event stream stopped (${JSON.stringify(why.slice(0, 200))}); subscribing again whenever it stops, so reminders, undo and forks keep being followed`,
      )
    said = true
    await sleepUnlessStopped(pause, stop)
    pause = Math.min(pause * 2, RESUBSCRIBE_MAX_MS)
  }
}

function sleepUnlessStopped(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms)
    timer.unref?.()
    stop.addEventListener("abort", done, { once: true })
    function done() {
      clearTimeout(timer)
      stop.removeEventListener("abort", done)
      resolve()
    }
  })
}

/**
 * One event of the host's bus, to the runtime: its turn notes, then the fork or the core's events it is. A fork
 * "through" a message starts after it (`afterMessage`).
 */
export async function followV2Event(
  runtime: Runtime,
  raw: unknown,
  afterMessage: (sessionID: string, through: string) => Promise<string | undefined>,
): Promise<void> {
  const { turns } = runtime
  const { notes, done } = v2TurnNotes(raw)
  for (const note of notes) turns.note(note)
  if (done) return
  const decoded = decodeV2Event(raw, turns.rulesOf)
  if (decoded === undefined) return
  if (decoded.kind === "forked") {
    const from = decoded.through ? await afterMessage(decoded.parentID, decoded.through) : decoded.from
    await turns.forked(decoded.sessionID, { parentID: decoded.parentID, ...(from ? { from } : {}) })
    return
  }
  for (const hostEvent of decoded.events)
    await turns.event(decoded.sessionID, hostEvent, (messageID) => endedBefore(raw, messageID))
}
