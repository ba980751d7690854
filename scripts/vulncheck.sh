#!/usr/bin/env bash
# Runs govulncheck over the module. When vuln.go.dev cannot be reached (as on
# machines that only reach the Go module proxy), it reads the same records
# from golang.org/x/vulndb (the OSV records the Go team publishes, served by
# the module proxy): govulncheck takes a directory of OSV files named
# <ID>.json, as vulndb's data/osv is, and indexes it itself (client.newLocalClient;
# upstream tests it, its help does not name it). The vulndb's own gendb
# tool made the served layout from them until 4 December 2026: its build
# (677 packages, with Google Cloud's and go-git's) cost about 115 CPU
# seconds on an empty build cache, and the scan's verdict, findings and
# SBOM were the same from either (the records' modified times differ).
#
# The standard library is part of the binary, so the scan uses the Go
# toolchain releases are built with: the one .release-toolchain names (the
# release builds, the Dockerfile and the Action's build from source use it
# too), fetched through the module proxy, whatever Go this machine runs.
# go.mod has no toolchain line, so building and testing use the Go you have.
#
# Exit status: govulncheck's own (3 = reachable vulnerable code), so
# `make lint` fails on any; VULNCHECK_STRICT=0 prints the report and exits 0
# (for a local run while an advisory has no fix yet). A database that cannot
# be reached skips the scan with a message, exit 0.
set -uo pipefail
cd "$(dirname "$0")/.."
GOVULNCHECK_VERSION=${GOVULNCHECK_VERSION:-v1.9.0}
VULNDB_VERSION=${VULNDB_VERSION:-v0.0.0-20261105234957-e22db6528018}
toolchain=$(tr -d '[:space:]' < .release-toolchain)
if [ -n "$toolchain" ]; then
  export GOTOOLCHAIN=$toolchain
  echo "govulncheck: scanning with the release toolchain $toolchain (.release-toolchain)"
fi
# govulncheck type-checks the standard library of that toolchain, so it is
# built by the same toolchain; one copy per version pair, cached.
cache_root=${XDG_CACHE_HOME:-$HOME/.cache}
vcdir=$cache_root/prodready-govulncheck/$GOVULNCHECK_VERSION-$(go env GOVERSION)
vc=$vcdir/govulncheck
if [ ! -x "$vc" ]; then
  echo "installing govulncheck $GOVULNCHECK_VERSION with $(go env GOVERSION)…"
  GOBIN=$vcdir GOFLAGS= go install "golang.org/x/vuln/cmd/govulncheck@$GOVULNCHECK_VERSION" || { echo "govulncheck: cannot install: skipped"; exit 0; }
fi
db_args=()
if ! curl -fsS -m 5 -o /dev/null https://vuln.go.dev/index/db.json 2>/dev/null; then
  src=$(GOFLAGS= go mod download -json "golang.org/x/vulndb@$VULNDB_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
  [ -f "$src/data/osv/GO-2020-0001.json" ] || { echo "govulncheck: no vulnerability database reachable (vuln.go.dev, golang.org/x/vulndb@$VULNDB_VERSION): skipped"; exit 0; }
  db_args=(-db "file://$src/data/osv")
  echo "govulncheck: vuln.go.dev unreachable: database golang.org/x/vulndb@$VULNDB_VERSION's OSV records (module proxy)"
fi
"$vc" "${db_args[@]}" ./...
rc=$?
if [ $rc -eq 3 ]; then
  echo "govulncheck: vulnerable code is reachable (above): upgrade the module, or the release toolchain in .release-toolchain."
fi
[ "${VULNCHECK_STRICT:-1}" = 0 ] && exit 0
exit $rc
