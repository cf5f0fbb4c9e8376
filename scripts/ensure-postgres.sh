# Sourced: makes a PostgreSQL server from Debian's package run on this
# machine, with a role for the controller's tests, and exports
# PRISM_POSTGRES_URL (a URL; scripts/test hands it to the controller's
# tests as PRISM_TEST_POSTGRES for their second run). Root only (it installs and starts a
# service); without root it leaves PRISM_POSTGRES_URL as it was.
if [ "$(id -u)" -eq 0 ] && [ -z "${PRISM_POSTGRES_URL:-}" ]; then
    if ! command -v pg_lsclusters >/dev/null 2>&1; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    fi
    read -r pg_version pg_cluster pg_port pg_status _ < <(pg_lsclusters -h | head -1)
    if [ -z "${pg_version:-}" ]; then
        pg_version=$(ls /usr/lib/postgresql | sort -n | tail -1)
        pg_createcluster "$pg_version" main >/dev/null
        read -r pg_version pg_cluster pg_port pg_status _ < <(pg_lsclusters -h | head -1)
    fi
    if [ "$pg_status" != online ]; then
        # pg_ctl waits 60 s by default; a cluster that was not shut down
        # cleanly first fsyncs its whole data directory and replays its
        # WAL (CI, 2026-11-26: 28 s of fsync beside the build, then
        # "server did not start in time"). Wait as long as recovery takes.
        pg_ctlcluster "$pg_version" "$pg_cluster" start -- -t 600
        # Stopped again at the end of the tests (scripts/test), so the
        # machine is left as found and never holds a cluster mid-run.
        export PRISM_POSTGRES_STARTED="$pg_version $pg_cluster"
    fi
    # A local role for tests only: it may create the databases the tests
    # make (one per test) and nothing else.
    su postgres -c "psql -q -p $pg_port -tc \"SELECT 1 FROM pg_roles WHERE rolname = 'prism_test'\"" | grep -q 1 ||
        su postgres -c "psql -q -p $pg_port -c \"CREATE ROLE prism_test LOGIN CREATEDB PASSWORD 'prism-test'\""
    # Databases earlier test runs left.
    for db in $(su postgres -c "psql -q -p $pg_port -Atc \"SELECT datname FROM pg_database WHERE datname LIKE 'prism_test_%'\""); do
        su postgres -c "dropdb -p $pg_port $db"
    done
    export PRISM_POSTGRES_URL="postgres://prism_test:prism-test@127.0.0.1:$pg_port/postgres"
    # The local cluster's: scripts/release-postgres.sh drops the tests'
    # databases in it at the end.
    export PRISM_POSTGRES_LOCAL=1
fi
