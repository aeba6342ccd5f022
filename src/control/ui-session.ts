/** Sent by the inspector on its reads; see control/middleware.ts. */
export const INSPECTOR_HEADER = "x-emulator-inspector";
