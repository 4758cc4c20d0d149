// Package cloudstack reads the inventory of CKS clusters and VMs through the CloudStack API. It
// only reads: the notifier's writes live in notifier/cloudstack.
package api

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// Options configure the inventory reader and its API connection with validated values (the
// configuration owns the defaults); New refuses a zero PageSize instead of choosing one.
type Options struct {
	API             cloudstackapi.Options
	PageSize        int
	IncludeProjects bool
	// SSHPort, when not zero, replaces the discovered SSH port of every cluster.
	SSHPort int
	// Logger receives the line that the Kubernetes versions could not be listed and the one
	// that they can again; nil discards them.
	Logger *slog.Logger
	// Now is the clock of the versions' cache; nil means time.Now. Tests move it.
	Now func() time.Time
}

// Source reads the inventory through the API.
type Source struct {
	opts     Options
	api      *cloudstackapi.Client
	versions versionCache
	ops      operations // when the operations of clusters in an operation state started
}

// New validates the options and prepares the API connection (TLS with an extra CA if given).
func New(o Options) (*Source, error) {
	if o.PageSize <= 0 {
		return nil, fmt.Errorf("cloudstack: page size %d is not positive", o.PageSize)
	}
	api, err := cloudstackapi.New(o.API)
	if err != nil {
		return nil, err
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Source{opts: o, api: api}, nil
}

// API returns the connection, so that the notifier's writer shares its transport.
func (s *Source) API() *cloudstackapi.Client { return s.api }
