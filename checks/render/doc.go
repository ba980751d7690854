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
// Helm: the library is helm.sh/helm/v4 (v4.3.2), the approved line; v3 is
// not. Only public packages are used: pkg/chart/v2 and its loader and util
// (chart API v2 charts, as Helm 3 wrote them), pkg/chart/common and its util
// (values, capabilities, render values), pkg/chart/loader/archive (in-memory
// files), pkg/engine and pkg/ignore. The engine has no cluster client
// (lookup answers nothing) and DNS off (getHostByName answers ""); values
// schemas are not validated (their $ref may name a URL). Two Helm v4 changes
// show in renders: a null in a chart's own values.yaml is dropped from
// .Values, as helm template v4 drops it, and an error raised through include
// is a trace of several lines, which [engineMessage] joins into one. v4.3.2
// builds against the k8s.io v0.37 libraries the module already uses.
//
// Kustomize: sigs.k8s.io/kustomize/api (krusty) v0.21.2 on an in-memory
// file system, builtin generators and transformers only.
package render
