#!/usr/bin/env bash
# Peak RSS and time of `prodready check` (text, json, sarif) and `prodready
# fix --all` on generated repositories (internal/synthrepo: apps of a
# Deployment, Service, PodDisruptionBudget and HorizontalPodAutoscaler) of
# 1,000, 10,000 and 50,000 objects, one app a file and all in one stream.
# One process per run, measured by /usr/bin/time; prints, per run, wall
# and CPU seconds, peak RSS and the MiB per 1,000 objects above the base
# (the peak of `check` on one app). The target: at most 5 MiB per 1,000
# objects above the base at 50,000 objects.
#
#   scripts/bench-scale.sh [sizes…]     (make bench-scale; default 1000 10000 50000)
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=("${@:-1000}")
[ $# -gt 0 ] || sizes=(1000 10000 50000)
command -v /usr/bin/time >/dev/null || { echo "bench-scale: needs /usr/bin/time (apt-get install time)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$work/prodready" ./cmd/prodready
go build -o "$work/gen" ./internal/synthrepo/gen
# A stream of 50,000 objects is 32 MB, over the 5 MiB a file check reads
# by default: the repositories' config lifts the limit.
printf 'limits:\n  maxFileBytes: 268435456\n' > "$work/config.yaml"

measure() { # measure LABEL OBJECTS CMD… : prints one row
  local label=$1 objects=$2; shift 2
  /usr/bin/time -f '%e %U %S %M' -o "$work/t" "$@" >/dev/null 2>"$work/err" || {
    # check exits 1 on findings; anything else is a failure of the run.
    code=$?; [ $code -eq 1 ] || { echo "bench-scale: $label failed ($code):"; cat "$work/err"; exit 1; }
  }
  read -r wall user sys kib < <(tail -n 1 "$work/t")
  awk -v l="$label" -v n="$objects" -v w="$wall" -v u="$user" -v s="$sys" -v k="$kib" -v b="$base" \
    'BEGIN { printf "| %-34s | %6d | %7.2f | %7.2f | %8.1f | %6.2f |\n", l, n, w, u + s, k / 1024, (k - b) / 1024 / (n / 1000) }'
}

"$work/gen" -objects 4 -out "$work/one"
/usr/bin/time -f '%M' -o "$work/t" "$work/prodready" check -c "$work/config.yaml" -o text --output-file /dev/null "$work/one" 2>/dev/null || true
base=$(tail -n 1 "$work/t")
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), $(go env GOVERSION); load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "base (check on one app of 4 objects): $(awk -v k="$base" 'BEGIN { printf "%.1f", k / 1024 }') MiB peak RSS"
echo
echo "| run | objects | wall s | CPU s | peak MiB | MiB/1k above base |"
echo "|---|---:|---:|---:|---:|---:|"
for n in "${sizes[@]}"; do
  rm -rf "$work/repo" "$work/stream" "$work/fix"
  "$work/gen" -objects "$n" -out "$work/repo"
  "$work/gen" -objects "$n" -out "$work/stream" -one-stream
  for format in text json sarif; do
    measure "check -o $format, one app a file" "$n" "$work/prodready" check -c "$work/config.yaml" -o "$format" --output-file /dev/null "$work/repo"
  done
  for format in text json sarif; do
    measure "check -o $format, one stream" "$n" "$work/prodready" check -c "$work/config.yaml" -o "$format" --output-file /dev/null "$work/stream"
  done
  cp -r "$work/repo" "$work/fix"
  measure "fix --all, one app a file" "$n" "$work/prodready" fix -c "$work/config.yaml" --all "$work/fix"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
