#!/usr/bin/env bash
# The kit's run.sh runs the suite as "$SUITE_NODE" SUITE_JS ARGS, with SUITE_JS the package's own
# entry: given as SUITE_NODE (test/helpers/conformance-kit.ts kitRunEnv), this runs the suite's
# bundle instead (test/helpers/upstream-bundles.ts: 0.22 CPU-s a start against 0.45), the same
# code, with the kit's Node 22. Anything else run.sh asks of its Node (its version check) passes on.
set -u
if [ -n "${1-}" ] && [ "$1" -ef "$MCPKIT_SUITE_ENTRY" ]; then
  shift
  exec "$MCPKIT_SUITE_NODE" "$MCPKIT_SUITE_BUNDLE" "$@"
fi
exec "$MCPKIT_SUITE_NODE" "$@"
