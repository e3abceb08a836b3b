// The report of an end-to-end script: one line per check as it runs, and a closing count in the form
// `<name>: N passed, M failed` that verify and CI read. Returns the exit code, so a script ends with
// `process.exit(report.finish())`.

/** @param {string} name the script's name, first word of the closing line */
export function createReport(name) {
  let passed = 0
  let failed = 0
  /** Prints one check; returns whether it passed. */
  function check(label, ok, detail = "") {
    if (ok) passed++
    else failed++
    console.log(`${ok ? "  ok  " : "  FAIL"} ${label}${detail ? ` (${detail})` : ""}`)
    return Boolean(ok)
  }
  return {
    check,
    /** A check the rest of the script depends on: a failure stops it (the error names the check). */
    need(label, ok, detail = "") {
      if (!check(label, ok, detail)) throw new Error(`stopped: ${label}`)
    },
    /** Counts a failure that is not a check, such as an error that stopped the script. */
    error(message) {
      failed++
      console.log(`  FAIL ${message}`)
    },
    /** Prints the closing count (with `extra` in brackets) and returns the exit code. */
    finish(extra = "") {
      console.log(`\n${name}: ${passed} passed, ${failed} failed${extra ? ` (${extra})` : ""}`)
      return failed === 0 ? 0 : 1
    },
  }
}
