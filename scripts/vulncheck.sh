#!/usr/bin/env bash
# Runs govulncheck over the module. When vuln.go.dev cannot be reached (as on
# machines that only reach the Go module proxy), it builds the same database
# from golang.org/x/vulndb (the OSV records the Go team publishes, served by
# the module proxy) with the vulndb's own gendb tool, cached per version.
#
# Exit status: govulncheck's own with VULNCHECK_STRICT=1 (3 = reachable
# vulnerable code); otherwise 0 after printing the report, so a known,
# documented finding does not block unrelated work (see README, "Keeping
# dependencies current").
set -uo pipefail
cd "$(dirname "$0")/.."
GOVULNCHECK_VERSION=${GOVULNCHECK_VERSION:-v1.9.0}
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}
gobin=$(go env GOPATH)/bin
vc=$(command -v govulncheck || echo "$gobin/govulncheck")
if [ ! -x "$vc" ]; then
  echo "installing govulncheck $GOVULNCHECK_VERSION…"
  GOFLAGS= go install "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION" || { echo "govulncheck: cannot install: skipped"; exit 0; }
fi
db_args=()
if ! curl -fsS -m 5 -o /dev/null https://vuln.go.dev/index/db.json 2>/dev/null; then
  cache=${XDG_CACHE_HOME:-$HOME/.cache}/prodready-vulndb/$VULNDB_VERSION
  if [ ! -f "$cache/index/db.json" ]; then
    echo "vuln.go.dev unreachable: building the database from golang.org/x/vulndb@$VULNDB_VERSION (module proxy)…"
    src=$(GOFLAGS= go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
    repo=$(mktemp -d)
    cp -r "$src/data" "$repo/" && chmod -R u+w "$repo"
    (cd "$repo" && git init -q && git add -A && git -c user.email=ci@prodready -c user.name=ci commit -qm vulndb) &&
      GOFLAGS= go run "golang.org/x/vulndb/cmd/gendb@$VULNDB_VERSION" -repo "$repo" -out "$cache.tmp" >/dev/null 2>&1 &&
      mv "$cache.tmp" "$cache"
    rm -rf "$repo" "$cache.tmp"
    [ -f "$cache/index/db.json" ] || { echo "govulncheck: no vulnerability database reachable: skipped"; exit 0; }
  fi
  db_args=(-db "file://$cache")
  echo "govulncheck: database golang.org/x/vulndb@$VULNDB_VERSION"
fi
"$vc" "${db_args[@]}" ./...
rc=$?
if [ $rc -eq 3 ]; then
  echo "govulncheck: vulnerable code is reachable (above)."
  [ "${VULNCHECK_STRICT:-0}" = 1 ] && exit 3
  exit 0
fi
[ "${VULNCHECK_STRICT:-0}" = 1 ] && exit $rc
exit 0
