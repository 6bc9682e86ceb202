#!/bin/sh
# Creates Temporal's two databases on the compose PostgreSQL and brings their schemas to the image's
# version. Safe to run on every start: existing databases and schemas are kept and only migrated.
set -eu
tool() { temporal-sql-tool --plugin postgres12 --ep postgres -p 5432 -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"; }
for db in temporal temporal_visibility; do
  tool --db "$db" create-database || echo "database $db exists"
done
tool --db temporal setup-schema -v 0.0 || echo "temporal schema exists"
tool --db temporal update-schema -d /etc/temporal/schema/postgresql/v12/temporal/versioned
tool --db temporal_visibility setup-schema -v 0.0 || echo "visibility schema exists"
tool --db temporal_visibility update-schema -d /etc/temporal/schema/postgresql/v12/visibility/versioned
