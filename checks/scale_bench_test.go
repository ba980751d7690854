package checks_test

import (
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
	"github.com/prodready/prodready/checks/report"
	"github.com/prodready/prodready/internal/benchrepo"
)

// syntheticApps returns a repository of n objects in memory: apps of five
// objects each (Deployment, Service, PodDisruptionBudget,
// HorizontalPodAutoscaler, ConfigMap) that reference each other as real
// ones do (the Service and PDB select the Deployment's pods, the HPA scales
// it, the pods read the ConfigMap), one app per file, 50 apps per namespace.
func syntheticApps(n int) []checks.Input {
	var out []checks.Input
	for i := 0; len(out)*5 < n; i++ {
		ns := fmt.Sprintf("team-%d", i/50)
		out = append(out, checks.Input{
			Path: fmt.Sprintf("apps/%s/app-%d.yaml", ns, i),
			Data: []byte(strings.NewReplacer("APP", fmt.Sprintf("app-%d", i), "NS", ns).Replace(syntheticApp)),
		})
	}
	return out
}

// syntheticAppsInOneFile is syntheticApps in one file, as kustomize build
// or helm template print a whole repository.
func syntheticAppsInOneFile(n int) []checks.Input {
	var b strings.Builder
	for _, in := range syntheticApps(n) {
		b.WriteString("---\n")
		b.Write(in.Data)
	}
	return []checks.Input{{Path: "rendered.yaml", Data: []byte(b.String())}}
}

// syntheticConfigMaps returns n ConfigMaps, 100 per file: objects no rule
// but the ConfigMap ones applies to.
func syntheticConfigMaps(n int) []checks.Input {
	var out []checks.Input
	for i := 0; i < n; i += 100 {
		var b strings.Builder
		for j := i; j < i+100 && j < n; j++ {
			fmt.Fprintf(&b, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings-%d\n  namespace: team-%d\ndata:\n  LOG_LEVEL: info\n  FEATURE_X: \"true\"\n", j, j/500)
		}
		out = append(out, checks.Input{Path: fmt.Sprintf("config/cm-%d.yaml", i/100), Data: []byte(b.String())})
	}
	return out
}

const syntheticApp = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: APP
  namespace: NS
  labels:
    app.kubernetes.io/name: APP
    app.kubernetes.io/part-of: shop
spec:
  replicas: 3
  selector:
    matchLabels:
      app.kubernetes.io/name: APP
  template:
    metadata:
      labels:
        app.kubernetes.io/name: APP
        app.kubernetes.io/part-of: shop
    spec:
      serviceAccountName: APP
      containers:
        - name: web
          image: registry.example.com/shop/APP:1.4.2
          ports:
            - name: http
              containerPort: 8080
          envFrom:
            - configMapRef:
                name: APP-config
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
            limits:
              memory: 256Mi
          readinessProbe:
            httpGet:
              path: /ready
              port: http
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            initialDelaySeconds: 10
          securityContext:
            runAsNonRoot: true
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities:
              drop: ["ALL"]
---
` + benchrepo.Companions + `---
apiVersion: v1
kind: ConfigMap
metadata:
  name: APP-config
  namespace: NS
data:
  LOG_LEVEL: info
`

// BenchmarkScale checks synthetic repositories of growing size, one app a
// file and all in one file, with every rule on, the way prodready check does (checks.Run with Memory: Lean and Emit, streaming
// into a text report, discarded); ns/object, B/object
// (allocated) and peak-live-B/object (the largest live heap a collection
// saw) stay level when the cost is linear.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("apps-%d", n), func(b *testing.B) { benchScale(b, syntheticApps(n)) })
	}
	for _, n := range []int{1_000, 10_000} { // 50,000 would be over the 5 MiB file limit
		b.Run(fmt.Sprintf("apps-one-file-%d", n), func(b *testing.B) { benchScale(b, syntheticAppsInOneFile(n)) })
	}
	for _, n := range []int{1_000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("configmaps-%d", n), func(b *testing.B) { benchScale(b, syntheticConfigMaps(n)) })
	}
}

func benchScale(b *testing.B, inputs []checks.Input) {
	var objects int
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	base := liveHeap()
	peak, stop := samplePeakLiveHeap()
	cpu0 := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		run := append([]checks.Input(nil), inputs...) // a lean run releases each input's text
		objects = checkToDiscard(b, run)
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	stop()
	runtime.ReadMemStats(&after)
	per := float64(b.N) * float64(objects)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/per, "ns/object")
	b.ReportMetric(float64(cpu)/per, "cpu-ns/object")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/per, "B/object")
	b.ReportMetric(float64(*peak-base)/float64(objects), "peak-live-B/object")
}

// checkToDiscard checks inputs as the check command does and writes the
// text report to io.Discard; it returns the number of objects checked.
func checkToDiscard(b *testing.B, inputs []checks.Input) int {
	stream, err := report.NewStream(io.Discard, "text", report.Options{})
	if err != nil {
		b.Fatal(err)
	}
	res := checks.Run(inputs, checks.DefaultConfig(catalog.Default()), checks.Options{Memory: checks.Lean, Emit: func(fs []checks.Finding) {
		if err := stream.Add(fs); err != nil {
			b.Fatal(err)
		}
	}})
	if err := stream.Close(res); err != nil {
		b.Fatal(err)
	}
	return res.Objects
}

// liveHeap is the live heap as of the last garbage collection.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// samplePeakLiveHeap records the largest live heap seen every millisecond
// until stop is called (runtime/metrics reads do not stop the world).
func samplePeakLiveHeap() (peak *uint64, stop func()) {
	peak = new(uint64)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			if v := liveHeap(); v > *peak {
				*peak = v
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return peak, func() { close(done); <-finished }
}

// cpuTime is the process's user and system CPU time so far, in
// nanoseconds: on a shared machine it varies far less than wall time.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
