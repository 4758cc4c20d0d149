package api

// Benchmarks of decoding one full page (500 items, cloudstack.page_size's default) of the lists
// a cycle reads most, as the fake CloudStack of the scale benchmark answers them:
//
//	go test -run '^$' -bench DecodePage -benchmem ./collector/inventory/api/
//
// op = one page: its decoding and its shrinking to what the check keeps.

import (
	"encoding/json"
	"fmt"
	"testing"
)

const benchPage = 500

func benchVM(i int) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("be000002-0000-4000-8000-%012x", i), "name": fmt.Sprintf("cluster-%05d-node-19a3c5e%05x", i/3, i),
		"displayname": fmt.Sprintf("cluster-%05d-node-19a3c5e%05x", i/3, i), "state": "Running",
		"created": "2026-01-05T10:00:00+0000", "account": fmt.Sprintf("account-%03d", i%100),
		"domainid": "d0e0a000-0000-4000-8000-000000000001", "domain": "ROOT",
		"zoneid": "2a0e0000-0000-4000-8000-000000000001", "zonename": "zone1",
		"details": map[string]string{"keypairnames": "cks"}, "vmtype": "cksnode",
		"nic": []map[string]any{{"id": fmt.Sprintf("0000a1c0-0000-4000-8000-%012x", i),
			"networkid": fmt.Sprintf("be000004-0000-4000-8000-%012x", i/3), "ipaddress": "10.1.1.10", "isdefault": true}},
	}
}

func benchCluster(i int) map[string]any {
	var vms []map[string]any
	for k := range 3 {
		vms = append(vms, benchVM(3*i+k))
	}
	return map[string]any{
		"id": fmt.Sprintf("be000001-0000-4000-8000-%012x", i), "name": fmt.Sprintf("cluster-%05d", i), "state": "Running",
		"clustertype": "CloudManaged", "zoneid": "2a0e0000-0000-4000-8000-000000000001", "zonename": "zone1",
		"account": fmt.Sprintf("account-%03d", i%100), "domainid": "d0e0a000-0000-4000-8000-000000000001", "domain": "ROOT",
		"networkid": fmt.Sprintf("be000004-0000-4000-8000-%012x", i), "created": "2026-01-05T10:00:00+0000",
		"controlnodes": 1, "masternodes": 1, "size": 2, "ipaddress": "203.0.113.10",
		"ipaddressid": fmt.Sprintf("be000005-0000-4000-8000-%012x", i), "kubernetesversionid": "7e000000-0000-4000-8000-000000000001",
		"serviceofferingid": "5e000000-0000-4000-8000-000000000001", "serviceofferingname": "cks-medium",
		"virtualmachines": vms,
	}
}

func benchRule(i int) map[string]any {
	return map[string]any{
		"id": fmt.Sprintf("be000006-0000-4000-8000-%012x", i), "ipaddressid": fmt.Sprintf("be000005-0000-4000-8000-%012x", i/3),
		"ipaddress": "203.0.113.10", "virtualmachineid": fmt.Sprintf("be000002-0000-4000-8000-%012x", i),
		"publicport": fmt.Sprint(2222 + i%3), "publicendport": fmt.Sprint(2222 + i%3), "privateport": "22", "privateendport": "22",
		"protocol": "tcp", "state": "Active", "networkid": fmt.Sprintf("be000004-0000-4000-8000-%012x", i/3),
		"cidrlist": "", "fordisplay": true,
	}
}

func benchAnswer(b *testing.B, key string, item func(int) map[string]any) []byte {
	items := make([]map[string]any, benchPage)
	for i := range items {
		items[i] = item(i)
	}
	body, err := json.Marshal(map[string]any{"count": 10 * benchPage, key: items})
	if err != nil {
		b.Fatal(err)
	}
	return body
}

func BenchmarkDecodePage(b *testing.B) {
	in := strs{}
	for _, c := range []struct {
		name   string
		decode func(body []byte) (int, error)
		body   []byte
	}{
		{"virtualmachine", func(body []byte) (int, error) {
			_, items, err := decodePage(body, "virtualmachine", in.vmRow)
			return len(items), err
		}, benchAnswer(b, "virtualmachine", benchVM)},
		{"kubernetescluster", func(body []byte) (int, error) {
			_, items, err := decodePage(body, "kubernetescluster", in.clusterRow)
			return len(items), err
		}, benchAnswer(b, "kubernetescluster", benchCluster)},
		{"portforwardingrule", func(body []byte) (int, error) {
			_, items, err := decodePage(body, "portforwardingrule", in.rule)
			return len(items), err
		}, benchAnswer(b, "portforwardingrule", benchRule)},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.body)))
			for b.Loop() {
				if n, err := c.decode(c.body); err != nil || n != benchPage {
					b.Fatalf("%d items, %v", n, err)
				}
			}
		})
	}
}
