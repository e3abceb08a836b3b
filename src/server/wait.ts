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
