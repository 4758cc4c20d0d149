package collector

import (
	"slices"
	"strings"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/safetext"
)

// Cause is the CloudStack event that explains a finding: the VM.EXPUNGE of a mapped VM, the
// failed KUBERNETES.CLUSTER.SCALE that left a VM out of the map. It is looked up once, when the
// finding is new, and kept with the finding (and by the notifier across restarts).
type Cause struct {
	EventID string `json:"event_id"`
	Type    string `json:"type"`
	// Description is the event's text, which the caller of the command partly writes (names):
	// one printable line of at most MaxCauseDescription characters.
	Description string    `json:"description"`
	Username    string    `json:"username"`
	Account     string    `json:"account"`
	Created     time.Time `json:"created"`
}

// IsZero reports whether no event explains the finding.
func (c Cause) IsZero() bool { return c.EventID == "" && c.Type == "" }

// MaxCauseDescription bounds the description of a cause as the exporter keeps and shows it.
const MaxCauseDescription = 256

// maxCauseName bounds the user and account names of a cause.
const maxCauseName = 64

// CauseLookBack bounds how long before a finding was first seen its cause may have been recorded:
// a change older than a day is not what the exporter has just found (a cycle or a re-check finds
// a change within check.interval, 5 minutes by default; a day also covers a long outage of the
// exporter or of CloudStack's API).
const CauseLookBack = 24 * time.Hour

// MaxCauseLookups bounds the new findings whose cause is looked up in one cycle or re-check;
// the findings past it are announced without one and never looked up again (a cause is looked
// up only for a new finding), so that a flood of findings costs CloudStack a bounded number of
// requests and delays no announcement.
const MaxCauseLookups = 20

// CauseResource is the type of resource, as CloudStack names it in its events (resourcetype),
// that an explaining event is recorded against.
type CauseResource string

// The resources events explain findings by.
const (
	// CauseOnVM: the finding's VM (vm_id).
	CauseOnVM CauseResource = "VirtualMachine"
	// CauseOnCluster: the finding's cluster.
	CauseOnCluster CauseResource = "KubernetesCluster"
)

// EventVMUnmanage is the type of the event unmanageVirtualMachine records (EventTypes
// .EVENT_VM_UNMANAGE, UnmanageVMInstanceCmd.getEventType at 4.17.0.0 and 4.21.0.0), with the VM
// as its resource: what tells an unmanaged VM of a map from an expunged one, through either source.
const EventVMUnmanage = "VM.UNMANAGE"

// Explanation says which CloudStack events can explain a finding of a kind: an event of one of
// Types whose resource is the finding's VM or its cluster (On). A kind with no Types has no
// cause looked up.
type Explanation struct {
	On    CauseResource
	Types []string
}

// CauseEvent is an event as a source read it (listEvents' EventResponse, a row of the event
// table): raw, as CloudStack recorded it.
type CauseEvent struct {
	ID, Type, State, Description string
	Username, Account            string
	DomainID, Domain, ProjectID  string
	ResourceID, ResourceType     string
	Level                        string // INFO, WARN, ERROR; empty where the source does not read it
	Created                      time.Time
	// Triggered: the event was asked for by id as one that started the check, whose delivery
	// named the wanted finding's resource (CauseWant.Triggers).
	Triggered bool
	// ByOwner: the source matched the event's account with the cluster's owner's by its
	// internal id (the database), where the API names them.
	ByOwner bool
}

// CauseWant is a new finding whose cause a source looks up: the events of Types whose resource is
// ResourceID of type On, recorded since Since. Triggers are the ids of the events that started the
// re-check that found it and name its resource, to be tried first.
type CauseWant struct {
	Cluster    Cluster
	Side       Side
	Key        string
	ResourceID string
	On         CauseResource
	Types      []string
	Since      time.Time
	Triggers   []string
	// RuleIDs are, On CauseOnRule, the uuids of the rules that are gone (ResourceID is the first).
	RuleIDs []string
}

// Explains reports whether e explains the wanted finding. It is tied by resource only (the
// event's resource is the finding's VM, cluster or gone rule, explainsRule; never a name or a
// description, which tenants write), of one of the kind's types, recorded within the look-back,
// carried out (Completed, or Created for what CloudStack records as created: a tenant who names
// another's resource in a command has its Scheduled event recorded before the access check
// refuses the job), and recorded under the cluster's owner or the operator's root admins
// (AdminEvent).
func (w CauseWant) Explains(e CauseEvent) bool {
	switch {
	case w.On == CauseOnRule:
		if !w.explainsRule(e) {
			return false
		}
	case !strings.EqualFold(e.ResourceID, w.ResourceID) || e.ResourceType != string(w.On):
		return false
	}
	switch {
	case !slices.Contains(w.Types, e.Type):
		return false
	case e.State != "Completed" && e.State != "Created":
		return false
	case e.Created.IsZero() || e.Created.Before(w.Since):
		return false
	}
	return e.ByOwner || w.Cluster.OwnsEvent(e.Account, e.DomainID, e.ProjectID) || AdminEvent(e)
}

// AdminEvent reports whether e was recorded under the operator's built-in accounts: "admin" (the
// root admin) or "system" (CloudStack's own actions) of the ROOT domain, outside any project
// (ConfigurationServerImpl.saveUser creates them as accounts 2 and 1 of domain 1, ROOT, at
// 4.19.0.0). Account names are unique within a domain, and EventResponse names the account and
// the domain (at 4.19.0.0, api/src/main/java/org/apache/cloudstack/api/response/
// EventResponse.java), so no tenant records an event under them; other admin accounts are not
// recognised, and their events explain nothing (the finding then has no cause, never a wrong one).
func AdminEvent(e CauseEvent) bool {
	return e.ProjectID == "" && e.Domain == "ROOT" && (e.Account == "admin" || e.Account == "system")
}

// OwnsEvent reports whether an event recorded under account, domainID and projectID (as
// EventResponse or the event table names them) is the cluster's owner's: the project for a
// project's cluster, else the account of the domain. An event belongs to the account that called
// the command (the commands' getEntityOwnerId is the calling account; ApiServer.queueCommand
// records it, 4.14.0.0 and 4.17.0.0), so only the owner records one under the owner.
func (c Cluster) OwnsEvent(account, domainID, projectID string) bool {
	if c.ProjectID != "" {
		return strings.EqualFold(projectID, c.ProjectID)
	}
	return projectID == "" && account == c.Account && strings.EqualFold(domainID, c.DomainID)
}

// Cause returns e as a finding's cause, its texts made safe and bounded.
func (e CauseEvent) Cause() Cause {
	return Cause{
		EventID:     safetext.Line(e.ID, maxCauseName),
		Type:        safetext.Line(e.Type, maxCauseName),
		Description: safetext.Line(e.Description, MaxCauseDescription),
		Username:    safetext.Line(e.Username, maxCauseName),
		Account:     safetext.Line(e.Account, maxCauseName),
		Created:     e.Created.UTC(),
	}
}
