// Shared timing and reporting for the benchmark files: medians of repeated runs, interleaved
// comparisons that hold on a loaded machine, and a results file per suite that bench/report.mjs
// turns into BENCHMARKS.md.

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

/** One thing to time, called `perBatch` times per batch. */
export interface Runner {
  /** Outside the timed region: builds the arguments of the next `count` calls. */
  prepare(count: number): void
  run(index: number): unknown
}

/** A runner whose calls take the same arguments every time. */
export const fixed = (run: () => unknown): Runner => ({ prepare() {}, run })

export interface Comparison {
  /** Per runner: the median over trials of its fastest batch, in ns per call. */
  readonly bestNs: readonly number[]
  /** Per runner: its time over runner 0's, the median over trials of each trial's ratio. */
  readonly ratios: readonly number[]
  /** Per runner: the lowest and highest trial ratio, to show how much the machine moved the figure. */
  readonly ratioRange: readonly (readonly [number, number])[]
}

/**
 * Compares runners on a busy machine. Within a trial, batches of every runner alternate (in a rotating
 * order) so that drift, GC and JIT phases hit each alike, and each runner keeps its fastest batch:
 * load only ever adds time, so the fastest batch is the least disturbed one. A batch lasts about a
 * millisecond (shorter than a scheduler's time slice, so many batches run undisturbed even when
 * another process shares the core). Each trial gives a ratio to runner 0, and the median of the
 * trials' ratios is the figure, so one unlucky trial cannot decide it.
 */
export async function compareInterleaved(
  runners: readonly Runner[],
  options: { trials?: number; batches?: number } = {},
): Promise<Comparison> {
  const trials = options.trials ?? (SHORT ? 5 : 9)
  const batches = options.batches ?? (SHORT ? 15 : 30)
  // Warm-up (let the JIT settle), which also sizes the batches from the slowest runner.
  let slowestNs = 0
  for (const r of runners)
    for (let round = 0; round < 3; round++) {
      r.prepare(20)
      const t0 = process.hrtime.bigint()
      for (let i = 0; i < 20; i++) await r.run(i)
      if (round > 0) slowestNs = Math.max(slowestNs, Number(process.hrtime.bigint() - t0) / 20)
    }
  const perBatch = Math.max(5, Math.min(500, Math.round(1_000_000 / slowestNs)))
  const best: number[][] = runners.map(() => [])
  for (let trial = 0; trial < trials; trial++) {
    const fastest = runners.map(() => Number.POSITIVE_INFINITY)
    for (let b = 0; b < batches; b++)
      for (let k = 0; k < runners.length; k++) {
        const index = (b + k + trial) % runners.length
        const r = runners[index]!
        r.prepare(perBatch)
        const t0 = process.hrtime.bigint()
        for (let i = 0; i < perBatch; i++) await r.run(i)
        fastest[index] = Math.min(fastest[index]!, Number(process.hrtime.bigint() - t0) / perBatch)
      }
    for (const [index, ns] of fastest.entries()) best[index]!.push(ns)
  }
  const trialRatios = best.map((mine) => mine.map((ns, trial) => ns / best[0]![trial]!))
  return {
    bestNs: best.map(median),
    ratios: trialRatios.map(median),
    ratioRange: trialRatios.map((r) => [Math.min(...r), Math.max(...r)] as const),
  }
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
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
