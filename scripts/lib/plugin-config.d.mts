// Types of plugin-config.mjs, for the tests that import it.

export const PACKAGE_NAME: string

export type JsoncNode =
  | {
      kind: "object"
      start: number
      end: number
      members: { key: string; keyStart: number; value: JsoncNode }[]
    }
  | { kind: "array"; start: number; end: number; items: JsoncNode[]; commas: number[] }
  | { kind: "string"; start: number; end: number; value: string }
  | { kind: "literal"; start: number; end: number; value: number | boolean | null }

export function parseJsonc(
  text: string,
): { ok: true; root: JsoncNode } | { ok: false; error: { message: string; line: number; column: number } }

export function specOf(item: unknown): string | undefined

export function isOurSpec(spec: string, where: { checkoutDir?: string; configDir: string }): boolean

export type PluginChange =
  | { action: "added" | "removed" | "kept"; spec: string }
  | { action: "replaced"; spec: string; with: string }

export function editPluginList(
  text: string | undefined,
  options: { spec: string | undefined; isOurs: (spec: string) => boolean; kind: "opencode" | "tui" },
): { ok: true; text: string | undefined; changes: PluginChange[] } | { ok: false; reason: string }

export function listedSpecs(text: string | undefined): string[] | undefined
