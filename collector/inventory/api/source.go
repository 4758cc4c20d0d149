// Package cloudstack reads the inventory of CKS clusters and VMs through the CloudStack API. It
// only reads: the notifier's writes live in notifier/cloudstack.
package api

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// Options configure the inventory reader and, for New, its API connection with validated values
// (the configuration owns the defaults); New and On refuse a zero PageSize instead of choosing one.
type Options struct {
	API             cloudstackapi.Options
	PageSize        int
	IncludeProjects bool
	// SSHPort, when not zero, replaces the discovered SSH port of every cluster.
	SSHPort int
	// Logger receives the lines that the Kubernetes versions or the service offerings could not
	// be listed and those that they can again; nil discards them.
	Logger *slog.Logger
	// Now is the clock of the versions' cache; nil means time.Now. Tests move it.
	Now func() time.Time
}

// Source reads the inventory through the API.
type Source struct {
	opts      Options
	api       *cloudstackapi.Client
	versions  versionCache
	ops       operations // when the operations of clusters in an operation state started
	offers    offeringsState
	unmanaged unmanaged // the VMs the clusters' maps listed, to tell an unmanaged one
}

// New validates the options and prepares an API connection of its own (TLS with an extra CA if
// given), for tests and tools that read only the inventory.
func New(o Options) (*Source, error) {
	api, err := cloudstackapi.New(o.API)
	if err != nil {
		return nil, err
	}
	return On(api, o)
}

// On is New on a connection that others share: the exporter builds its one CloudStack client
// and hands it to this source, the notifier's writer and the kubeconfigs alike. o.API is not
// read.
func On(api *cloudstackapi.Client, o Options) (*Source, error) {
	if o.PageSize <= 0 {
		return nil, fmt.Errorf("cloudstack: page size %d is not positive", o.PageSize)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Source{opts: o, api: api}, nil
}

// API returns the connection the source reads with.
func (s *Source) API() *cloudstackapi.Client { return s.api }
