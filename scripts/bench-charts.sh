#!/usr/bin/env bash
# Times `prodready check` on whole chart repositories against `helm template`
# piped into kube-score, chart by chart, and against kube-linter: every
# chart of the shared corpus's helm-charts/ (prometheus-community and
# argo-helm; charts vendored in another chart's charts/ folder are rendered
# with that chart, not on their own).
#
# Like for like, with each chart's values.yaml only: `prodready check
# --chart-values default`, a loop of `helm template <chart> | kube-score
# score -` (one render a chart), and `kube-linter lint helm-charts/` (which
# renders each chart once, with its values.yaml). With every values set:
# `prodready check` (its default: every ci/*-values.yaml and values-*.yaml
# beside a chart is rendered too) against the same loop over those renders.
# kube-linter is timed when it is on PATH (it is not served by the Go module
# proxy, so this script cannot install it); otherwise the script says it was
# skipped, and docs/performance.md compares with recorded figures.
#
# Both render offline: a chart whose dependencies are not in the repository
# fails in helm (it does not fetch them here) and is counted, as are the
# charts prodready cannot render. prodready is also timed on
# kustomize-examples/ (every root overlay), without a peer (kube-score on
# `kustomize build` would need the kustomize binary). One untimed pass
# also checks charts-more/, and the script reports the share of findings
# on templates that sit at a template's line 1 (goal 0: a line map lost or
# a key not traced puts them there).
#
# Several rounds, one process per tool per round (alternating), wall time,
# CPU time (user + system, children included) and peak RSS (of the largest
# single process) from /usr/bin/time; prints medians and the ratios. On a
# shared machine compare CPU time: wall time also counts waiting for a core.
#
#   scripts/bench-charts.sh [rounds]      (make bench-charts)
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5} # the peer takes seconds a round, so fewer rounds than bench-peers
corpus=../shared/corpus
charts_dir=$corpus/helm-charts
kustomize_dir=$corpus/kustomize-examples
[ -d "$charts_dir" ] || { echo "bench-charts: $charts_dir not present (it sits beside the repository in development and CI)"; exit 1; }
command -v /usr/bin/time >/dev/null || { echo "bench-charts: needs /usr/bin/time (apt-get install time)"; exit 1; }

gobin=$(go env GOPATH)/bin
kubescore=$gobin/kube-score
helm=$gobin/helm
if [ ! -x "$kubescore" ]; then
  echo "installing kube-score v1.20.0 from the Go module proxy…"
  GOFLAGS= go install github.com/zegl/kube-score/cmd/kube-score@v1.20.0
fi
if [ ! -x "$helm" ]; then
  echo "installing helm v4.3.2 from the Go module proxy (many modules: minutes)…"
  GOFLAGS= go install helm.sh/helm/v4/cmd/helm@v4.3.2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# As `make build`.
CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o "$work/prodready" ./cmd/prodready

# The Kubernetes version both render for: prodready's default, passed to
# helm as --kube-version whatever its build takes by default (a helm v3
# built by `go install` took v1.20.0, which charts with a kubeVersion
# constraint refuse; v4 takes its client-go's version).
kubever=$(sed -n 's/^const DefaultKubernetesVersion = "\(.*\)"/\1/p' checks/config.go)
[ -n "$kubever" ] || { echo "bench-charts: no DefaultKubernetesVersion in checks/config.go"; exit 1; }

# The charts: every folder with a Chart.yaml, except those inside a charts/ folder.
find "$charts_dir" -name Chart.yaml | sed 's|/Chart.yaml$||' | sort |
  while IFS= read -r d; do case "${d#"$charts_dir"/}" in */charts/*) ;; *) echo "$d" ;; esac; done > "$work/charts"
nchart=$(wc -l < "$work/charts")
# The renders: each chart with its values.yaml, then once more with each
# values set beside it (ci/*-values.yaml, values-*.yaml), as prodready
# renders them; the peer makes the same renders.
while IFS= read -r d; do
  printf '%s\t\n' "$d"
  for v in "$d"/ci/*-values.yaml "$d"/values-*.yaml "$d"/values-*.yml; do
    if [ -f "$v" ]; then printf '%s\t%s\n' "$d" "$v"; fi
  done
done < "$work/charts" > "$work/renders"
nrender=$(wc -l < "$work/renders")

# One untimed pass of each to count what it renders (-o wide: one line a
# finding, file:line:col first, nothing cut short).
"$work/prodready" check -o wide --output-file "$work/prodready-charts.txt" "$charts_dir" || true
"$work/prodready" check -o wide --output-file "$work/prodready-kustomize.txt" "$kustomize_dir" || true
failed_by() { # failed_by REPORT KIND: the charts or overlays REPORT says cannot be rendered
  grep ' render-failed ' "$1" | sed -n "s|.* the $2 \(.*\) cannot be rendered, .*|\1|p" | sort -u || true
}
partial_by() {
  grep ' render-failed ' "$1" | sed -n "s|.* the $2 \(.*\) is rendered only in part: .*|\1|p" | sort -u || true
}
"$work/prodready" check -o wide --output-file "$work/prodready-charts-more.txt" "$corpus/charts-more" || true
# The share of findings on a chart's template placed at its line 1: a
# template line map lost, or a key whose source was not traced (goal 0).
line1() { # line1 REPORT: "<at line 1> of <on templates>"
  awk '/^[^ ]+:[0-9]+:[0-9]+ / { split($1, a, ":"); if (a[1] ~ /(^|\/)templates\//) { n++; if (a[2] == 1) one++ } }
       END { printf "%d of %d findings on templates (%.1f%%)", one, n, n ? 100 * one / n : 0 }' "$1"
}
# Charts with their values.yaml (a values set that fails is listed apart).
pfail=$(failed_by "$work/prodready-charts.txt" chart | grep -v ' with values ' || true)
ppart=$(partial_by "$work/prodready-charts.txt" chart | grep -v ' with values ' || true)
sfail=$(failed_by "$work/prodready-charts.txt" chart | grep ' with values ' || true)
: > "$work/helm-failed"
: > "$work/kubescore-failed"
while IFS= read -r d; do
  if "$helm" template --kube-version "$kubever" "$d" > "$work/rendered.yaml" 2> "$work/helm.err"; then
    "$kubescore" score --output-format ci - < "$work/rendered.yaml" > "$work/ks.out" 2>&1 || true
    if grep -q 'Failed to score files' "$work/ks.out"; then echo "$d" >> "$work/kubescore-failed"; fi
  else
    printf '%s: %s\n' "$d" "$(grep -m1 . "$work/helm.err" | sed 's/^Error: //; s/^An error occurred while checking for chart dependencies.* fetch missing dependencies: //' | cut -c1-160)" >> "$work/helm-failed"
  fi
done < "$work/charts"
nhfail=$(wc -l < "$work/helm-failed")
count() { if [ -z "$1" ]; then echo 0; else printf '%s\n' "$1" | wc -l; fi; }
short() { sed "s|^$charts_dir/||; s|^$kustomize_dir/||"; }
echo "charts: $nchart in $charts_dir, $nrender renders with their values sets (Kubernetes $kubever for both)"
echo "prodready rendered $((nchart - $(count "$pfail"))) of $nchart ($(count "$ppart") of them only in part)"
[ -z "$pfail" ] || printf '%s\n' "$pfail" | short | sed 's/^/  cannot be rendered: /'
[ -z "$ppart" ] || printf '%s\n' "$ppart" | short | sed 's/^/  only in part: /'
[ -z "$sfail" ] || printf '%s\n' "$sfail" | short | sed 's/^/  a values set cannot be rendered: /'
echo "findings at a template's line 1 (goal 0): helm-charts/ $(line1 "$work/prodready-charts.txt"); charts-more/ $(line1 "$work/prodready-charts-more.txt")"
echo "helm template rendered $((nchart - nhfail)) of $nchart"
short < "$work/helm-failed" | sed 's/^/  fails: /'
[ ! -s "$work/kubescore-failed" ] || short < "$work/kubescore-failed" | sed 's/^/  rendered, but kube-score cannot score it: /'
kfail=$(failed_by "$work/prodready-kustomize.txt" overlay)
kok=$(grep -o '(rendered from the overlay [^)]*)' "$work/prodready-kustomize.txt" | sed 's/^(rendered from the overlay //; s/)$//' | sort -u || true)
echo "overlays in $kustomize_dir: prodready reports findings on $(count "$kok") rendered, $(count "$kfail") cannot be rendered (of $(find "$kustomize_dir" \( -name kustomization.yaml -o -name kustomization.yml -o -name Kustomization \) | wc -l) kustomization folders, bases included)"
[ -z "$kfail" ] || printf '%s\n' "$kfail" | short | sed 's/^/  cannot be rendered: /'

# The peer, one process a round: a loop over the renders (peer.sh RENDERS).
cat > "$work/peer.sh" <<'EOF'
while IFS=$'\t' read -r d v; do
  if [ -n "$v" ]; then set -- -f "$v"; else set --; fi
  "$HELM" template --kube-version "$KUBEVER" "$@" "$d" 2>/dev/null | "$KUBESCORE" score --output-format ci - || true
done < "$1"
EOF
export HELM=$helm KUBESCORE=$kubescore KUBEVER=$kubever
# The renders with values.yaml only: one a chart.
awk -F'\t' '$2 == ""' "$work/renders" > "$work/renders-default"
kubelinter=$(command -v kube-linter || true)

measure() { # measure NAME CMD… : appends "wall_s peak_kib cpu_s" to $work/times-NAME
  local name=$1; shift
  /usr/bin/time -f '%e %M %U %S' -o "$work/t" "$@" >/dev/null 2>&1 || true
  tail -n 1 "$work/t" | awk '{printf "%s %s %.2f\n", $1, $2, $3 + $4}' >> "$work/times-$name"
}
for _ in $(seq "$rounds"); do
  measure prodready-default "$work/prodready" check --chart-values default -o text --output-file /dev/null "$charts_dir"
  if [ -n "$kubelinter" ]; then measure kubelinter "$kubelinter" lint "$charts_dir"; fi
  measure peer-default bash "$work/peer.sh" "$work/renders-default"
  measure prodready "$work/prodready" check -o text --output-file /dev/null "$charts_dir"
  measure peer bash "$work/peer.sh" "$work/renders"
  measure kustomize "$work/prodready" check -o text --output-file /dev/null "$kustomize_dir"
done

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
col() { cut -d' ' -f"$2" "$work/times-$1" | median; }
row() { # row NAME LABEL: the medians of NAME's rounds
  printf '%-58s %8s %8s %14.1f\n' "$2" "$(col "$1" 1)" "$(col "$1" 3)" "$(echo "$(col "$1" 2)/1024" | bc -l)"
}
ratio() { # ratio A B COLUMN: A's median over B's
  echo "$(col "$1" "$3")/$(col "$2" "$3")" | bc -l
}
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3), load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-58s %8s %8s %14s\n' run "wall s" "CPU s" "peak RSS MiB"
row prodready-default "prodready check --chart-values default helm-charts/"
if [ -n "$kubelinter" ]; then row kubelinter "kube-linter lint helm-charts/"; fi
row peer-default "helm template | kube-score, values.yaml only ($nchart)"
row prodready "prodready check helm-charts/ (every values set)"
row peer "helm template | kube-score, every values set ($nrender)"
row kustomize "prodready check kustomize-examples/"
if [ -n "$kubelinter" ]; then
  printf 'values.yaml only: prodready takes %.2fx the wall time and %.2fx the CPU time of kube-linter; its peak RSS is %.2fx\n' \
    "$(ratio prodready-default kubelinter 1)" "$(ratio prodready-default kubelinter 3)" "$(ratio prodready-default kubelinter 2)"
  printf 'every values set: prodready takes %.2fx the CPU time of kube-linter (on values.yaml only) for %.2fx the renders\n' \
    "$(ratio prodready kubelinter 3)" "$(echo "$nrender/$nchart" | bc -l)"
else
  echo "kube-linter: skipped (not on PATH; golang.stackrox.io/kube-linter is not served by the Go module proxy, so this script cannot install it): docs/performance.md compares with recorded figures"
fi
printf 'values.yaml only: prodready is %.2fx faster than helm template | kube-score by wall time, %.2fx by CPU time; its peak RSS is %.2fx that of the largest peer process\n' \
  "$(ratio peer-default prodready-default 1)" "$(ratio peer-default prodready-default 3)" "$(ratio prodready-default peer-default 2)"
printf 'every values set: prodready is %.2fx faster by wall time, %.2fx by CPU time; its peak RSS is %.2fx (medians of %d rounds)\n' \
  "$(ratio peer prodready 1)" "$(ratio peer prodready 3)" "$(ratio prodready peer 2)" "$rounds"
