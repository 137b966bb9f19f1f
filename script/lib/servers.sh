# Shared by script/test, script/bench and script/demo: installs what mirror_bot needs from Debian's packages
# and runs throwaway Postgres and Redis servers on loopback, stopped when the calling script exits.
# Source it from bash; it defines functions only.

# What building and running mirror_bot needs (MeCab and its dictionary; the C libraries it links), and the servers
# the tests and `DEMO_STORES=servers` start (the bot itself runs without them, on one SQLite file).
mirror_bot_packages=(libhiredis-dev libmecab-dev mecab-ipadic-utf8 zlib1g-dev libsqlite3-dev libcbor-dev)
server_packages=(redis-server redis-tools postgresql openssl)

log() { printf '==> %s\n' "$*" >&2; }

# Makes `swift` callable: the toolchain of this machine kind lives in /opt/swift.
ensure_swift() {
    if ! command -v swift >/dev/null 2>&1; then
        if [ -x /opt/swift/usr/bin/swift ]; then
            export PATH="/opt/swift/usr/bin:$PATH"
        else
            log "Swift is not installed: put a Swift 6.1+ toolchain on PATH (this machine kind has it in /opt/swift)."
            exit 1
        fi
    fi
}

# Installs the Debian packages that are missing; does nothing when all are there.
ensure_packages() {
    local missing=()
    for package in "${mirror_bot_packages[@]}" "$@"; do
        if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; then
            missing+=("$package")
        fi
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "Installing ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        if command -v sudo >/dev/null 2>&1; then sudo=(sudo); else
            log "Not root and no sudo: install these packages first: ${missing[*]}"; exit 1
        fi
    fi
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -qq
    # Installing the server packages must not start system-wide servers in containers without systemd.
    "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Installs the Python packages the contract tests use (from PyPI) when they cannot be imported.
ensure_python_packages() {
    if ! python3 -c 'import openapi_schema_validator, referencing' >/dev/null 2>&1; then
        log "Installing openapi-schema-validator from PyPI"
        python3 -m pip install --quiet --disable-pip-version-check openapi-schema-validator \
            || python3 -m pip install --quiet --disable-pip-version-check --break-system-packages openapi-schema-validator
    fi
}

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null && return
    local port
    for port in $(seq 25432 25999); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "$port"; return; fi
    done
    log "No free port found"; exit 1
}

servers_dir=""

stop_servers() {
    [ -n "$servers_dir" ] || return 0
    for pidfile in "$servers_dir"/fake-*.pid; do
        [ -f "$pidfile" ] && { kill "$(cat "$pidfile")" 2>/dev/null || true; }
    done
    for pidfile in "$servers_dir"/redis*.pid; do
        [ -f "$pidfile" ] && { kill "$(cat "$pidfile")" 2>/dev/null || true; }
    done
    local cluster
    for cluster in "$servers_dir/pg" "$servers_dir/tls/pg"; do
        if [ -f "$cluster/postmaster.pid" ]; then
            local pg_ctl; pg_ctl="$(postgres_bin)/pg_ctl"
            as_postgres_owner "$pg_ctl" -D "$cluster" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$servers_dir"
    servers_dir=""
}

# start_fake_x BINARY ARGUMENTS...: starts fake-x (the fake X API; `--seed FILE` or `--persona ...`) on a free
# loopback port and exports FAKE_X_URL; it stops on exit with the rest. FAKE_NAME (default fake-x) names its files,
# so that several fakes can run at once (script/bench-fleet: one per network).
start_fake_x() {
    local binary="$1" name="${FAKE_NAME:-fake-x}"
    shift
    [ -n "$servers_dir" ] || { servers_dir="$(mktemp -d -t mirror_bot_servers.XXXXXX)"; trap stop_servers EXIT; }
    "$binary" "$@" --port 0 >"$servers_dir/$name.out" 2>"$servers_dir/$name.log" &
    echo $! >"$servers_dir/$name.pid"
    local tries=0
    until grep -q "listening on" "$servers_dir/$name.out" 2>/dev/null; do
        tries=$((tries + 1))
        if [ $tries -ge 300 ] || ! kill -0 "$(cat "$servers_dir/$name.pid")" 2>/dev/null; then
            cat "$servers_dir/$name.log" >&2; log "$name did not start"; exit 1
        fi
        sleep 0.1
    done
    FAKE_X_URL="$(grep -o 'http://[^ ]*' "$servers_dir/$name.out")"
    export FAKE_X_URL
    log "$name is serving on $FAKE_X_URL"
}

# The newest installed PostgreSQL server's bin directory.
postgres_bin() {
    local dir
    dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
    [ -n "$dir" ] || { log "PostgreSQL server binaries not found under /usr/lib/postgresql"; exit 1; }
    echo "$dir"
}

# initdb and postgres refuse to run as root: as root, the cluster belongs to the `postgres` system user.
as_postgres_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Starts a throwaway redis-server named NAME in the servers folder; prints its port.
start_redis() {
    local name="$1" port
    port="$(free_port)"
    log "Starting a throwaway Redis ($name) on 127.0.0.1:$port"
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
        --pidfile "$servers_dir/$name.pid" --logfile "$servers_dir/$name.log" --dir "$servers_dir" >/dev/null
    local tries=0
    until redis-cli -p "$port" ping >/dev/null 2>&1; do
        tries=$((tries + 1)); [ $tries -lt 100 ] || { cat "$servers_dir/$name.log" >&2; exit 1; }; sleep 0.1
    done
    echo "$port"
}

# Starts a throwaway Redis Cluster of three masters on loopback (each its own free port, whose cluster bus port, 10000
# above, is free too; no replicas, no persistence), every slot assigned with `redis-cli --cluster create`, and exports
# MIRROR_BOT_TEST_REDIS_CLUSTER_URL (the first node). Stopped on exit with the rest.
start_redis_cluster() {
    local ports=() port tries node
    while [ ${#ports[@]} -lt 3 ]; do
        port="$(free_port)"
        [ "$port" -lt 55535 ] || continue
        (exec 3<>"/dev/tcp/127.0.0.1/$((port + 10000))") 2>/dev/null && continue
        mkdir -p "$servers_dir/cluster-$port"
        redis-server --port "$port" --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file "$servers_dir/cluster-$port/nodes.conf" \
            --cluster-node-timeout 5000 --save "" --appendonly no --daemonize yes --dir "$servers_dir/cluster-$port" \
            --pidfile "$servers_dir/redis-cluster-$port.pid" --logfile "$servers_dir/cluster-$port/redis.log" >/dev/null
        tries=0
        until redis-cli -p "$port" ping >/dev/null 2>&1; do
            tries=$((tries + 1)); [ $tries -lt 100 ] || { cat "$servers_dir/cluster-$port/redis.log" >&2; exit 1; }; sleep 0.1
        done
        ports+=("$port")
    done
    log "Starting a throwaway Redis Cluster of three masters on 127.0.0.1:${ports[0]}, ${ports[1]}, ${ports[2]}"
    redis-cli --cluster create "127.0.0.1:${ports[0]}" "127.0.0.1:${ports[1]}" "127.0.0.1:${ports[2]}" --cluster-replicas 0 --cluster-yes \
        >"$servers_dir/cluster-create.log" 2>&1 || { cat "$servers_dir/cluster-create.log" >&2; exit 1; }
    for node in "${ports[@]}"; do
        tries=0
        until redis-cli -p "$node" cluster info 2>/dev/null | grep -q "cluster_state:ok"; do
            tries=$((tries + 1)); [ $tries -lt 200 ] || { log "The Redis Cluster did not come up"; exit 1; }; sleep 0.1
        done
    done
    export MIRROR_BOT_TEST_REDIS_CLUSTER_URL="redis://127.0.0.1:${ports[0]}"
}

# Makes a throwaway certificate authority and a server certificate it signed for localhost and 127.0.0.1, plus a
# second, unrelated CA (for "a wrong CA fails"), in DIR: ca.pem, server.pem, server.key, wrong-ca.pem.
make_test_certificates() {
    local dir="$1"
    (
        cd "$dir"
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=mirror_bot test CA" -keyout ca.key -out ca.pem >/dev/null 2>&1
        openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=unrelated CA" -keyout wrong-ca.key -out wrong-ca.pem >/dev/null 2>&1
        openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr >/dev/null 2>&1
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext -out server.pem >/dev/null 2>&1
        chmod 600 server.key
    ) || { log "Could not make the test certificates with openssl"; exit 1; }
}

# Starts a second throwaway PostgreSQL that takes TLS connections only (ssl=on, a self-signed CA's certificate,
# hostssl-only pg_hba.conf), and exports MIRROR_BOT_TEST_TLS_DATABASE_URL (no sslmode), MIRROR_BOT_TEST_TLS_CA
# and MIRROR_BOT_TEST_WRONG_CA. Needs start_servers first (the folder and the trap).
start_tls_postgres() {
    local bin port dir="$servers_dir/tls"
    bin="$(postgres_bin)"
    port="$(free_port)"
    mkdir -p "$dir/pg" "$dir/certs"
    [ -f "$dir/certs/ca.pem" ] || make_test_certificates "$dir/certs"
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres "$dir"; fi
    chmod 755 "$dir" "$dir/certs"
    log "Starting a throwaway PostgreSQL with TLS only on 127.0.0.1:$port"
    as_postgres_owner "$bin/initdb" -D "$dir/pg" -U mirror --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    printf 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n' >"$dir/pg/pg_hba.conf"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$dir/pg/pg_hba.conf"; fi
    as_postgres_owner "$bin/pg_ctl" -D "$dir/pg" -l "$dir/pg/server.log" -w -t 60 \
        -o "-p $port -k $dir/pg -c listen_addresses=127.0.0.1 -c fsync=off -c ssl=on -c ssl_cert_file=$dir/certs/server.pem -c ssl_key_file=$dir/certs/server.key" \
        start >/dev/null || { cat "$dir/pg/server.log" >&2; exit 1; }
    as_postgres_owner "$bin/createdb" -h "$dir/pg" -p "$port" -U mirror mirror_bot_tls
    export MIRROR_BOT_TEST_TLS_DATABASE_URL="postgres://mirror@127.0.0.1:$port/mirror_bot_tls"
    export MIRROR_BOT_TEST_TLS_CA="$dir/certs/ca.pem" MIRROR_BOT_TEST_WRONG_CA="$dir/certs/wrong-ca.pem"
}

# Starts a throwaway redis-server that serves TLS only (the same test CA's certificate as the TLS Postgres) and closes
# connections idle for a second (`timeout 1`, as Heroku closes idle clients after 300 s); exports
# MIRROR_BOT_TEST_TLS_REDIS_URL (rediss://) and MIRROR_BOT_TEST_TLS_CA. Needs start_servers first.
start_tls_redis() {
    local port dir="$servers_dir/tls"
    mkdir -p "$dir/certs"
    [ -f "$dir/certs/ca.pem" ] || make_test_certificates "$dir/certs"
    chmod 644 "$dir/certs/server.key"
    port="$(free_port)"
    log "Starting a throwaway Redis with TLS only on 127.0.0.1:$port (idle timeout 1 s)"
    redis-server --port 0 --tls-port "$port" --bind 127.0.0.1 --tls-cert-file "$dir/certs/server.pem" --tls-key-file "$dir/certs/server.key" \
        --tls-ca-cert-file "$dir/certs/ca.pem" --tls-auth-clients no --timeout 1 --save "" --appendonly no --daemonize yes \
        --pidfile "$servers_dir/redis-tls.pid" --logfile "$servers_dir/redis-tls.log" --dir "$servers_dir" >/dev/null
    local tries=0
    until redis-cli --tls --cacert "$dir/certs/ca.pem" -p "$port" ping >/dev/null 2>&1; do
        tries=$((tries + 1)); [ $tries -lt 100 ] || { cat "$servers_dir/redis-tls.log" >&2; exit 1; }; sleep 0.1
    done
    export MIRROR_BOT_TEST_TLS_REDIS_URL="rediss://127.0.0.1:$port/0" MIRROR_BOT_TEST_TLS_CA="$dir/certs/ca.pem"
    export MIRROR_BOT_TEST_WRONG_CA="$dir/certs/wrong-ca.pem"
}

# Starts Postgres and Redis in a fresh temporary folder and exports
# MIRROR_BOT_TEST_DATABASE_URL and MIRROR_BOT_TEST_REDIS_URL. Both stop when the calling shell exits.
start_servers() {
    ensure_packages "${server_packages[@]}"
    servers_dir="$(mktemp -d -t mirror_bot_servers.XXXXXX)"
    trap stop_servers EXIT
    trap 'exit 130' INT TERM
    chmod 755 "$servers_dir"

    local bin pg_port redis_port stats_redis_port
    bin="$(postgres_bin)"
    pg_port="$(free_port)"
    mkdir -p "$servers_dir/pg"
    if [ "$(id -u)" -eq 0 ]; then chown postgres "$servers_dir/pg"; fi
    log "Starting a throwaway PostgreSQL on 127.0.0.1:$pg_port"
    as_postgres_owner "$bin/initdb" -D "$servers_dir/pg" -U mirror --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$servers_dir/initdb.log" 2>&1 \
        || { cat "$servers_dir/initdb.log" >&2; exit 1; }
    as_postgres_owner "$bin/pg_ctl" -D "$servers_dir/pg" -l "$servers_dir/pg/server.log" -w -t 60 \
        -o "-p $pg_port -k $servers_dir/pg -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=400" \
        start >/dev/null || { cat "$servers_dir/pg/server.log" >&2; exit 1; }
    "$bin/createdb" -h 127.0.0.1 -p "$pg_port" -U mirror mirror_bot_test

    redis_port="$(start_redis redis)"
    # A second Redis that only the tests counting server-side commands (INFO commandstats) use.
    stats_redis_port="$(start_redis redis-stats)"

    export MIRROR_BOT_TEST_DATABASE_URL="postgres://mirror@127.0.0.1:$pg_port/mirror_bot_test?sslmode=disable"
    export MIRROR_BOT_TEST_REDIS_URL="redis://127.0.0.1:$redis_port/0"
    export MIRROR_BOT_TEST_STATS_REDIS_URL="redis://127.0.0.1:$stats_redis_port/0"
}
