#!/usr/bin/env bash
# install-release.sh: installs prodready from a GitHub
# release, as the GitHub Action (action.yml) does before it reviews.
#
# It finds the release for a ref (a release tag vX.Y.Z as is; a major or
# minor tag such as v1 or v1.4 as the newest vX.Y.Z tag on the same commit,
# read with git ls-remote), downloads the archive GoReleaser made for the OS
# and architecture (.goreleaser.yaml names it
# prodready_<X.Y.Z>_<os>_<arch>.tar.gz, .zip on windows) and the release's
# checksums file, checks the archive's SHA-256 against it, and only then
# puts the binaries in the install directory. Bash on Linux and macOS, and
# Git Bash on Windows; needs curl, tar (unzip, 7z or PowerShell for zip) and
# sha256sum or shasum, and git for a major or minor tag.
#
# Usage:
#   install-release.sh --version REF --os OS --arch ARCH --dir DIR [--repo OWNER/NAME]
#       [--base-url URL] [--repo-url URL] [--action-path PATH] [--resolve-only]
#
#   --version REF      the action's ref (github.action_ref): v1.2.3, v1, v1.2,
#                      or a branch or commit SHA (no release: exit 3)
#   --action-path PATH github.action_path, read for the ref when REF is empty
#                      (GitHub leaves github.action_ref empty in some composite
#                      contexts; the runner keeps actions in _actions/OWNER/REPO/REF)
#   --os OS            linux, darwin or windows (or runner.os: Linux, macOS, Windows)
#   --arch ARCH        amd64 or arm64 (or runner.arch: X64, ARM64)
#   --dir DIR          where prodready is put
#                      (--os, --arch and --dir are not needed with --resolve-only)
#   --repo OWNER/NAME  the repository whose releases these are (github.action_repository;
#                      default: from the action path, else prodready/prodready)
#   --base-url URL     releases download URL, the version's folder under it
#                      (default https://github.com/OWNER/NAME/releases/download)
#   --repo-url URL     git remote whose tags resolve v1 and v1.2
#                      (default https://github.com/OWNER/NAME.git)
#   --resolve-only     print the release version for REF and exit (no download)
#
# Standard output: with --resolve-only the version (v1.2.3); otherwise the
# path of the installed prodready. On exit 3, the reason instead, one
# line, for the action's notice. Progress goes to standard error.
#
# Exit codes:
#   0  done
#   1  failed: a download error, a checksum mismatch, an archive without the
#      binaries, git ls-remote failing; nothing is installed
#   2  bad usage
#   3  no release for this ref and platform (a branch or SHA, a major tag no
#      release tag shares a commit with, a platform with no archive, or the
#      release's files answer 404): the caller may build from source
set -euo pipefail

EXIT_FAILED=1
EXIT_USAGE=2
EXIT_NO_RELEASE=3

base_url="" repo_url="" repo=""
ref="" os="" arch="" dir="" action_path="" resolve_only=false

log() { echo "install-release: $*" >&2; }
fail() { log "$*"; exit "$EXIT_FAILED"; }
usage() { log "$*"; log "usage: install-release.sh --version REF --os OS --arch ARCH --dir DIR [--base-url URL] [--repo-url URL] [--action-path PATH] [--resolve-only]"; exit "$EXIT_USAGE"; }
# no_release prints why there is no release to use, on standard output for
# the caller's notice, and exits 3.
no_release() { echo "$*"; exit "$EXIT_NO_RELEASE"; }

while [ $# -gt 0 ]; do
	case "$1" in
	--version | --os | --arch | --dir | --repo | --base-url | --repo-url | --action-path)
		[ $# -ge 2 ] || usage "$1 needs a value"
		case "$1" in
		--version) ref=$2 ;;
		--os) os=$2 ;;
		--arch) arch=$2 ;;
		--dir) dir=$2 ;;
		--repo) repo=$2 ;;
		--base-url) base_url=${2%/} ;;
		--repo-url) repo_url=$2 ;;
		--action-path) action_path=$2 ;;
		esac
		shift 2
		;;
	--resolve-only) resolve_only=true; shift ;;
	-h | --help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p;}' "$0"; exit 0 ;;
	*) usage "unknown argument: $1" ;;
	esac
done

# The runner keeps an action at .../_actions/OWNER/REPO/REF (REF may hold
# slashes: a branch feature/x); what GitHub left empty is read from there. A
# local action (uses: ./) has no such path: no ref, and so no release.
if [ -n "$action_path" ]; then
	p=${action_path//\\//}
	case "$p" in
	*/_actions/*/*/*)
		rest=${p#*/_actions/}
		owner=${rest%%/*} rest=${rest#*/}
		name=${rest%%/*}
		if [ -z "$repo" ]; then repo=$owner/$name; fi
		if [ -z "$ref" ]; then
			ref=${rest#*/}
			log "the action's ref from its path: $ref"
		fi
		;;
	esac
fi
repo=${repo:-prodready/prodready}
if ! [[ $repo =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]]; then usage "--repo $repo is not OWNER/NAME"; fi
base_url=${base_url:-https://github.com/$repo/releases/download}
repo_url=${repo_url:-https://github.com/$repo.git}

# --os, --arch and --dir are needed to install, not to resolve.
if ! $resolve_only; then
	[ -n "$os" ] || usage "--os is required"
	[ -n "$arch" ] || usage "--arch is required"
	[ -n "$dir" ] || usage "--dir is required"
fi
case "$os" in
linux | Linux) os=linux ;;
darwin | macOS | macos) os=darwin ;;
windows | Windows) os=windows ;;
"") ;;
*) usage "unknown OS $os (want linux, darwin or windows)" ;;
esac
case "$arch" in
amd64 | X64 | x64 | x86_64) arch=amd64 ;;
arm64 | ARM64 | aarch64) arch=arm64 ;;
X86 | x86 | 386 | ARM | arm) ;; # a real platform with no release archive: exit 3 below
"") ;;
*) usage "unknown architecture $arch (want amd64 or arm64)" ;;
esac
# Git Bash on Windows: runner paths arrive as D:\a\_temp\…
if [[ $dir =~ ^[A-Za-z]:[\\/] ]] && command -v cygpath >/dev/null 2>&1; then dir=$(cygpath -u "$dir"); fi

release_re='^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$'
# resolve sets version to the release for ref, or exits 3. It runs in this
# shell (never in a $(…) subshell) so that its exits end the script.
resolve() {
	if [ -z "$ref" ]; then
		no_release "the action runs from a local path or its ref is unknown, so it has no release"
	fi
	if [[ $ref =~ $release_re ]]; then
		version=$ref
		return
	fi
	if [[ $ref =~ ^[0-9a-f]{40}$ ]]; then
		no_release "the action's ref $ref is a commit SHA; releases are found for tags (vX.Y.Z, or a major tag like v1)"
	fi
	if ! [[ $ref =~ ^v[0-9]+(\.[0-9]+)?$ ]]; then
		no_release "the action's ref $ref is not a release tag (vX.Y.Z, or a major tag like v1)"
	fi
	local tags
	if ! tags=$(git ls-remote --tags "$repo_url" 2>&1); then
		fail "cannot list the tags of $repo_url to resolve $ref: $tags"
	fi
	# The commit of each tag: an annotated tag's peeled line (name^{})
	# overrides the tag object's. Then the newest vX.Y.Z tag (no pre-release)
	# under ref on ref's commit.
	local found
	found=$(printf '%s\n' "$tags" | awk -v ref="$ref" '
		$2 ~ /^refs\/tags\// {
			name = substr($2, 11); peeled = sub(/\^\{\}$/, "", name)
			if (peeled || !(name in commit)) commit[name] = $1
		}
		END {
			if (!(ref in commit)) { print "notag"; exit }
			best = ""; bx = -1; by = -1; bz = -1
			for (name in commit) {
				if (commit[name] != commit[ref] || index(name, ref ".") != 1) continue
				if (name !~ /^v[0-9]+\.[0-9]+\.[0-9]+$/) continue
				split(substr(name, 2), v, ".")
				x = v[1] + 0; y = v[2] + 0; z = v[3] + 0
				if (x > bx || (x == bx && (y > by || (y == by && z > bz)))) { best = name; bx = x; by = y; bz = z }
			}
			print (best == "" ? "none " commit[ref] : "ok " best)
		}')
	case "$found" in
	ok\ *) version=${found#ok }; log "$ref is release $version" ;;
	notag) no_release "the action's ref $ref is not a tag of $repo_url" ;;
	*) no_release "no release tag ${ref}.* points to the commit of $ref (${found#none })" ;;
	esac
}

version=""
resolve
if $resolve_only; then
	echo "$version"
	exit 0
fi

if [ "$arch" != amd64 ] && [ "$arch" != arm64 ]; then
	no_release "release $version has no archive for $os/$arch (only amd64 and arm64)"
fi

plain=${version#v}
ext=tar.gz
exe=""
if [ "$os" = windows ]; then ext=zip exe=.exe; fi
archive="prodready_${plain}_${os}_${arch}.${ext}"
checksums="prodready_${plain}_checksums.txt"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/prodready-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# fetch downloads URL to FILE; a 404 means the release (or this platform's
# archive) does not exist. Like resolve, it runs in this shell.
fetch() {
	local url=$1 file=$2 code
	log "downloading $url"
	if ! code=$(curl -sSL --retry 3 --retry-delay 2 --connect-timeout 20 -o "$file" -w '%{http_code}' "$url"); then
		fail "cannot download $url (curl failed${code:+, HTTP $code})"
	fi
	case "$code" in
	200) ;;
	404) no_release "release $version has no $(basename "$file") ($url: 404)" ;;
	*) fail "cannot download $url: HTTP $code" ;;
	esac
}
fetch "$base_url/$version/$checksums" "$tmp/$checksums"
fetch "$base_url/$version/$archive" "$tmp/$archive"

want=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$tmp/$checksums")
if [ -z "$want" ]; then
	fail "$checksums has no entry for $archive: nothing installed"
fi
if [ "$(printf '%s\n' "$want" | wc -l)" -ne 1 ] || ! [[ $want =~ ^[0-9a-f]{64}$ ]]; then
	fail "$checksums has no single SHA-256 for $archive: nothing installed"
fi
if command -v sha256sum >/dev/null 2>&1; then
	got=$(sha256sum "$tmp/$archive" | awk '{ print $1 }')
elif command -v shasum >/dev/null 2>&1; then
	got=$(shasum -a 256 "$tmp/$archive" | awk '{ print $1 }')
else
	fail "neither sha256sum nor shasum is installed, so $archive cannot be verified: nothing installed"
fi
got=${got#\\} # sha256sum escapes the line of a name with a backslash
if [ "$got" != "$want" ]; then
	fail "checksum mismatch for $archive: $checksums says $want, the download is $got: nothing installed"
fi
log "$archive: SHA-256 $got matches $checksums"

mkdir "$tmp/x"
case "$ext" in
tar.gz) tar -xzf "$tmp/$archive" -C "$tmp/x" || fail "cannot unpack $archive" ;;
zip)
	if command -v unzip >/dev/null 2>&1; then
		unzip -q -o "$tmp/$archive" -d "$tmp/x" || fail "cannot unpack $archive"
	elif command -v 7z >/dev/null 2>&1; then
		7z x -y -o"$tmp/x" "$tmp/$archive" >/dev/null || fail "cannot unpack $archive"
	elif command -v powershell >/dev/null 2>&1; then
		powershell -NoProfile -Command "Expand-Archive -Force -LiteralPath '$(cygpath -w "$tmp/$archive")' -DestinationPath '$(cygpath -w "$tmp/x")'" || fail "cannot unpack $archive"
	else
		fail "no unzip, 7z or PowerShell to unpack $archive"
	fi
	;;
esac
[ -f "$tmp/x/prodready$exe" ] || fail "$archive has no prodready$exe: nothing installed"
chmod +x "$tmp/x/prodready$exe"

mkdir -p "$dir"
mv -f "$tmp/x/prodready$exe" "$dir/prodready$exe"
log "installed prodready $version ($os/$arch) in $dir"
echo "$dir/prodready$exe"
