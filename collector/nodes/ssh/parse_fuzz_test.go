package ssh

import (
	"strings"
	"testing"
)

// FuzzParseNodes checks that ParseNodes either understands the whole of kubectl's answer or
// refuses it: a list it returns holds exactly the names of the input's node lines (node/<name>
// or <name> <version>), each a valid node name with a version of at most 64 safe bytes, and
// anything else in the input is an error without a list.
func FuzzParseNodes(f *testing.F) {
	// Huge lines are built here rather than stored in testdata/fuzz/FuzzParseNodes.
	f.Add([]byte("node/" + strings.Repeat("a", 253) + "\n"))
	f.Add([]byte("node/" + strings.Repeat("a", 254) + "\n"))
	f.Add([]byte("node/demo-control-1\n" + strings.Repeat("x", 4096) + "\n"))
	f.Add([]byte(strings.Repeat("node/w-1.example.com\n", 200)))
	f.Add([]byte("demo-control-1   v1.28.4\ndemo-node-2      <none>\n"))
	f.Add([]byte("demo-control-1 v1.28.4+k3s1\r\nnode/demo-node-2\n"))
	f.Add([]byte("demo-control-1 v1.28.4\x1b[2J\n"))
	f.Fuzz(func(t *testing.T, out []byte) {
		nodes, err := ParseNodes(out, 1000)
		if err != nil {
			if nodes != nil {
				t.Fatalf("ParseNodes() returned %q with its error %v, want no list", nodes, err)
			}
			if r := Reason(err); r != reasonBadOutput {
				t.Errorf("Reason(%v) = %q, want %q", err, r, reasonBadOutput)
			}
			// shorten keeps 80 bytes of a bad line; %q may spell each byte as \xNN.
			if n := len(err.Error()); n > 512 {
				t.Errorf("error is %d bytes long, want a short one: %.600s", n, err)
			}
			return
		}
		if len(nodes) == 0 {
			t.Fatal("ParseNodes() returned no node and no error")
		}
		// The names the input's lines stand for, in order of first appearance: a list that
		// misses a line, or holds a name no line gives, is a partial or invented answer.
		var want []string
		versions := make(map[string]string)
		seen := make(map[string]bool)
		for _, line := range strings.Split(string(out), "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			name, ok := strings.CutPrefix(line, "node/")
			version := ""
			if !ok {
				fields := strings.Fields(line)
				if len(fields) != 2 {
					t.Fatalf("ParseNodes() accepted the line %q", line)
				}
				name, version = fields[0], fields[1]
			}
			if !seen[name] {
				seen[name] = true
				want = append(want, name)
				versions[name] = version
			}
		}
		if len(nodes) != len(want) {
			t.Fatalf("ParseNodes() = %d names, want the %d distinct node lines %q", len(nodes), len(want), want)
		}
		for i, n := range nodes {
			if n.Name != want[i] {
				t.Errorf("name %d = %q, want %q (input order, duplicates dropped)", i, n.Name, want[i])
			}
			if problem := checkDNSSubdomain(n.Name); problem != "" {
				t.Errorf("ParseNodes() accepted %q: %s", n.Name, problem)
			}
			if v := n.KubeletVersion; v != "" && v != versions[n.Name] {
				t.Errorf("node %s: version %q, but its line says %q", n.Name, v, versions[n.Name])
			}
			if v := n.KubeletVersion; len(v) > 64 || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r > '~' || r == '<' }) {
				t.Errorf("node %s: version %q kept, want at most 64 printable bytes", n.Name, v)
			}
		}
	})
}

// checkDNSSubdomain is a second, hand-written reading of Kubernetes' IsDNS1123Subdomain, so that
// the fuzz target does not trust the regular expression it checks: at most 253 characters, dot-
// separated labels of lower-case letters, digits and '-', each starting and ending with a letter
// or digit. It returns what is wrong, or "".
func checkDNSSubdomain(name string) string {
	if name == "" || len(name) > 253 {
		return "length must be 1 to 253"
	}
	for _, label := range strings.Split(name, ".") {
		if label == "" {
			return "empty label"
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
			if !alnum && (c != '-' || i == 0 || i == len(label)-1) {
				return "bad character or label edge"
			}
		}
	}
	return ""
}
