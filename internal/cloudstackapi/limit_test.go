package cloudstackapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	cs "github.com/apache/cloudstack-go/v2/cloudstack"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/cloudstacktest"
)

// TestResponseCap: an answer longer than the cap fails the SDK's call with ErrResponseTooLarge,
// whether it is a valid list, an error answer or a proxy's page; an answer within the cap, and
// one of exactly the cap, are read whole.
func TestResponseCap(t *testing.T) {
	t.Parallel()
	s := cloudstacktest.NewServer()
	t.Cleanup(s.Close)
	s.Update(func(w *cloudstacktest.World) {
		for i := range 40 {
			w.AddVM(cloudstacktest.VM{Name: fmt.Sprintf("vm-%02d", i), State: "Running", Account: "acme"})
		}
	})
	c, err := New(Options{Endpoint: s.Endpoint(), APIKey: s.APIKey(), SecretKey: s.SecretKey(), Timeout: config.Defaults().CloudStack.Timeout})
	if err != nil {
		t.Fatal(err)
	}
	if c.maxResponse != MaxResponseBytes || MaxResponseBytes != 64<<20 {
		t.Fatalf("cap %d, want 64 MiB", c.maxResponse)
	}
	list := func(c *Client) error {
		p := &cs.CustomServiceParams{}
		p.SetParam("listall", true)
		custom, _ := cs.NewCustomService(c.SDK(context.Background())).(*cs.CustomService)
		var body json.RawMessage
		return custom.CustomRequest("listVirtualMachines", p, &body)
	}
	if err := list(c); err != nil {
		t.Fatalf("within the cap: %v", err)
	}

	const limit = 4 << 10
	small := *c
	small.maxResponse = limit
	for _, tc := range []struct {
		name  string
		fault *cloudstacktest.Fault
		ok    bool
	}{
		{name: "40 VMs"},
		{name: "a proxy's page", fault: &cloudstacktest.Fault{RawBody: strings.Repeat("<p>", limit)}},
		{name: "an error answer", fault: &cloudstacktest.Fault{Status: 530, RawBody: strings.Repeat("x", 2*limit)}},
		{name: "exactly the cap", fault: &cloudstacktest.Fault{RawBody: `{"listvirtualmachinesresponse":{"count":0,"virtualmachine":[]}}` + strings.Repeat(" ", limit-64)}, ok: true},
	} {
		s.ClearFaults()
		if tc.fault != nil {
			s.SetFault("listVirtualMachines", *tc.fault)
		}
		err := list(&small)
		if tc.ok {
			if err != nil {
				t.Errorf("%s: %v", tc.name, err)
			}
			continue
		}
		if !errors.Is(err, ErrResponseTooLarge) && (err == nil || !strings.Contains(err.Error(), ErrResponseTooLarge.Error())) {
			t.Errorf("%s over a cap of %d bytes: %v, want %v", tc.name, limit, err, ErrResponseTooLarge)
		}
	}
}
