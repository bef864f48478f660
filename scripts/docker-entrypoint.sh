#!/bin/sh
# Picks the process to run from the first argument: api | worker | cli <command> [options].
# The API's node flags are those of apps/api/node-flags.json (apps/api/node-flags.spec.ts checks).
set -e
role="${1:-api}"
[ "$#" -gt 0 ] && shift
case "$role" in
  api) exec node --max-semi-space-size=16 dist/apps/api/apps/api/src/main.js "$@" ;;
  worker) exec node dist/apps/worker/apps/worker/src/main.js "$@" ;;
  cli) exec node dist/apps/cli/apps/cli/src/main.js "$@" ;;
  *) echo "usage: api | worker | cli <command> [options]" >&2; exit 64 ;;
esac
