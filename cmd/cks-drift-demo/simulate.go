package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/simulator"
)

// simulate runs the simulated cloud alone, for an exporter started elsewhere (an installed
// package, say): it writes that exporter's configuration and key into dir, prints the
// configuration's path and serves until interrupted.
func simulate(dir string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sim, err := simulator.New(simulator.Options{})
	if err != nil {
		return err
	}
	defer sim.Close()
	if err := buildWorld(sim); err != nil {
		return err
	}
	cfgPath, err := sim.WriteFiles(dir, "", "")
	if err != nil {
		return err
	}
	fmt.Printf("Simulated CloudStack API at %s; an exporter's configuration is in %s. Stop with Ctrl-C.\n", sim.CloudStack.Endpoint(), cfgPath)
	<-ctx.Done()
	return nil
}
