#!/usr/bin/env bash
# Test servers for the database tests (`grail record`, `grail hermitage`):
#
#   db-servers.sh start    install Debian's postgresql, mariadb-server, sqlite3 when missing; start
#                          PostgreSQL on 127.0.0.1:55432 and MariaDB on 127.0.0.1:33306, each with
#                          its own data under target/db (made once, reused); write target/db/env
#   db-servers.sh stop     stop both (quiet when not running); remove target/db/env
#   db-servers.sh status   print which is up; exit 0 only when both are
#
# target/db/env exports, for each server that answers, GRAIL_TEST_POSTGRES_URL
# (postgresql://grail@127.0.0.1:55432/grail) and GRAIL_TEST_MYSQL_URL
# (mysql://grail@127.0.0.1:33306/grail): user grail, no password, database grail, all privileges.
# A server that cannot start is named with the command that failed and its log's last lines; its
# variable is left out, and `start` exits non-zero only when CI=true. Logs: target/db/*.log.
#
# Both servers refuse or dislike running as root: as root they run as the `postgres` and `mysql`
# users that Debian's packages create. When those users cannot reach target/db (a parent folder
# without o+x) or its socket paths are too long, target/db is a link to /var/tmp/grail-db-HASH.
#
# Environment: GRAIL_DB_PG_PORT, GRAIL_DB_MYSQL_PORT (ports), CI=true.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DB="$ROOT/target/db"
PG_PORT="${GRAIL_DB_PG_PORT:-55432}"
MY_PORT="${GRAIL_DB_MYSQL_PORT:-33306}"
TIMEOUT=30
IS_ROOT=$([[ "$(id -u)" == 0 ]] && echo 1 || echo "")

say() { echo "db-servers: $*"; }

# The server's failure, told in full: which server, which command, the end of its log.
failed=()
fail() { # NAME COMMAND LOG
    failed+=("$1")
    say "$1 could not start: \`$2\` failed. Last lines of $3:" >&2
    tail -n 15 "$3" 2>/dev/null | sed 's/^/    /' >&2 || true
}

# Runs a command as the server's user (only when we are root: otherwise as ourselves).
as() { # USER CMD...
    local user="$1"
    shift
    if [[ -n "$IS_ROOT" && "$user" != root ]]; then
        (cd / && runuser -u "$user" -- "$@") # from a folder it can enter
    else
        "$@"
    fi
}

pg_bin() { # the newest PostgreSQL installed
    local d
    d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1)"
    [[ -n "$d" && -x "$d/pg_ctl" ]] && echo "$d"
}
mariadbd_bin() { command -v mariadbd 2>/dev/null || { [[ -x /usr/sbin/mariadbd ]] && echo /usr/sbin/mariadbd; }; }

# ---- install -------------------------------------------------------------------------------

install_missing() {
    local need=()
    pg_bin >/dev/null || need+=(postgresql)
    { mariadbd_bin >/dev/null && command -v mariadb-admin >/dev/null; } || need+=(mariadb-server)
    command -v sqlite3 >/dev/null || need+=(sqlite3)
    [[ ${#need[@]} -eq 0 ]] && return 0

    local sudo=""
    if [[ -z "$IS_ROOT" ]]; then
        if ! sudo -n true 2>/dev/null; then
            say "missing ${need[*]}, and this user can neither apt-get install nor sudo" >&2
            return 0
        fi
        sudo="sudo -n"
    fi
    local log="$DB/apt.log"
    say "apt-get install ${need[*]} (log: $log)"
    export DEBIAN_FRONTEND=noninteractive
    if ! $sudo apt-get install -y --no-install-recommends "${need[@]}" >"$log" 2>&1; then
        say "apt-get install failed; apt-get update, then again"
        $sudo apt-get update >>"$log" 2>&1 || true
        if ! $sudo apt-get install -y --no-install-recommends "${need[@]}" >>"$log" 2>&1; then
            say "apt-get install ${need[*]} failed. Last lines of $log:" >&2
            tail -n 15 "$log" | sed 's/^/    /' >&2
        fi
    fi
}

# ---- where the servers keep their files ----------------------------------------------------

# The servers' users must reach target/db, and a unix socket path has at most 107 bytes.
reachable() { # DIR
    local u
    for u in postgres mysql; do
        [[ -z "$IS_ROOT" ]] || ! id "$u" >/dev/null 2>&1 || runuser -u "$u" -- test -x "$1" || return 1
    done
    (($(printf '%s' "$1/mariadb-run/mariadb.sock" | wc -c) < 100))
}

place_db() {
    mkdir -p "$ROOT/target"
    [[ -L "$DB" && ! -e "$DB" ]] && rm "$DB" # a link to a folder since removed
    [[ -e "$DB" ]] || mkdir "$DB"
    if ! reachable "$(realpath "$DB")"; then
        local elsewhere
        elsewhere="/var/tmp/grail-db-$(printf '%s' "$ROOT" | sha256sum | cut -c1-16)"
        say "$DB cannot be reached by the servers' users (a parent folder without o+x)" \
            "or its socket path is too long: keeping the servers' files in $elsewhere"
        rm -rf "$DB"
        mkdir -p "$elsewhere"
        chmod 755 "$elsewhere"
        ln -s "$elsewhere" "$DB"
    fi
    DB="$(realpath "$DB")"
}

# A folder or log file owned by the server's user.
own() { # USER PATH...
    local user="$1"
    shift
    [[ -n "$IS_ROOT" && "$user" != root ]] && chown "$user:" "$@"
    return 0
}

# ---- PostgreSQL ----------------------------------------------------------------------------

PG_USER=postgres
pg_up() {
    local bin
    bin="$(pg_bin)" || return 1
    [[ -f "$DB/pg/postmaster.pid" ]] && as $PG_USER "$bin/pg_ctl" status -D "$DB/pg" >/dev/null 2>&1 &&
        "$bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U grail -d postgres
}

start_pg() {
    local bin data="$DB/pg" run="$DB/pg-run" log="$DB/pg.log"
    if ! bin="$(pg_bin)"; then
        failed+=(PostgreSQL)
        say "PostgreSQL could not start: no /usr/lib/postgresql/*/bin/pg_ctl" \
            "(is the postgresql package installed?)" >&2
        return 0
    fi
    if [[ -n "$IS_ROOT" ]] && ! id $PG_USER >/dev/null 2>&1; then
        failed+=(PostgreSQL)
        say "PostgreSQL could not start: it refuses to run as root, and there is no user $PG_USER" >&2
        return 0
    fi
    if pg_up; then
        say "PostgreSQL is already up on 127.0.0.1:$PG_PORT"
    else
        local version
        version="$(basename "$(dirname "$bin")")"
        mkdir -p "$run"
        touch "$log"
        own $PG_USER "$run" "$log"
        # A data folder of another major version (PostgreSQL was upgraded) is made anew.
        if [[ "$(cat "$data/PG_VERSION" 2>/dev/null)" != "$version" ]]; then
            say "initdb $data (PostgreSQL $version)"
            rm -rf "$data"
            mkdir -p "$data"
            own $PG_USER "$data"
            chmod 700 "$data"
            if ! as $PG_USER "$bin/initdb" -D "$data" -U grail -A trust -E UTF8 --no-locale -N >>"$log" 2>&1; then
                fail PostgreSQL "initdb -D $data" "$log"
                rm -rf "$data"
                return 0
            fi
            echo "include 'grail.conf'" >>"$data/postgresql.conf"
        fi
        # A test server: no fsync; commit timestamps for `grail record`.
        cat >"$data/grail.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $PG_PORT
unix_socket_directories = '$run'
track_commit_timestamp = on
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
        own $PG_USER "$data/grail.conf"
        settle_postmaster_pid "$data"
        say "starting PostgreSQL $version on 127.0.0.1:$PG_PORT"
        if ! as $PG_USER "$bin/pg_ctl" start -D "$data" -l "$log" -w -t $TIMEOUT -s >/dev/null 2>>"$log"; then
            fail PostgreSQL "pg_ctl start -D $data" "$log"
            return 0
        fi
        local deadline=$((SECONDS + TIMEOUT))
        until "$bin/pg_isready" -q -h 127.0.0.1 -p "$PG_PORT" -U grail -d postgres; do
            if ((SECONDS >= deadline)); then
                fail PostgreSQL "pg_isready -h 127.0.0.1 -p $PG_PORT (for ${TIMEOUT}s)" "$log"
                return 0
            fi
            sleep 0.2
        done
    fi
    local psql=("$bin/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG_PORT" -U grail -d postgres -tA)
    if [[ -z "$("${psql[@]}" -c "SELECT 1 FROM pg_database WHERE datname = 'grail'" 2>>"$log")" ]]; then
        if ! "${psql[@]}" -c "CREATE DATABASE grail" >>"$log" 2>&1; then
            fail PostgreSQL "psql -c 'CREATE DATABASE grail'" "$log"
            return 0
        fi
    fi
    echo "export GRAIL_TEST_POSTGRES_URL=postgresql://grail@127.0.0.1:$PG_PORT/grail" >>"$ENV_NEW"
}

# A postmaster killed without pg_ctl leaves postmaster.pid, and PostgreSQL will not start while
# the process it names exists: wait until the killed one (a zombie until reaped) is gone; drop
# the file when its pid now belongs to another program.
settle_postmaster_pid() { # DATA
    local pid deadline=$((SECONDS + TIMEOUT))
    pid="$(head -n1 "$1/postmaster.pid" 2>/dev/null)" || return 0
    [[ "$pid" =~ ^[0-9]+$ ]] || return 0
    while [[ "$(ps -o stat= -p "$pid" 2>/dev/null)" == Z* ]] && ((SECONDS < deadline)); do
        sleep 0.2
    done
    if running "$pid" && ! running "$pid" postgres; then
        say "removing $1/postmaster.pid: its pid $pid is now another program's"
        rm -f "$1/postmaster.pid"
    fi
}

stop_pg() {
    local bin
    bin="$(pg_bin)" || return 0
    [[ -f "$DB/pg/postmaster.pid" ]] || return 0
    if as $PG_USER "$bin/pg_ctl" status -D "$DB/pg" >/dev/null 2>&1; then
        say "stopping PostgreSQL"
        as $PG_USER "$bin/pg_ctl" stop -D "$DB/pg" -m fast -w -t $TIMEOUT -s ||
            say "pg_ctl stop -D $DB/pg failed (see $DB/pg.log)" >&2
    fi
}

# ---- MariaDB -------------------------------------------------------------------------------

MY_USER=mysql
my_sock() { echo "$DB/mariadb-run/mariadb.sock"; }
my_pid() { # the pid of our mariadbd, when it runs
    local pid
    pid="$(cat "$DB/mariadb-run/mariadb.pid" 2>/dev/null)" || return 1
    [[ "$pid" =~ ^[0-9]+$ ]] && running "$pid" mariadbd && echo "$pid"
}
# A process (running NAME, when given) that has not exited. An exited one may stay a zombie for a
# second or two, until the process that adopted it (mariadbd runs detached) reaps it.
running() { # PID [NAME]
    local stat_comm
    stat_comm="$(ps -o stat=,comm= -p "$1" 2>/dev/null)" || return 1
    [[ "$stat_comm" != Z* && ( -z "${2:-}" || "$stat_comm" == *" $2" ) ]]
}
my_admin() { mariadb-admin --no-defaults -S "$(my_sock)" -u root "$@"; }
my_up() { my_pid >/dev/null && my_admin ping >/dev/null 2>&1; }

start_my() {
    local bin data="$DB/mariadb" run="$DB/mariadb-run" log="$DB/mariadb.log"
    if ! bin="$(mariadbd_bin)" || ! command -v mariadb-admin >/dev/null; then
        failed+=(MariaDB)
        say "MariaDB could not start: no mariadbd or mariadb-admin (is the mariadb-server package installed?)" >&2
        return 0
    fi
    local as_user=()
    if [[ -n "$IS_ROOT" ]]; then
        id $MY_USER >/dev/null 2>&1 || MY_USER=root
        as_user=(--user=$MY_USER)
    fi
    if my_up; then
        say "MariaDB is already up on 127.0.0.1:$MY_PORT"
    else
        mkdir -p "$run"
        touch "$log"
        own $MY_USER "$run" "$log"
        if [[ ! -d "$data/mysql" ]]; then
            say "mariadb-install-db $data"
            rm -rf "$data"
            mkdir -p "$data"
            own $MY_USER "$data"
            if ! mariadb-install-db --no-defaults --datadir="$data" "${as_user[@]}" \
                --auth-root-authentication-method=normal --skip-test-db --skip-name-resolve >>"$log" 2>&1; then
                fail MariaDB "mariadb-install-db --datadir=$data" "$log"
                rm -rf "$data"
                return 0
            fi
        fi
        say "starting MariaDB $("$bin" --version | grep -o '[0-9][0-9.]*-MariaDB' | head -n1) on 127.0.0.1:$MY_PORT"
        # A test server: InnoDB's log is written at commit but flushed once a second.
        local cmd=("$bin" --no-defaults --datadir="$data" "${as_user[@]}" --bind-address=127.0.0.1
            --port="$MY_PORT" --socket="$(my_sock)" --pid-file="$run/mariadb.pid" --log-error="$log"
            --skip-name-resolve --max-connections=200 --innodb-flush-log-at-trx-commit=2
            --innodb-buffer-pool-dump-at-shutdown=0 --innodb-buffer-pool-load-at-startup=0)
        setsid "${cmd[@]}" </dev/null >>"$log" 2>&1 &
        local pid=$! deadline=$((SECONDS + TIMEOUT))
        until my_admin ping >/dev/null 2>&1; do
            if ! running "$pid"; then
                fail MariaDB "mariadbd --datadir=$data --port=$MY_PORT" "$log"
                return 0
            fi
            if ((SECONDS >= deadline)); then
                fail MariaDB "mariadb-admin ping (for ${TIMEOUT}s)" "$log"
                return 0
            fi
            sleep 0.2
        done
    fi
    if ! mariadb --no-defaults -S "$(my_sock)" -u root >>"$log" 2>&1 <<'EOF'; then
CREATE DATABASE IF NOT EXISTS grail;
CREATE USER IF NOT EXISTS 'grail'@'127.0.0.1';
CREATE USER IF NOT EXISTS 'grail'@'localhost';
GRANT ALL PRIVILEGES ON *.* TO 'grail'@'127.0.0.1' WITH GRANT OPTION;
GRANT ALL PRIVILEGES ON *.* TO 'grail'@'localhost' WITH GRANT OPTION;
EOF
        fail MariaDB "mariadb -e 'CREATE USER grail ...'" "$log"
        return 0
    fi
    echo "export GRAIL_TEST_MYSQL_URL=mysql://grail@127.0.0.1:$MY_PORT/grail" >>"$ENV_NEW"
}

stop_my() {
    local pid deadline=$((SECONDS + TIMEOUT))
    pid="$(my_pid)" || return 0
    say "stopping MariaDB"
    # SIGTERM is a normal shutdown; `mariadb-admin shutdown` would poll the pid file each second.
    kill "$pid" 2>/dev/null || true
    while running "$pid" mariadbd; do
        if ((SECONDS >= deadline)); then
            say "MariaDB (pid $pid) did not stop in ${TIMEOUT}s: killing it"
            kill -9 "$pid" 2>/dev/null || true
            break
        fi
        sleep 0.2
    done
}

# ---- commands ------------------------------------------------------------------------------

case "${1:-}" in
start)
    place_db
    install_missing
    place_db # again: the install may have made the mysql user
    ENV_NEW="$DB/env.new"
    : >"$ENV_NEW"
    start_pg
    start_my
    mv "$ENV_NEW" "$DB/env"
    if [[ ${#failed[@]} -gt 0 ]]; then
        say "not started: ${failed[*]} (its tests skip with a message; under CI=true this fails)" >&2
        [[ "${CI:-}" == true ]] && exit 1
        say "environment of the servers that are up in $DB/env"
    else
        say "both up; environment in $DB/env"
    fi
    ;;
stop)
    [[ -e "$DB" ]] || exit 0
    DB="$(realpath "$DB")"
    stop_pg
    stop_my
    rm -f "$DB/env"
    ;;
status)
    up=0
    [[ -e "$DB" ]] && DB="$(realpath "$DB")"
    if pg_up; then say "PostgreSQL up on 127.0.0.1:$PG_PORT"; up=$((up + 1)); else say "PostgreSQL down"; fi
    if my_up; then say "MariaDB up on 127.0.0.1:$MY_PORT"; up=$((up + 1)); else say "MariaDB down"; fi
    [[ $up -eq 2 ]]
    ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
