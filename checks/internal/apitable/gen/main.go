// Command gen writes checks/rules/apicluster/kinds_gen.go (see package apitable). go
// generate runs it in the apicluster folder.
package main

import (
	"fmt"
	"os"

	"github.com/prodready/prodready/checks/internal/apitable"
)

func main() {
	src, err := apitable.Generate()
	if err == nil {
		err = os.WriteFile(apitable.Output, src, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apitable:", err)
		os.Exit(1)
	}
}
