package cloudstacktest

import "strings"

// ServiceOffering is a service_offering row: a compute offering the clusters' VMs are deployed
// with. State is Active or Inactive (4.17 on; empty is Active); Removed models the removed
// column, set by deleteServiceOffering. DomainID, when set, makes it an offering of that domain
// only (service_offering_details' domainid), which tenants' domain admins may create.
type ServiceOffering struct {
	InternalID int64
	ID         string
	Name       string
	State      string
	DomainID   string
	Removed    bool
}

// AddServiceOffering stores a copy of o and returns the stored row; a zero InternalID gets the
// next free id, an empty ID a fresh uuid, an empty Name "offering-<id>" and an empty State Active.
func (w *World) AddServiceOffering(o ServiceOffering) *ServiceOffering {
	if o.InternalID == 0 {
		for _, x := range w.ServiceOfferings {
			o.InternalID = max(o.InternalID, x.InternalID)
		}
		o.InternalID++
	}
	if o.ID == "" {
		o.ID = w.newUUID()
	}
	if o.Name == "" {
		o.Name = "offering-" + o.ID
	}
	if o.State == "" {
		o.State = "Active"
	}
	stored := o
	w.ServiceOfferings = append(w.ServiceOfferings, &stored)
	return &stored
}

// serviceOffering finds a row by uuid, removed or not when includingRemoved (as
// serviceOfferingDao.findByIdIncludingRemoved), else only one that is not removed (findById).
func (w *World) serviceOffering(id string, includingRemoved bool) *ServiceOffering {
	for _, o := range w.ServiceOfferings {
		if o != nil && id != "" && o.ID == id && (includingRemoved || !o.Removed) {
			return o
		}
	}
	return nil
}

// shapeOfferings fills a cluster answer's offerings as createKubernetesClusterResponse does
// (KubernetesClusterManagerImpl at 4.19.0.0 and 4.21.0.0): serviceofferingid and its name on
// every line, looked up including removed rows; from 4.21.0.0 controlofferingid,
// workerofferingid and etcdofferingid with their names, each looked up with findById
// (setNodeTypeServiceOfferingResponse), so a removed one is left out.
func (w *World) shapeOfferings(j *clusterJSON, c *Cluster) {
	if o := w.serviceOffering(c.ServiceOfferingID, true); o != nil {
		j.ServiceOfferingID, j.ServiceOfferingName = o.ID, o.Name
	}
	if !w.since(21) {
		return
	}
	if o := w.serviceOffering(c.ControlOfferingID, false); o != nil {
		j.ControlOfferingID, j.ControlOfferingName = o.ID, o.Name
	}
	if o := w.serviceOffering(c.WorkerOfferingID, false); o != nil {
		j.WorkerOfferingID, j.WorkerOfferingName = o.ID, o.Name
	}
	if o := w.serviceOffering(c.EtcdOfferingID, false); o != nil {
		j.EtcdOfferingID, j.EtcdOfferingName = o.ID, o.Name
	}
}

// serviceOfferingJSON is the part of ServiceOfferingResponse the fake fills; state from 4.17.
type serviceOfferingJSON struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	State    string `json:"state,omitempty"`
	DomainID string `json:"domainid,omitempty"`
	CPU      int    `json:"cpunumber"`
	Memory   int    `json:"memory"`
}

// listServiceOfferings lists the offerings that are not removed, in id order, to the fake's root
// admin (no domain filter: QueryManagerImpl.searchForServiceOfferingsInternal filters domains
// only for other callers). Filters: id, name (exact), keyword. State by release:
//   - up to 4.16 offerings have no state and every one is listed;
//   - 4.17.0.0 to 4.19.0.0 list only active ones (service_offering_view's WHERE state='Active'),
//     whatever state asks;
//   - from 4.19.1.0 state filters: Active when absent, both with "all" (ListServiceOfferingsCmd).
//
// count is the total.
func (s *Server) listServiceOfferings(r *request) (any, *apiError) {
	p := r.params
	win, e := s.world.pageWindow(p)
	if e != nil {
		return nil, e
	}
	w := s.world
	want := "Active"
	if w.since(20) {
		want = p.Get("state")
		if want == "" {
			want = "Active"
		}
	}
	var out []*ServiceOffering
	for _, o := range w.ServiceOfferings {
		switch {
		case o == nil || o.Removed:
		case w.since(17) && !strings.EqualFold(want, "all") && !strings.EqualFold(want, o.State):
		case p.Get("id") != "" && o.ID != p.Get("id"):
		case p.Get("name") != "" && o.Name != p.Get("name"):
		case !containsFold(p.Get("keyword"), o.Name):
		default:
			out = append(out, o)
		}
	}
	return listAnswerOf(r, win, "serviceoffering", out, func(o *ServiceOffering) serviceOfferingJSON {
		j := serviceOfferingJSON{ID: o.ID, Name: o.Name, DomainID: o.DomainID, CPU: 2, Memory: 2048}
		if w.since(17) {
			j.State = o.State
		}
		return j
	}), nil
}
