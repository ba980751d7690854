#!/usr/bin/env bash
# Times `prodready check` against kube-score v1.20.0 over the same files of
# the shared corpus: the plain manifests that kube-score accepts (it aborts a
# whole run on the first file it cannot parse, so those are left out for
# both). Both tools print one line per finding (prodready text, kube-score
# --output-format ci). Several rounds, one process per tool per round (alternating), wall
# time, CPU time (user + system) and peak RSS from /usr/bin/time; prints
# medians and the ratios. On a shared machine compare CPU time: wall time
# also counts waiting for a core. Then a few rounds more, not timed, sample
# each process's /proc/PID/status every 10 ms to say what its peak RSS is
# made of: the binary's pages (RssFile, the executable mapped from the page
# cache) and anonymous memory (RssAnon: the heap, stacks, the runtime).
#
#   scripts/bench-peers.sh [rounds]      (make bench-peers)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-11} # as the README's figures: medians of fewer rounds move more between runs
corpus=../shared/corpus
[ -d "$corpus" ] || { echo "bench-peers: $corpus not present (it sits beside the repository in development and CI)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "bench-peers: needs /usr/bin/time (apt-get install time)"; exit 1; }

gobin=$(go env GOPATH)/bin
kubescore=$gobin/kube-score
if [ ! -x "$kubescore" ]; then
  echo "installing kube-score v1.20.0 from the Go module proxy…"
  GOFLAGS= go install github.com/zegl/kube-score/cmd/kube-score@v1.20.0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$work/prodready" ./cmd/prodready

# The file list: plain manifests (not Helm templates or values, and not the
# chart repositories of helm-charts/, whose charts `make bench-charts` renders) that
# kube-score can parse on its own (it prints "Failed to score files" for the
# others). Kept in a cache, since asking kube-score file by file takes minutes.
cache=${XDG_CACHE_HOME:-$HOME/.cache}/prodready-bench
mkdir -p "$cache"
list=$cache/kube-score-accepted-plain.txt
if [ ! -s "$list" ] || [ "$corpus" -nt "$list" ]; then
  echo "asking kube-score which files it accepts (once; cached in $list)…"
  find "$corpus" -type f \( -name '*.yaml' -o -name '*.yml' \) \
    -not -path '*/helm-templates/*' -not -path '*/helm-values/*' -not -path '*/kyverno-helm-values/*' -not -path '*/helm-charts/*' |
    sort | KS="$kubescore" xargs -d '\n' -P "$(nproc)" -n 1 sh -c \
      '"$KS" score "$0" 2>&1 | grep -q "Failed to score files" || echo "$0"' | sort > "$list.tmp"
  mv "$list.tmp" "$list"
fi
# Files that belong to a Helm chart or a kustomize overlay (a folder above them
# holds Chart.yaml or a kustomization) are left out as well: prodready checks a
# file named inside a chart or an overlay as part of it, rendered, while
# kube-score reads it as plain YAML, so they are not like for like. `make
# bench-charts` measures charts rendered.
roots=$(find "$corpus" -type f \( -name Chart.yaml -o -name kustomization.yaml -o -name kustomization.yml -o -name Kustomization \) -printf '%h/\n' | sort -u)
mapfile -t files < <(awk 'NR == FNR { root[++n] = $0; next }
  { for (i = 1; i <= n; i++) if (index($0, root[i]) == 1) next; print }' <(printf '%s\n' "$roots") "$list")
total=$(find "$corpus" -type f \( -name '*.yaml' -o -name '*.yml' \) -not -path '*/helm-templates/*' -not -path '*/helm-values/*' -not -path '*/kyverno-helm-values/*' -not -path '*/helm-charts/*' | wc -l)
echo "files: ${#files[@]} of $total plain manifests (kube-score rejects $(( total - $(wc -l < "$list") )); $(( $(wc -l < "$list") - ${#files[@]} )) belong to a chart or an overlay)"

measure() { # measure NAME CMD… : appends "wall_s peak_kib cpu_s" to $work/times-NAME
  local name=$1; shift
  /usr/bin/time -f '%e %M %U %S' -o "$work/t" "$@" "${files[@]}" >/dev/null 2>&1 || true
  tail -n 1 "$work/t" | awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' >> "$work/times-$name"
}
for _ in $(seq "$rounds"); do
  measure prodready "$work/prodready" check -o text --output-file /dev/null
  measure kubescore "$kubescore" score --output-format ci
done

# sample NAME CMD… : runs CMD on the files, reading its /proc/PID/status
# every 10 ms, and appends "anon_kib file_kib" (the largest of each seen) to
# $work/rss-NAME. A sample can miss a peak shorter than 10 ms, so the two can
# add up to less than the peak /usr/bin/time reports.
sample() {
  local name=$1; shift
  "$@" "${files[@]}" >/dev/null 2>&1 &
  local pid=$! anon=0 file=0 key value _
  while [ -r "/proc/$pid/status" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do
    while read -r key value _; do
      case $key in
        RssAnon:) [ "$value" -gt "$anon" ] && anon=$value ;;
        RssFile:) [ "$value" -gt "$file" ] && file=$value ;;
      esac
    done 2>/dev/null < "/proc/$pid/status" || true
    sleep 0.01
  done
  wait "$pid" || true
  echo "$anon $file" >> "$work/rss-$name"
}
samples=$(( rounds < 3 ? rounds : 3 ))
for _ in $(seq "$samples"); do
  sample prodready "$work/prodready" check -o text --output-file /dev/null
  sample kubescore "$kubescore" score --output-format ci
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
col() { cut -d' ' -f"$2" "$work/times-$1" | median; }
pw=$(col prodready 1); pm=$(col prodready 2); pc=$(col prodready 3)
kw=$(col kubescore 1); km=$(col kubescore 2); kc=$(col kubescore 3)
rss() { cut -d' ' -f"$2" "$work/rss-$1" | median | awk '{printf "%.1f", $1/1024}'; }
pa=$(rss prodready 1); pf=$(rss prodready 2); ka=$(rss kubescore 1); kf=$(rss kubescore 2)
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %8s %8s %14s %10s %10s %10s\n' tool "wall s" "CPU s" "peak RSS MiB" "anon MiB" "file MiB" "binary MB"
printf '%-12s %8s %8s %14.1f %10s %10s %10.1f\n' prodready "$pw" "$pc" "$(echo "$pm/1024" | bc -l)" "$pa" "$pf" "$(stat -c %s "$work/prodready" | awk '{print $1/1e6}')"
printf '%-12s %8s %8s %14.1f %10s %10s %10.1f\n' kube-score "$kw" "$kc" "$(echo "$km/1024" | bc -l)" "$ka" "$kf" "$(stat -c %s "$kubescore" | awk '{print $1/1e6}')"
echo "anon and file MiB: the largest RssAnon and RssFile sampled every 10 ms (medians of $samples rounds, not timed); file is the binary's pages"
printf 'prodready is %.2fx faster by wall time, %.2fx by CPU time; its peak RSS is %.2fx kube-score'"'"'s (medians of %d rounds)\n' \
  "$(echo "$kw/$pw" | bc -l)" "$(echo "$kc/$pc" | bc -l)" "$(echo "$pm/$km" | bc -l)" "$rounds"
