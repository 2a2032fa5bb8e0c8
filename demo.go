package main

import (
	"context"
	"errors"
)

// demoCmd runs the exporter against the built-in simulated account.
type demoCmd struct {
	webFlags
	logFlags
}

// Run starts the simulated account and the exporter against it.
func (d *demoCmd) Run(ctx context.Context) error {
	return errors.New("demo: not wired yet")
}
