// Package cloudstack reads the inventory of CKS clusters and VMs through the CloudStack API. It
// only reads: the notifier's writes live in notifier/cloudstack.
package api

import (
	"fmt"

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
}

// Source reads the inventory through the API.
type Source struct {
	opts Options
	api  *cloudstackapi.Client
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
	return &Source{opts: o, api: api}, nil
}

// API returns the connection, so that the notifier's writer shares its transport.
func (s *Source) API() *cloudstackapi.Client { return s.api }
