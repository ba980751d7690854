package checks_test

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/prodready/prodready/checks/catalog"

	"github.com/prodready/prodready/checks"
)

// good is a file that must still be checked beside every hostile one.
var good = checks.Input{Path: "good.yaml", Data: []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: web:1
          readinessProbe: {tcpSocket: {port: undeclared}}
`)}

func aliasBomb() []byte {
	var b strings.Builder
	b.WriteString("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= 9; i++ {
		p := fmt.Sprintf("*a%d", i-1)
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(p+", ", 9), ", "))
	}
	return []byte(b.String())
}

func millionKeys() []byte {
	var b bytes.Buffer
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n")
	for i := 0; i < 1_000_000; i++ {
		fmt.Fprintf(&b, "  k%d: v\n", i)
	}
	return b.Bytes()
}

// TestHostileInput runs each hostile file beside a good one: each must end
// with a clear finding (or be read correctly), the good file must still be
// checked, and the run must stay under an allocation ceiling.
func TestHostileInput(t *testing.T) {
	for _, tc := range []struct {
		name      string
		data      []byte
		wantRule  string // "" when the input is valid and must read cleanly
		wantText  string
		maxAllocs uint64 // bytes allocated by the whole run
	}{
		{"billion laughs", aliasBomb(), "yaml-invalid", "alias bomb", 64 << 20},
		{"50 MiB file", bytes.Repeat([]byte("a: b\n"), 50<<20/5), "yaml-invalid", "over the 5.0 MiB limit", 16 << 20},
		{"100k-deep flow nesting", []byte("a: " + strings.Repeat("[", 100_000) + strings.Repeat("]", 100_000) + "\n"), "yaml-invalid", "", 256 << 20},
		{"100k-deep block nesting", []byte(deepBlock(100_000)), "yaml-invalid", "", 512 << 20},
		{"a million keys", millionKeys(), "yaml-invalid", "over the", 64 << 20},
		{"invalid UTF-8", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \xff\xfe}\n"), "yaml-invalid", "", 16 << 20},
		{"NUL byte", []byte("apiVersion: v1\x00\n"), "yaml-invalid", "NUL", 16 << 20},
		{"tabs for indentation", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: x\n"), "yaml-invalid", "", 16 << 20},
		{"duplicate keys", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata:\n  a: b\n  a: c\n"), "schema-invalid", "duplicate key", 16 << 20},
		{"CRLF", []byte("apiVersion: v1\r\nkind: ConfigMap\r\nmetadata:\r\n  name: x\r\n"), "", "", 16 << 20},
		{"BOM", []byte("\xef\xbb\xbfapiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"), "", "", 16 << 20},
		{"merge keys", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x}\ndata:\n  <<: {a: b}\n  c: d\n"), "", "", 16 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			res := checks.Run([]checks.Input{{Path: "hostile.yaml", Data: tc.data}, good}, checks.DefaultConfig(catalog.Default()), checks.Options{})
			runtime.ReadMemStats(&after)
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > tc.maxAllocs {
				t.Errorf("allocated %d MiB, over the %d MiB ceiling", allocated>>20, tc.maxAllocs>>20)
			}
			var hostile []checks.Finding
			goodChecked := false
			for _, f := range res.Findings {
				switch f.File {
				case "hostile.yaml":
					if f.RuleID == "yaml-invalid" || f.RuleID == "schema-invalid" {
						hostile = append(hostile, f)
					}
				case "good.yaml":
					goodChecked = goodChecked || f.RuleID == "probe-named-port-undeclared"
				}
			}
			if !goodChecked {
				t.Error("the good file beside the hostile one was not checked")
			}
			if tc.wantRule == "" {
				if len(hostile) != 0 {
					t.Errorf("valid input reported invalid: %+v", hostile)
				}
				return
			}
			if len(hostile) == 0 || hostile[0].RuleID != tc.wantRule || !strings.Contains(hostile[0].Message, tc.wantText) {
				t.Fatalf("want a %s finding containing %q, got %+v", tc.wantRule, tc.wantText, hostile)
			}
			if len(hostile[0].Message) > 500 {
				t.Errorf("the message must be short and clear, not %d characters", len(hostile[0].Message))
			}
		})
	}
}

func deepBlock(depth int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(strings.Repeat(" ", i%200))
		b.WriteString("k:\n")
	}
	return b.String()
}
