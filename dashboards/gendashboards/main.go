// Command gendashboards writes the generated dashboards (JSON) and
// panels.md into a directory: `go generate ./dashboards` runs it on
// dashboards/.
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/dynamodb-exporter/dynamodb_exporter/dashboards"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendashboards DIR")
		os.Exit(2)
	}
	files, err := dashboards.Generate()
	if err != nil {
		fmt.Fprintf(os.Stderr, "gendashboards: %v\n", err)
		os.Exit(1)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(os.Args[1], n), files[n], 0o644); err != nil {
			fmt.Fprintf(os.Stderr, "gendashboards: %v\n", err)
			os.Exit(1)
		}
	}
}
