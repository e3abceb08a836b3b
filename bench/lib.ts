// Shared timing and reporting for the benchmark files: medians of repeated runs,
// and a results file per suite that bench/report.mjs turns into BENCHMARKS.md.

import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** CI runs the short mode: fewer repetitions, same assertions. */
export const SHORT = process.env.BENCH_SHORT === "1"

export interface Timing {
  readonly medianNs: number
  readonly minNs: number
  readonly runs: number
}

/**
 * Median wall time of `fn`, measured in batches so that sub-microsecond calls are
 * not lost in timer resolution. `setup` runs outside the timed region for each batch.
 */
export function measure(fn: () => unknown, options: { batches?: number; perBatch?: number } = {}): Timing {
  const batches = options.batches ?? (SHORT ? 15 : 60)
  const perBatch = options.perBatch ?? 50
  for (let i = 0; i < perBatch * 2; i++) fn() // warm-up: let the JIT settle
  const samples: number[] = []
  for (let b = 0; b < batches; b++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < perBatch; i++) fn()
    samples.push(Number(process.hrtime.bigint() - t0) / perBatch)
  }
  samples.sort((a, b) => a - b)
  return { medianNs: samples[Math.floor(samples.length / 2)]!, minNs: samples[0]!, runs: batches * perBatch }
}

export function formatNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(0)} ns`
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(1)} µs`
  return `${(ns / 1_000_000).toFixed(2)} ms`
}

export interface Table {
  readonly title: string
  readonly note?: string
  readonly columns: readonly string[]
  readonly rows: readonly (readonly string[])[]
}

export function printTable(table: Table): void {
  const widths = table.columns.map((c, i) =>
    Math.max(c.length, ...table.rows.map((r) => (r[i] ?? "").length)),
  )
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ")
  console.log(`\n${table.title}\n${line(table.columns)}\n${table.rows.map(line).join("\n")}`)
}

/** Writes a suite's tables where bench/report.mjs collects them. */
export function record(suite: string, tables: readonly Table[]): void {
  for (const table of tables) printTable(table)
  const dir = join(process.cwd(), ".tmp", "bench")
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, `${suite}.json`), JSON.stringify({ suite, short: SHORT, tables }, null, 2))
}
