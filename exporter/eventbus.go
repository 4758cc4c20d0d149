package exporter

import (
	"context"
	"crypto/tls"
	"fmt"

	commonconfig "github.com/prometheus/common/config"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/events"
)

// runEventBus consumes CloudStack's RabbitMQ event bus while events.amqp.url is set, and starts
// the consumer again when a reload changes events.amqp. It returns when ctx ends, after the
// consumer.
func (e *Exporter) runEventBus(ctx context.Context) {
	var (
		running config.EventsAMQP
		cancel  = func() {}
		done    chan struct{}
	)
	stop := func() {
		cancel()
		if done != nil {
			<-done
		}
		done = nil
	}
	defer stop()
	for {
		cfg, _ := e.current()
		if want := cfg.Events.AMQP; done == nil || want != running {
			stop()
			running = want
			if want.URL != "" {
				done = make(chan struct{})
				busCtx, busCancel := context.WithCancel(ctx)
				cancel = busCancel // called by stop
				go func(c *events.Consumer) { defer close(done); c.Run(busCtx) }(e.consumer(want))
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-e.busChanged:
		}
	}
}

// consumer is the consumer of the bus a.
func (e *Exporter) consumer(a config.EventsAMQP) *events.Consumer {
	c := &events.Consumer{
		Bus:     events.Bus{URL: a.URL, Exchange: a.Exchange, Username: a.Username, Password: string(a.Password)},
		Deliver: e.receiveEvent, Metrics: e.eventMetrics, Logger: e.logger, Now: e.now, MaxBackoff: e.busBackoff,
	}
	if a.CAFile != "" || a.CertFile != "" {
		tlsConfig, err := busTLS(a)
		if err != nil { // the files changed since the configuration was loaded
			e.logger.Error("Cannot read the TLS files of CloudStack's event bus; not consuming it", "err", err)
			c.Bus.URL = ""
		}
		c.Bus.TLS = tlsConfig
	}
	return c
}

// busTLS reads the TLS files of events.amqp.
func busTLS(a config.EventsAMQP) (*tls.Config, error) {
	t, err := commonconfig.NewTLSConfig(&commonconfig.TLSConfig{CAFile: a.CAFile, CertFile: a.CertFile, KeyFile: a.KeyFile})
	if err != nil {
		return nil, fmt.Errorf("events.amqp: %w", err)
	}
	return t, nil
}

// busReloaded tells runEventBus that the configuration may have changed.
func (e *Exporter) busReloaded() {
	select {
	case e.busChanged <- struct{}{}:
	default:
	}
}
