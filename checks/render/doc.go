// Package render renders Helm charts and kustomize overlays in-process and maps
// every rendered key back to the line its author edits.
//
// The input is the repository as an in-memory [Files] set; nothing is read from
// disk, downloaded, or run. [Discover] finds charts (folders with Chart.yaml)
// and root kustomizations; [Run] renders them under [Options] bounds and
// returns one [Render] per chart values set or overlay. Each Render carries the
// rendered YAML stream, its documents, the input files it consumed, the files
// it left out with a reason, problems met on the way, and a source map:
// [Render.Locate] answers "which file and line does the author edit" for any
// key path of any rendered document.
//
// Helm: the library is helm.sh/helm/v3 (v3.22.0). Helm v4 splits the chart
// API into versioned packages still settling (chart/v2, chartutil moved to
// chart/common) and pulls the same Kubernetes client libraries, so it brings
// no rendering feature prodready needs while v3's loader.LoadFiles, chartutil
// and engine are the stable, widely documented API; v3.22 builds against the
// k8s.io v0.37 libraries the module already uses.
//
// Kustomize: sigs.k8s.io/kustomize/api (krusty) v0.21.2 on an in-memory
// file system, builtin generators and transformers only.
package render
