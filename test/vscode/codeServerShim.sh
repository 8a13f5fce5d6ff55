#!/bin/sh
# runTests() spawns an executable file: this one runs the TypeScript shim through tsx, resolved
# from the project so the caller's working directory does not matter.
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tsx=$(node -p "require('node:url').pathToFileURL(require.resolve('tsx', { paths: [process.argv[1]] })).href" "$root") || exit 1
exec node --import "$tsx" "$here/codeServerShim.ts" "$@"
