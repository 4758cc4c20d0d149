package api

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// The decoding before it was made faster (one pass over a list, strings without escapes read
// without a decoder): the fast paths must read every input as it did.

// oldScalar is what scalar read before, every string and number through encoding/json.
func oldScalar(b []byte) string {
	b = bytes.TrimSpace(b)
	var s string
	var n json.Number
	switch {
	case len(b) == 0:
	case b[0] == '"':
		if json.Unmarshal(b, &s) == nil {
			return s
		}
	case string(b) == "true" || string(b) == "false":
		return string(b)
	case strings.IndexByte("-0123456789", b[0]) >= 0:
		if json.Unmarshal(b, &n) == nil {
			return n.String()
		}
	}
	return ""
}

// oldList is list's decoding as it was: the array into raw elements, then each element.
func oldList[T any](b []byte) (list[T], bool) {
	var raw []json.RawMessage
	if json.Unmarshal(b, &raw) != nil {
		return nil, false
	}
	out := make([]T, len(raw))
	for i, r := range raw {
		var v T
		if json.Unmarshal(r, &v) == nil {
			out[i] = v
		}
	}
	return out, true
}

var oddScalars = []string{
	`"plain"`, `""`, `"with \"quote\""`, `"tab\there"`, `"\u00e9t\u00e9"`, `"été"`, "\"bad \xff utf8\"", "\"raw \x01 control\"",
	`"a"b"`, `"`, `"unterminated`, `0`, `-0`, `7`, `-12`, `007`, `01`, `-`, `1.5`, `1e3`, `-1.0e-2`, `12345678901234567890`,
	`true`, `false`, `tru`, `truex`, `null`, `{}`, `[]`, `[1]`, ` "spaced" `, "\n42\n", `"\/slash"`, `"emoji 😀"`,
}

func TestScalarFastPathsReadAsTheDecoder(t *testing.T) {
	for _, in := range oddScalars {
		if got, want := scalar([]byte(in)), oldScalar([]byte(in)); got != want {
			t.Errorf("scalar(%q) = %q, the decoder reads %q", in, got, want)
		}
	}
}

func TestListInOnePassReadsAsElementByElement(t *testing.T) {
	for _, in := range []string{
		`[]`, `null`, `{}`, `"x"`, `5`, `[null]`, `[{"id":"a","name":"n"},"oops",7,[1,2],{"id":"b"},null,true]`,
		`[{"id":{"x":1},"name":["n"],"state":3,"isetcdnode":"true","nic":"none","details":[1]},{"id":"c","nic":[{"networkid":"n1"},4]}]`,
		`[{"id":"a","virtualmachines":[{"id":"v"},"bad"]}]`, `  [ {"ID":"upper"} ]  `, `[{"id":"a"},]`, `[{"id":"a"}`,
	} {
		var got list[wireVM]
		_ = got.UnmarshalJSON([]byte(in))
		want, ok := oldList[wireVM]([]byte(in))
		if !ok {
			want = nil
		}
		if !reflect.DeepEqual(got, want) || (got == nil) != (want == nil) {
			t.Errorf("list of %s = %#v (nil %v), element by element %#v (nil %v)", in, got, got == nil, want, want == nil)
		}
		var gotC, wantC list[wireCluster]
		_ = gotC.UnmarshalJSON([]byte(in))
		if w, ok := oldList[wireCluster]([]byte(in)); ok {
			wantC = w
		}
		if !reflect.DeepEqual(gotC, wantC) {
			t.Errorf("clusters of %s = %#v, element by element %#v", in, gotC, wantC)
		}
	}
}

// TestRepeatedStringsKeptOnce: the values that repeat from item to item, and a VM's uuid that a
// rule names, share one string within a reading.
func TestRepeatedStringsKeptOnce(t *testing.T) {
	body := []byte(`{"count":2,"virtualmachine":[
		{"id":"a1","name":"n1","state":"Running","account":"acme","domainid":"d1"},
		{"id":"a2","name":"n2","state":"Running","account":"acme","domainid":"d1"}]}`)
	in := strs{}
	_, rows, err := decodePage(body, "virtualmachine", in.vmRow)
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows, %v", len(rows), err)
	}
	a, b := rows[0].vm, rows[1].vm
	if a.Account != "acme" || a.State != "Running" || a.DomainID != "d1" || a.ID != "a1" || b.ID != "a2" {
		t.Fatalf("rows read wrong: %+v %+v", a, b)
	}
	for _, pair := range [][2]string{{a.Account, b.Account}, {a.State, b.State}, {a.DomainID, b.DomainID}} {
		if unsafe.StringData(pair[0]) != unsafe.StringData(pair[1]) {
			t.Errorf("%q is kept twice", pair[0])
		}
	}
	pf := []byte(`{"count":2,"portforwardingrule":[
		{"id":"r1","ipaddressid":"ip1","ipaddress":"203.0.113.5","virtualmachineid":"a1","publicport":"2222","privateport":"22","protocol":"tcp","networkid":"n"},
		{"id":"r2","ipaddressid":"ip1","ipaddress":"203.0.113.5","virtualmachineid":"a2","publicport":"2223","privateport":"22","protocol":"tcp","networkid":"n"}]}`)
	_, rules, err := decodePage(pf, "portforwardingrule", in.rule)
	if err != nil || len(rules) != 2 {
		t.Fatalf("%d rules, %v", len(rules), err)
	}
	if unsafe.StringData(rules[0].vmID) != unsafe.StringData(a.ID) {
		t.Error("the uuid of a VM that its rule names is kept twice")
	}
	g := groupRules([]wireNetwork{{ID: "n", Type: "Isolated"}}, []wireFirewall{{ID: "f1", IPAddressID: "ip1", NetworkID: "n", Protocol: "tcp"}}, nil, nil, rules, in)
	r := g["n"]
	if len(r.Forwarding) != 2 || len(r.Firewall) != 1 || cap(r.Forwarding) != 2 {
		t.Fatalf("rules %+v (room for %d)", r, cap(r.Forwarding))
	}
	if unsafe.StringData(r.Forwarding[0].AddressID) != unsafe.StringData(r.Forwarding[1].AddressID) ||
		unsafe.StringData(r.Forwarding[0].AddressID) != unsafe.StringData(r.Firewall[0].AddressID) ||
		unsafe.StringData(r.Forwarding[0].Protocol) != unsafe.StringData(r.Firewall[0].Protocol) {
		t.Error("the address and protocol the rules share are kept more than once")
	}
}
