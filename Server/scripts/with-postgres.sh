#!/bin/sh
# Starts a throwaway PostgreSQL (Debian's `postgresql` package, `initdb` in a temporary
# directory), runs a command with DATABASE_URL pointing at an empty database on it, then stops
# the server and deletes its directory. With no command, it prints the URL and waits for Ctrl-C.
#
#   Server/scripts/with-postgres.sh        # prints the URL, then waits
#   Server/scripts/with-postgres.sh sh -c 'swift run -c release --package-path Server --scratch-path .build objectgraph-sync-bench --postgres "$DATABASE_URL"'
#
# PORT (default 54329) chooses the port. PostgreSQL refuses to run as root; as root the server
# runs as the `postgres` user the package created.
set -eu

port="${PORT:-54329}"
bin=""
for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -r) $(echo "$PATH" | tr ':' ' '); do
    if [ -x "$candidate/initdb" ] && [ -x "$candidate/pg_ctl" ] && [ -x "$candidate/psql" ]; then
        bin="$candidate"
        break
    fi
done
if [ -z "$bin" ]; then
    echo "PostgreSQL's server programs are not installed (on Debian or Ubuntu: apt-get install postgresql)." >&2
    exit 1
fi

as_postgres=""
if [ "$(id -u)" = 0 ]; then as_postgres="runuser -u postgres --"; fi
directory="$(mktemp -d /tmp/objectgraph-postgres.XXXXXX)"
[ -z "$as_postgres" ] || chown postgres "$directory"

stop() {
    $as_postgres "$bin/pg_ctl" -D "$directory/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$directory"
}
trap stop EXIT
trap 'exit 130' INT TERM

$as_postgres "$bin/initdb" -D "$directory/data" -U postgres -A trust -E UTF8 >/dev/null
$as_postgres "$bin/pg_ctl" -D "$directory/data" -l "$directory/log" -w \
    -o "-p $port -k $directory -c listen_addresses=127.0.0.1 -c max_connections=300" start >/dev/null
"$bin/psql" -h 127.0.0.1 -p "$port" -U postgres -q -c "CREATE DATABASE objectgraph_sync"
export DATABASE_URL="postgres://postgres@127.0.0.1:$port/objectgraph_sync"
echo "PostgreSQL is running: $DATABASE_URL (log: $directory/log)" >&2

if [ "$#" -eq 0 ]; then
    echo "Ctrl-C stops it and deletes its data." >&2
    while :; do sleep 3600; done
fi
"$@"
