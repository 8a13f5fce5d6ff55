// The console marker by which a test in the extension host asks the shim for a screenshot.
/** `console.log(SCREENSHOT_MARKER + name)` in the extension host; the shim saves NAME.png. */
export const SCREENSHOT_MARKER = 'BRAID_SCREENSHOT:';
