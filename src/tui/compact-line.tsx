// The compact progress line ("▶ Write the parser · 3/8") in the host's `app_bottom` slot, a full-width
// row at the foot of the screen shown at every width. It shows while the session sidebar does not
// (120 columns or less, or the sidebar hidden), reads the same list signal as the sidebar, and is cut
// to the terminal width by the core (src/core/view/compact-line.ts): the host would wrap or clip it.

import type { TuiPluginApi } from "@opencode-ai/plugin/tui"
import { type Accessor, createMemo, createSignal, onCleanup, Show } from "solid-js"
import { compactLine } from "../core/view/compact-line.ts"
import { type ListSource, routeSession } from "./list-source.ts"

/** Columns the row keeps free: the prompt box's indent on the left, one spare on the right. */
const INSET = 3

export function CompactLine(props: {
  api: TuiPluginApi
  source: ListSource
  sidebarShown: Accessor<boolean>
}) {
  const renderer = props.api.renderer
  const [width, setWidth] = createSignal(renderer.width)
  const onResize = (columns: number) => setWidth(columns)
  renderer.on("resize", onResize)
  onCleanup(() => renderer.off("resize", onResize))
  const text = createMemo(() => {
    try {
      if (props.sidebarShown()) return undefined
      const session = routeSession(props.api)
      if (!session) return undefined
      return compactLine(props.source.list(session)(), width() - 2 * INSET)
    } catch {
      return undefined
    }
  })
  return (
    <Show when={text()}>
      {(line: () => string) => (
        <box paddingLeft={INSET} flexShrink={0}>
          <text wrapMode="none" fg={props.api.theme.current.textMuted}>
            {line()}
          </text>
        </box>
      )}
    </Show>
  )
}
