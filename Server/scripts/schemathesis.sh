#!/usr/bin/env bash
# Runs schemathesis, every check, against objectgraph-sync-server on a temporary SQLite file, and
# fails on any failure. Usage: scripts/schemathesis.sh [SECONDS] (the time budget of the generated
# cases, 120 by default). Needs `pip install schemathesis` and a built server (swift build
# --package-path Server --scratch-path .build, from the repository's root).
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${1:-120}
# The server as the README's commands build it: in the repository's build folder, which both
# packages share.
server=${OBJECTGRAPH_SYNC_SERVER:-../.build/debug/objectgraph-sync-server}
[ -x "$server" ] || { echo "No server at $server: run swift build --package-path Server --scratch-path .build first." >&2; exit 1; }
command -v st >/dev/null || { echo "schemathesis is not installed: pip install schemathesis" >&2; exit 1; }

work=$(mktemp -d)
log="$work/server.log"
token=$("$server" user add alice --database "$work/sync.sqlite" | tail -n 1)
# Live streams end after a second, so that each live case ends (schemathesis reads a stream whole),
# and the rates are those of a server made for one fuzzing client.
"$server" serve --database "$work/sync.sqlite" --port 0 --live-stream-lifetime 1 --live-tick-interval 0.5 \
    --user-rate 0 --failed-authentication-rate 0 >"$log" 2>&1 &
pid=$!
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
port=""
for _ in $(seq 1 300); do
    port=$(sed -n 's/.*listening on .*:\([0-9][0-9]*\)$/\1/p' "$log" | head -n 1)
    [ -n "$port" ] && break
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$port" ] || { echo "The server did not start:" >&2; cat "$log" >&2; exit 1; }

# One worker: with two, hypothesis parses sources from two threads and CPython 3.11's ast module
# fails now and then ("AST constructor recursion depth mismatch"), an error of the tool's own.
st --config-file schemathesis.toml run openapi.yaml --url "http://127.0.0.1:$port" --checks all \
    --header "Authorization: Bearer $token" \
    --max-time "$budget" --workers 1 --request-timeout 10 --seed 20261126 && status=0 || status=$?
if grep -q "Request failed\b" "$log" && grep -q "internalError" "$log"; then
    echo "The server logged failures:" >&2
    grep "Request failed" "$log" >&2
    exit 1
fi
exit $status
