// How long the server waits for the host's answers: a host slow to answer must not hold up a hook.

/** Resolves with `pending`'s value, or with undefined once `ms` have passed (the timer never keeps the process up). */
export function withinMs<T>(pending: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const waited = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms)
    timer.unref?.()
  })
  return Promise.race([pending, waited]).finally(() => clearTimeout(timer))
}

/** What a bounded wait gives when the host did not answer in time (an answer that says nothing is not late). */
export const LATE: unique symbol = Symbol("late")

/** `pending`'s value, or LATE once `ms` have passed: for a caller that says so when the host is slow. */
export function answerWithin<T>(pending: Promise<T>, ms: number): Promise<T | typeof LATE> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const waited = new Promise<typeof LATE>((resolve) => {
    timer = setTimeout(() => resolve(LATE), ms)
    timer.unref?.()
  })
  return Promise.race([pending, waited]).finally(() => clearTimeout(timer))
}
