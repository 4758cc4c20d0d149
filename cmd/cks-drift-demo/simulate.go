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
// package, say): it writes that exporter's configuration and key into dir, prints where they
// are and, until interrupted, what CloudStack receives from that exporter's notifier, as the
// demo does for its own.
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
	fmt.Printf(`== The simulated cloud runs alone, for an exporter started elsewhere.
   CloudStack API: %s (simulated; api_key and secret_key in the configuration)
   Configuration:  %s (an exporter's, with its SSH key beside it)
   What CloudStack receives from the notifier is printed below. Stop with Ctrl-C.

`, sim.CloudStack.Endpoint(), cfgPath)
	watchWrites(ctx, sim)
	return nil
}
