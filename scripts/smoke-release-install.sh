#!/usr/bin/env bash
# smoke-release-install.sh: the Action's download against the real release
# artifacts. It checks dist/ (what `make release-snapshot` made) against its
# checksums file, serves it on 127.0.0.1 laid out as GitHub Releases serves
# a release (/<tag>/<file>), installs the linux/amd64 archive from there with
# scripts/install-release.sh exactly as action.yml does, and runs the
# installed binaries, which must report the snapshot's version.
# .ci/run runs it right after `make release-snapshot`.
set -euo pipefail
cd "$(dirname "$0")/.."

meta=dist/metadata.json
if [ ! -f "$meta" ]; then
	echo "smoke-release-install: no $meta: run make release-snapshot first" >&2
	exit 1
fi
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$meta")
if [ -z "$version" ]; then
	echo "smoke-release-install: no version in $meta" >&2
	exit 1
fi
checksums=prodready_${version}_checksums.txt
echo "smoke-release-install: snapshot $version"
(cd dist && sha256sum --quiet -c "$checksums")
echo "smoke-release-install: every file of $checksums matches"

tmp=$(mktemp -d)
server=""
cleanup() {
	if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
mkdir "$tmp/www"
ln -s "$PWD/dist" "$tmp/www/v$version"

# A static file server on a free loopback port, which it writes to a file.
python3 - "$tmp/www" "$tmp/port" >"$tmp/server.log" 2>&1 <<'PY' &
import functools, http.server, os, sys
handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_port))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
PY
server=$!
for _ in $(seq 100); do
	[ -f "$tmp/port" ] && break
	kill -0 "$server" 2>/dev/null || { cat "$tmp/server.log" >&2; exit 1; }
	sleep 0.1
done
port=$(cat "$tmp/port")

bin=$(bash scripts/install-release.sh --version "v$version" --os Linux --arch X64 \
	--dir "$tmp/bin" --base-url "http://127.0.0.1:$port")
if [ "$bin" != "$tmp/bin/prodready" ]; then
	echo "smoke-release-install: install-release.sh printed $bin, want $tmp/bin/prodready" >&2
	exit 1
fi
if [ "$(uname -s)/$(uname -m)" != Linux/x86_64 ]; then
	echo "smoke-release-install: installed; not run here ($(uname -s)/$(uname -m) is not linux/amd64)"
	exit 0
fi
got=$("$tmp/bin/prodready" version)
if [ "$got" != "prodready $version" ]; then
	echo "smoke-release-install: prodready version says '$got', want 'prodready $version'" >&2
	exit 1
fi
echo "smoke-release-install: installed prodready $version for linux/amd64 from the snapshot, and it runs"
