export declare const OUTER_ROOMS: Readonly<Record<string, readonly string[]>>
export declare const ROOM_ORDER: readonly string[]
export declare function roomViolations(
  src: string,
): { readonly file: string; readonly specifier: string; readonly problem: string }[]
