package catalogue

//go:generate go run ./gendocs ../docs/metrics.md
