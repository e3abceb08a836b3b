// The compact progress line ("▶ Write the parser · 3/8"), a full-width row near the prompt (1.18's
// `app_bottom`, OpenCode 2's `session.composer.top`). It shows while the session sidebar does not
// (too narrow a terminal, or the sidebar hidden), reads the same list signal as the sidebar, and is cut
// to the terminal width by the core (src/core/view/compact-line.ts): the host would wrap or clip it.

import { type Accessor, createMemo, createSignal, onCleanup, Show } from "solid-js"
import { compactLine } from "../core/view/compact-line.ts"
import type { TuiHost } from "./host.ts"
import type { ListSource } from "./list-source.ts"

/** Columns the row keeps free: the prompt box's indent on the left, one spare on the right. */
const INSET = 3

export function CompactLine(props: {
  host: TuiHost
  source: ListSource
  /** The session the row is about (the slot's, or the one on screen). */
  session: Accessor<string | undefined>
  sidebarShown: Accessor<boolean>
}) {
  const renderer = props.host.renderer
  const [width, setWidth] = createSignal(renderer.width)
  const onResize = (columns: number) => setWidth(columns)
  renderer.on("resize", onResize)
  onCleanup(() => renderer.off("resize", onResize))
  const text = createMemo(() => {
    try {
      if (props.sidebarShown()) return undefined
      const session = props.session()
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
          <text wrapMode="none" fg={props.host.color("muted")}>
            {line()}
          </text>
        </box>
      )}
    </Show>
  )
}
