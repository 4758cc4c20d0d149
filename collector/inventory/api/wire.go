package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The exporter decodes list answers with its own types instead of cloudstack-go's: the SDK's
// structs fail a whole page on one field of an unexpected type (its Nic.Extradhcpoption is
// []string, while UserVmResponse's NicResponse sends NicExtraDhcpOptionResponse objects), and they
// drop what older and newer releases send (virtualmachineids in 4.14, isetcdnode and
// isexternalnode in 4.21). These types read only the fields the check needs, and every one of
// them accepts any JSON value: a field of an odd type reads as its zero value, an unknown field
// is ignored, a missing one is zero. The SDK still signs and sends the requests.

// text is a JSON scalar read as a string: strings as they are, numbers and booleans as written,
// anything else (null, objects, arrays) as "".
type text string

func (t *text) UnmarshalJSON(b []byte) error {
	*t = text(scalar(b))
	return nil
}

// number is a JSON number or numeric string read as an int; anything else reads as 0.
type number int

func (n *number) UnmarshalJSON(b []byte) error {
	v, err := strconv.ParseInt(scalar(b), 10, 64)
	if err != nil || v < 0 || v > 1<<31-1 {
		*n = 0
		return nil
	}
	*n = number(v)
	return nil
}

// flag is a JSON boolean or "true"/"false" string; anything else reads as false.
type flag bool

func (f *flag) UnmarshalJSON(b []byte) error {
	v, _ := strconv.ParseBool(scalar(b))
	*f = flag(v)
	return nil
}

// list is a JSON array whose elements are decoded one by one; an element that cannot be decoded
// becomes T's zero value (which has no id and is reported as such by the caller), and anything
// but an array reads as an empty list. The array is decoded in one pass: encoding/json leaves an
// element of the wrong type at its zero value and goes on with the next (every field of the wire
// types reads any value), so only a syntax error, which fails the whole answer before this is
// reached, loses the list.
type list[T any] []T

func (l *list[T]) UnmarshalJSON(b []byte) error {
	var out []T
	if err := json.Unmarshal(b, &out); err != nil {
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) || !isArray(b) {
			*l = nil
			return nil
		}
	}
	if out == nil {
		out = []T{} // null reads as an empty list
	}
	*l = out
	return nil
}

// isArray reports whether b is a JSON array (after white space).
func isArray(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '['
}

// dict is a JSON object of scalars, as CloudStack sends details and etcdips; values that are not
// scalars read as "", and anything but an object reads as empty.
type dict map[string]text

func (d *dict) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		*d = nil
		return nil
	}
	out := make(dict, len(raw))
	for k, v := range raw {
		out[k] = text(scalar(v))
	}
	*d = out
	return nil
}

// scalar returns a JSON string's value, or a number's or boolean's literal text, else "".
func scalar(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return ""
	}
	switch b[0] {
	case '"':
		if s, ok := plainString(b); ok {
			return s
		}
		var s string
		if json.Unmarshal(b, &s) != nil {
			return ""
		}
		return s
	case 't', 'f', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if b[0] == 't' || b[0] == 'f' {
			if string(b) == "true" || string(b) == "false" {
				return string(b)
			}
			return ""
		}
		if plainInteger(b) {
			return string(b)
		}
		var n json.Number
		if json.Unmarshal(b, &n) != nil {
			return ""
		}
		return n.String()
	}
	return ""
}

// plainString returns the value of a JSON string that has no escape and no control character
// and is valid UTF-8 without a decoder: its bytes between the quotes are its value. Any other
// string (ok false) goes through encoding/json, which unescapes it and replaces invalid UTF-8.
// Most of an answer's strings are uuids, names and dates: this halves the decoding of a page.
func plainString(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	for _, c := range inner {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// plainInteger reports whether b is a JSON integer (an optional minus, then 0 or digits not
// starting with 0), whose literal text is what json.Number keeps.
func plainInteger(b []byte) bool {
	d := b
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for _, c := range d {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// wireCluster is the part of KubernetesClusterResponse the check reads. Field by release
// (plugins/integrations/kubernetes-service/.../api/response/KubernetesClusterResponse.java):
// virtualmachineids in 4.14.0.0 only; virtualmachines, ipaddress and ipaddressid from 4.15.0.0;
// masternodes up to 4.15 and still sent beside controlnodes from 4.16.0.0; clustertype from 4.19;
// etcdnodes, and per-VM isetcdnode/isexternalnode, from 4.21.
type wireCluster struct {
	ID           text          `json:"id"`
	Name         text          `json:"name"`
	State        text          `json:"state"`
	ClusterType  text          `json:"clustertype"`
	ZoneID       text          `json:"zoneid"`
	ZoneName     text          `json:"zonename"`
	Account      text          `json:"account"`
	DomainID     text          `json:"domainid"`
	Domain       text          `json:"domain"`
	ProjectID    text          `json:"projectid"`
	Project      text          `json:"project"`
	NetworkID    text          `json:"networkid"`
	Created      text          `json:"created"`
	ControlNodes number        `json:"controlnodes"`
	MasterNodes  number        `json:"masternodes"`
	Size         number        `json:"size"`
	EtcdNodes    number        `json:"etcdnodes"`
	IPAddress    text          `json:"ipaddress"`
	IPAddressID  text          `json:"ipaddressid"`
	VMs          *list[wireVM] `json:"virtualmachines"`
	VMIDs        *list[text]   `json:"virtualmachineids"`
	EtcdIPs      dict          `json:"etcdips"`
	// KubernetesVersionID is set from 4.14.0.0 when the cluster's version exists
	// (createKubernetesClusterResponse looks it up with findById).
	KubernetesVersionID text `json:"kubernetesversionid"`
	// ServiceOfferingID is the cluster's offering on every release line, also once it is removed
	// (createKubernetesClusterResponse looks it up with findByIdIncludingRemoved at 4.19.0.0 and
	// 4.21.0.0). The node types' own offerings come from 4.21.0.0
	// (ApiConstants.CONTROL_/WORKER_/ETCD_SERVICE_OFFERING_ID), looked up with findById
	// (setNodeTypeServiceOfferingResponse): a removed one is left out of the answer, so the API
	// cannot tell it from none, and the node type reads as having the cluster's offering.
	ServiceOfferingID   text `json:"serviceofferingid"`
	ServiceOfferingName text `json:"serviceofferingname"`
	ControlOfferingID   text `json:"controlofferingid"`
	WorkerOfferingID    text `json:"workerofferingid"`
	EtcdOfferingID      text `json:"etcdofferingid"`
}

// wireVM is the part of UserVmResponse (and 4.21's KubernetesUserVmResponse) the check reads.
type wireVM struct {
	ID        text          `json:"id"`
	Name      text          `json:"name"`
	State     text          `json:"state"`
	Account   text          `json:"account"`
	DomainID  text          `json:"domainid"`
	ProjectID text          `json:"projectid"`
	Created   text          `json:"created"`
	NICs      list[wireNIC] `json:"nic"`
	Details   dict          `json:"details"`
	Etcd      flag          `json:"isetcdnode"`
	External  flag          `json:"isexternalnode"`
	// NodeVersion is KubernetesUserVmResponse's node version (4.21 on, ApiConstants
	// .KUBERNETES_NODE_VERSION, the map row's kubernetes_node_version). The Apache copies of
	// ApiConstants read here predate it; its JSON name is the one CloudStack's UI of the 4.21 line
	// reads from the cluster's VM entries (ui/src/views/compute/KubernetesServiceTab.vue, the
	// column dataIndex 'kubernetesnodeversion', seen in a fork that follows 4.21). Under another
	// name it would read as empty and every node would be compared with the cluster's version.
	NodeVersion text `json:"kubernetesnodeversion"`
	// VMType is UserVmResponse's vmtype (ApiConstants.VM_TYPE, since 4.20.0): "cksnode" for the
	// VMs CKS deployed (UserVmManager.CKS_NODE).
	VMType text `json:"vmtype"`
}

// wireNIC is the part of NicResponse the SSH fallback reads.
type wireNIC struct {
	NetworkID text `json:"networkid"`
	IPAddress text `json:"ipaddress"`
	IsDefault flag `json:"isdefault"`
}

// wireRule is the part of FirewallRuleResponse (a port-forwarding rule) the SSH target reads.
type wireRule struct {
	ID          text `json:"id"`
	IPAddressID text `json:"ipaddressid"`
	IPAddress   text `json:"ipaddress"`
	VMID        text `json:"virtualmachineid"`
	PublicPort  text `json:"publicport"`
	PrivatePort text `json:"privateport"`
	NetworkID   text `json:"networkid"`
	Protocol    text `json:"protocol"`
	State       text `json:"state"`
}

// wireIP is the part of IPAddressResponse the 4.14 source-NAT lookup reads.
type wireIP struct {
	ID        text `json:"id"`
	IPAddress text `json:"ipaddress"`
	NetworkID text `json:"associatednetworkid"`
	SourceNAT flag `json:"issourcenat"`
}

// decodeList reads one list answer as the SDK hands it over (the object inside
// "<command>response"): its count and the items under key. A body that is not a JSON object is an
// error; everything inside it is read leniently.
func decodeList[T any](body []byte, key string) (int, []T, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(body, &env); err != nil {
		return 0, nil, fmt.Errorf("decode list answer: %w", err)
	}
	var count number
	if c, ok := field(env, "count"); ok {
		_ = count.UnmarshalJSON(c)
	}
	var items list[T]
	if raw, ok := field(env, key); ok {
		_ = items.UnmarshalJSON(raw)
	}
	return int(count), items, nil
}

// field looks a key up the way encoding/json matches struct fields: the exact key first, else
// one that differs only in case.
func field(env map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	if v, ok := env[key]; ok {
		return v, true
	}
	for k, v := range env {
		if strings.EqualFold(k, key) {
			return v, true
		}
	}
	return nil, false
}
