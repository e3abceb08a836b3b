// The store's in-process queue: the jobs of one session run one after another in this process (the lock file
// orders them across processes). A job that throws answers with its fallback: the queue never rejects.

import { noop } from "./files.ts"

export interface Queue {
  /** Runs `job` after every job queued before it for `session`; what it throws becomes `fallback(error)`. */
  run<T>(session: string, job: () => Promise<T>, fallback: (error: unknown) => T): Promise<T>
}

export function createQueue(): Queue {
  const tails = new Map<string, Promise<void>>()
  return {
    run(session, job, fallback) {
      const run = (tails.get(session) ?? Promise.resolve()).then(job).catch(fallback)
      const tail = run.then(noop)
      tails.set(session, tail)
      void tail.then(() => {
        if (tails.get(session) === tail) tails.delete(session)
      })
      return run
    },
  }
}
