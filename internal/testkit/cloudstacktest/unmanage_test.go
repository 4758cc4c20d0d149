package cloudstacktest

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestUnmanageAnswersAsRecorded: the events of Unmanage, as the fake's listEvents answers them on
// each release line, have the types, states, order, description and fields of the recorded
// answers in testdata/releases/<line>/listEvents.json (the fake leaves out only fields the
// exporter does not read: parentid, resourcename, domainpath), the resource from 4.17 only; the
// VM is listed nowhere afterwards.
func TestUnmanageAnswersAsRecorded(t *testing.T) {
	for _, tc := range []struct{ line, release string }{{"4.16", Release416}, {"4.18", Release418}, {"4.22", Release422}} {
		t.Run(tc.line, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "releases", tc.line, "listEvents.json"))
			if err != nil {
				t.Fatal(err)
			}
			recorded := items(t, decodeEnvelope(t, b, "listEvents"), "event")
			s := NewServer()
			t.Cleanup(s.Close)
			var vm *VM
			s.Update(func(w *World) {
				w.Release = tc.release
				vm = w.AddVM(VM{InternalID: 42, Name: "acme-node-18fe79a1b4d", State: "Running", Account: "acme", DomainID: RootDomainID, Domain: "ROOT"})
				w.Unmanage(vm, time.Date(2024, 6, 6, 7, 49, 22, 0, time.UTC))
			})
			_, _, body := rawCall(t, s, url.Values{"command": {"listEvents"}, "listall": {"true"}})
			got := items(t, decodeEnvelope(t, body, "listEvents"), "event")
			if len(got) != len(recorded) {
				t.Fatalf("%d events, recorded %d", len(got), len(recorded))
			}
			for i := range got {
				for _, k := range []string{"type", "state", "description", "username", "account", "domain", "created"} {
					if got[i][k] != recorded[i][k] {
						t.Errorf("event %d: %s = %v, recorded %v", i, k, got[i][k], recorded[i][k])
					}
				}
				for _, k := range keys(got[i]) {
					if _, ok := recorded[i][k]; !ok {
						t.Errorf("event %d: field %s is not in the recorded answer", i, k)
					}
				}
				_, has := got[i]["resourceid"]
				if _, want := recorded[i]["resourceid"]; has != want || has && (got[i]["resourceid"] != vm.ID || got[i]["resourcetype"] != "VirtualMachine") {
					t.Errorf("event %d: resource %v %v, recorded one: %v", i, got[i]["resourceid"], got[i]["resourcetype"], want)
				}
			}
			_, _, body = rawCall(t, s, url.Values{"command": {"listVirtualMachines"}, "listall": {"true"}})
			var listed map[string]map[string]json.RawMessage
			_ = json.Unmarshal(body, &listed)
			if slices.Contains(keys(listed["listvirtualmachinesresponse"]), "virtualmachine") {
				t.Errorf("the unmanaged VM is listed: %s", body)
			}
		})
	}
}
