#!/bin/sh
# Runs the sync server as two instances on one throwaway PostgreSQL, on ports 8081 and 8082, as
# N instances run behind a load balancer: every instance serves every user and zone, and live
# clients of one instance hear of pushes made through the other (LISTEN/NOTIFY).
#
#   Server/scripts/two-instances.sh
#
# It prints a bearer token for a user `demo`; Ctrl-C stops everything and deletes the data.
set -eu
cd "$(dirname "$0")/../.."

if [ "${DATABASE_URL:-}" = "" ]; then
    exec Server/scripts/with-postgres.sh "$0" "$@"
fi

swift build -c release --package-path Server --scratch-path .build --product objectgraph-sync-server
server="$(swift build -c release --package-path Server --scratch-path .build --show-bin-path)/objectgraph-sync-server"
token="$("$server" user add demo --database "$DATABASE_URL")"

"$server" --database "$DATABASE_URL" --port 8081 &
first=$!
"$server" --database "$DATABASE_URL" --port 8082 &
second=$!
trap 'kill -TERM $first $second 2>/dev/null; wait' EXIT INT TERM

cat <<INSTRUCTIONS

Two instances serve $DATABASE_URL:
  http://127.0.0.1:8081 and http://127.0.0.1:8082
User demo's token: $token

Listen on one instance, push through the other:
  curl -N -H "Authorization: Bearer $token" http://127.0.0.1:8081/v1/zones/notes/live
  curl -H "Authorization: Bearer $token" -H "Content-Type: application/json" \\
    -d '{"clientID":"6F1B3C0E-2D4A-4E8B-9C7D-1A2B3C4D5E6F","mutations":[{"number":1,"operation":"upsert","entity":"Note","id":"0B9D6E2A-7C41-4F3E-8A5B-2C6D7E8F9A0B","fields":{"text":"Hello"}}]}' \\
    http://127.0.0.1:8082/v1/zones/notes/push

Ctrl-C stops both instances and PostgreSQL.
INSTRUCTIONS
wait
