# Sourced by scripts/test at its end: drops the databases the controller's
# tests made (one per test) and stops the PostgreSQL cluster if
# scripts/ensure-postgres.sh started it, so the machine is left as found.
# A cluster left running with a run's databases is, after a power cut or a
# machine snapshot, a recovery that fsyncs every file at the next start.
if [ -n "${PRISM_POSTGRES_STARTED:-}" ] && [ "$(id -u)" -eq 0 ]; then
    read -r pg_version pg_cluster <<<"$PRISM_POSTGRES_STARTED"
    pg_port=$(pg_lsclusters -h | awk -v v="$pg_version" -v c="$pg_cluster" '$1 == v && $2 == c { print $3 }')
    for db in $(su postgres -c "psql -q -p $pg_port -Atc \"SELECT datname FROM pg_database WHERE datname LIKE 'prism_test_%'\""); do
        su postgres -c "dropdb -p $pg_port $db"
    done
    pg_ctlcluster "$pg_version" "$pg_cluster" stop
    echo "== stopped the PostgreSQL cluster the tests started ($pg_version/$pg_cluster)"
fi
