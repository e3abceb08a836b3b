// Types of npm-failure.mjs, for the tests that import it.

export function npmLogPath(stderr: string): string | undefined

export function npmFailureSentence(failure: {
  what: string
  stderr?: string
  log?: string
  status?: number | null
}): string
