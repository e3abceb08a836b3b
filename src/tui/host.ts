// What the TUI shell needs from the host it runs in, and nothing more: the port each host binding (v1/, v2/)
// implements once. The session on screen, the dialogs, the renderer, the theme's colours, a toast and a few
// values kept between runs; every decision stays in the shell and the core. Dialogs are callback-shaped as
// 1.18's are; OpenCode 2's promise-shaped ones adapt in v2/host.ts.

import type { RGBA } from "@opentui/core"
import type { KeptFor } from "../core/view/dialog.ts"
import type { Tone } from "../core/view/sidebar.ts"

export interface SelectOption<Value> {
  readonly title: string
  readonly value: Value
  readonly description?: string
  /** Options with the same category are grouped under it. */
  readonly category?: string
}

export interface DialogPort {
  /** A list to pick from; closing it without a choice does nothing. */
  select<Value>(input: {
    readonly title: string
    readonly placeholder?: string
    readonly options: readonly SelectOption<Value>[]
    readonly current?: Value
    readonly onSelect: (value: Value) => void
  }): void
  prompt(input: {
    readonly title: string
    readonly placeholder?: string
    readonly value?: string
    readonly onConfirm: (value: string) => void
    readonly onCancel: () => void
  }): void
  confirm(input: {
    readonly title: string
    readonly message: string
    readonly onConfirm: () => void
    readonly onCancel: () => void
  }): void
  alert(input: { readonly title: string; readonly message: string; readonly onConfirm: () => void }): void
  /** Closes whatever dialog is open. */
  clear(): void
}

/** The renderer members the shell uses (the same OpenTUI renderer in both hosts). */
export interface TuiRenderer {
  readonly width: number
  on(event: "resize", listener: (columns: number) => void): unknown
  off(event: "resize", listener: (columns: number) => void): unknown
  suspend(): void
  resume(): void
  requestRender(): void
  readonly currentRenderBuffer: { clear(): void }
}

/** Small JSON values the TUI keeps for the user (an answer given once); reading and writing never throw. */
export interface KeptValues {
  /** The value kept under `key`, or undefined (also while the host is still loading its store). */
  get(key: string): unknown
  set(key: string, value: unknown): void
  /** How long a value lasts: the install (the host's own store) or this run (no store offered). */
  readonly keptFor: KeptFor
}

export interface TuiHost {
  /** The session on screen, or undefined on the home screen; reactive in the host. */
  session(): string | undefined
  readonly dialog: DialogPort
  readonly renderer: TuiRenderer
  /** The theme's colour for a tone of the core's painted lines; reactive in the host. */
  color(tone: Tone): RGBA | string | undefined
  /** Shows a toast; `sessionID` lets a host offer to open a session that is not on screen. */
  toast(input: {
    readonly variant: "info" | "success" | "warning" | "error"
    readonly title: string
    readonly message: string
    readonly duration: number
    readonly sessionID?: string
  }): void
  readonly kept: KeptValues
}
