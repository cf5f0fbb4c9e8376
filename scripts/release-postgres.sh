# Sourced by scripts/test at its end: drops the databases the controller's
# tests made (one per test), whoever started the cluster (left, they pile
# up: 2,982 on one machine from runs beside a running cluster, and the
# autovacuum launcher cycling through them took 5% of a core), and stops
# the PostgreSQL cluster if scripts/ensure-postgres.sh started it, so the
# machine is left as found. A cluster left running with a run's databases
# is, after a power cut or a machine snapshot, a recovery that fsyncs
# every file at the next start.
if [ -n "${PRISM_POSTGRES_LOCAL:-}" ] && [ "$(id -u)" -eq 0 ]; then
    read -r pg_version pg_cluster pg_port _ < <(pg_lsclusters -h | head -1)
    for db in $(su postgres -c "psql -q -p $pg_port -Atc \"SELECT datname FROM pg_database WHERE datname LIKE 'prism_test_%'\"" 2>/dev/null); do
        su postgres -c "dropdb -p $pg_port $db"
    done
    if [ -n "${PRISM_POSTGRES_STARTED:-}" ]; then
        read -r pg_version pg_cluster <<<"$PRISM_POSTGRES_STARTED"
        pg_ctlcluster "$pg_version" "$pg_cluster" stop
        echo "== stopped the PostgreSQL cluster the tests started ($pg_version/$pg_cluster)"
    fi
fi
