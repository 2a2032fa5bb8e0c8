// Command gendocs writes docs/metrics.md from the metric catalogue.
package main

import (
	"fmt"
	"os"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs OUTPUT.md")
		os.Exit(2)
	}
	if err := os.WriteFile(os.Args[1], []byte(catalogue.Markdown()), 0o644); err != nil {
		fmt.Fprintf(os.Stderr, "gendocs: %v\n", err)
		os.Exit(1)
	}
}
