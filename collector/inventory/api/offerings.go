package api

import (
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/collector"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/cloudstackapi"
)

// wireOffering is the part of ServiceOfferingResponse the offering check reads: id and name on
// every release line, state (Active or Inactive) from 4.17.0.0, when offerings got a state of
// their own (apache/cloudstack#5008).
type wireOffering struct {
	ID    text `json:"id"`
	Name  text `json:"name"`
	State text `json:"state"`
}

// offeringsParams are listServiceOfferings' filters beside listall, page and pagesize: every
// offering of every domain (a root admin's listing has no domain filter in
// QueryManagerImpl.searchForServiceOfferingsInternal at 4.19.0.0 and 4.21.0.0; isrecursive makes
// a domain admin's key see its subdomains' too), active and inactive: state=all since 4.19.1.0
// (ListServiceOfferingsCmd, "Defaults to 'Active'"). Releases before take no state and list only
// the active ones from 4.17.0.0 (the service_offering_view's WHERE state='Active' at 4.19.0.0),
// so there an inactive offering is not listed and reads as removed.
var offeringsParams = map[string]string{"isrecursive": "true", "state": "all"}

// listOfferings lists the service offerings cloud-wide, a page at a time: never one call per
// cluster. Removed offerings are never listed (the search excludes them), so an offering a
// cluster names that is not listed is taken as removed.
func listOfferings(c *cs.CloudStackClient, size int) (collector.Offerings, error) {
	items, err := listScopes([]string{""}, "service offerings", func(o wireOffering) string { return string(o.ID) },
		listPages(c, "listServiceOfferings", "serviceoffering", cloudstackapi.PageOrTotal, size, offeringsParams,
			func(o *wireOffering) wireOffering { return *o }))
	if err != nil {
		return collector.Offerings{}, err
	}
	out := collector.Offerings{Read: true, ByID: make(map[string]collector.Offering, len(items))}
	for _, o := range items {
		out.ByID[string(o.ID)] = collector.Offering{ID: string(o.ID), Name: string(o.Name),
			Inactive: strings.EqualFold(string(o.State), "Inactive")}
	}
	return out, nil
}

// namedRemoved adds to a listing the clusters' own offerings it does not list, as removed, with
// the name the cluster answer gives (createKubernetesClusterResponse looks the cluster's offering up
// including removed rows), so that a removed offering is named as the database source names it.
// The listing is copied, never changed: the last one is shared with re-checks.
func namedRemoved(listed collector.Offerings, clusters []clusterRow) collector.Offerings {
	if !listed.Read {
		return listed
	}
	out, copied := listed, false
	for _, r := range clusters {
		if _, ok := out.ByID[r.offeringID]; r.offeringID == "" || ok || r.offeringName == "" {
			continue
		}
		if !copied {
			out.ByID, copied = make(map[string]collector.Offering, len(listed.ByID)+1), true
			maps.Copy(out.ByID, listed.ByID)
		}
		out.ByID[r.offeringID] = collector.Offering{ID: r.offeringID, Name: r.offeringName, Removed: true}
	}
	return out
}

// offeringsState keeps the last listing, which a re-check of one cluster reuses instead of
// listing the whole cloud's offerings again, and logs when listing starts and stops failing.
type offeringsState struct {
	mu       sync.Mutex
	last     collector.Offerings
	failures int // listings failed in a row
}

// read lists the offerings for a cycle, unless no cluster names one (nothing to compare: no
// request). A failed listing does not fail the inventory: the cycle has no offerings (Read
// false), so none is compared and the cluster side keeps its findings. It is logged at WARN when
// it starts failing and at INFO when it works again.
func (o *offeringsState) read(c *cs.CloudStackClient, size int, clusters []collector.Cluster, log *slog.Logger) collector.Offerings {
	if !slices.ContainsFunc(clusters, func(k collector.Cluster) bool { return len(k.Offerings) > 0 }) {
		o.mu.Lock()
		defer o.mu.Unlock()
		o.last = collector.Offerings{Read: true}
		return o.last
	}
	got, err := listOfferings(c, size)
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		if o.failures++; o.failures == 1 {
			log.Warn("Could not list the service offerings, the clusters' offerings are not compared until it works", "err", err)
		}
		o.last = collector.Offerings{}
		return o.last
	}
	if o.failures > 0 {
		log.Info("Listed the service offerings again, the clusters' offerings are compared with them",
			"failed_listings", o.failures, "offerings", len(got.ByID))
	}
	o.failures, o.last = 0, got
	return got
}

// lastRead returns the last cycle's listing, for a re-check.
func (o *offeringsState) lastRead() collector.Offerings {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}
