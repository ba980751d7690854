// Command gen writes a generated repository (package synthrepo) for the
// scale benchmark (scripts/bench-scale.sh, make bench-scale):
//
//	go run ./internal/synthrepo/gen -objects 50000 -out /tmp/repo [-one-stream]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/prodready/prodready/internal/synthrepo"
)

func main() {
	n := flag.Int("objects", 1000, "how many objects (rounded up to whole apps of 4)")
	out := flag.String("out", "", "folder to write the repository into (created)")
	one := flag.Bool("one-stream", false, "write every app into one file, all.yaml, as kustomize build prints a repository")
	flag.Parse()
	if *out == "" || *n <= 0 || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen -objects N -out DIR [-one-stream]")
		os.Exit(2)
	}
	if err := synthrepo.Write(*out, *n, *one); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
