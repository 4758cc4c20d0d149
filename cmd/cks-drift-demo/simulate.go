package main

import (
	"context"
	"fmt"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/simulator"
)

// newWorld starts the simulated cloud with the demo's clusters, each with a Kubernetes API
// server when apis is not nil.
func newWorld(apis *kubeAPIs) (*simulator.Simulator, error) {
	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		return nil, err
	}
	if err := buildWorld(sim, apis); err != nil {
		sim.Close()
		return nil, err
	}
	return sim, nil
}

// simulate runs the simulated cloud alone, for an exporter started elsewhere (an installed
// package, say): it writes that exporter's configuration and key into dir, prints the
// configuration's path and serves until interrupted.
func simulate(ctx context.Context, dir string) error {
	sim, err := newWorld(nil)
	if err != nil {
		return err
	}
	defer sim.Close()
	cfgPath, err := sim.WriteFiles(dir, "", "")
	if err != nil {
		return err
	}
	fmt.Printf("Simulated CloudStack API at %s; an exporter's configuration is in %s. Stop with Ctrl-C.\n", sim.CloudStack.Endpoint(), cfgPath)
	<-ctx.Done()
	return nil
}
