// Waiting in the end-to-end scripts: a plain sleep, polling until something holds, and waiting until a session
// has gone quiet.

export function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/**
 * Polls `ok` every `everyMs` until it answers something truthy or `ms` have passed, and returns its last
 * answer, so a check can say what it saw. For what the plugin does after a host event: the host delivers
 * events to plugins asynchronously.
 */
export async function until(ok, ms, everyMs = 100) {
  const deadline = Date.now() + ms
  for (;;) {
    const answer = ok()
    if (answer || Date.now() > deadline) return answer
    await sleep(everyMs)
  }
}

/**
 * Waits until the session has been idle, with no new request to the scripted model, for `quietMs`.
 * One idle is not the end: the plugin's reminder starts another turn right after it.
 * @param host a host from startHost (scripts/lib/host.mjs)
 * @param model the scripted model from startMockModel (scripts/lib/mock-model.mjs)
 */
export async function waitQuiet(host, model, sessionID, { quietMs = 4000, timeoutMs = 120_000 } = {}) {
  const deadline = Date.now() + timeoutMs
  let lastCount = -1
  let stableSince = Date.now()
  while (Date.now() < deadline) {
    const status = await host.status({ timeoutMs: 5000 }).catch(() => ({}))
    const idle = !status[sessionID] || status[sessionID].type === "idle"
    const count = model.requests.length
    if (!idle || count !== lastCount) {
      lastCount = count
      stableSince = Date.now()
    } else if (Date.now() - stableSince >= quietMs) return
    await sleep(250)
  }
  throw new Error(`session ${sessionID} did not go quiet within ${Math.round(timeoutMs / 1000)} s`)
}
