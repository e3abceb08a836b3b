// Bounded waits on the host's answers: a host slow to answer must not hold up a hook or the TUI.

/** What a bounded wait gives when the host did not answer in time (an answer that says nothing is not late). */
export const LATE: unique symbol = Symbol("late")

/** `pending`'s value, or LATE once `ms` have passed (the timer never keeps the process up). */
export function answerWithin<T>(pending: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const waited = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms)
    timer.unref?.()
  })
  return Promise.race([pending, waited]).finally(() => clearTimeout(timer))
}

/** `pending`'s value, or undefined once `ms` have passed: for a caller to whom late and unsaid are the same. */
export async function withinMs<T>(pending: Promise<T>, ms: number): Promise<T | undefined> {
  const answer = await answerWithin(pending, ms)
  return answer === LATE ? undefined : answer
}
