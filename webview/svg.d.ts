// SVG files are bundled as their text (esbuild's `text` loader for the webview).
declare module '*.svg' {
  const text: string;
  export default text;
}
