package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cks-drift-exporter/cks-drift-exporter/internal/testkit/previousrelease"
)

// TestFeaturesOff: a kubectl command that prints names only is named with the fix, whichever
// way it spells -o name; the default, a custom-columns command and the Kubernetes API source
// are not.
func TestFeaturesOff(t *testing.T) {
	for _, tc := range []struct {
		command string
		source  NodeSource
		off     bool
	}{
		{"sudo /opt/bin/kubectl get nodes -o name --request-timeout=5s", NodeSourceSSH, true}, // 0.1.0's default
		{"kubectl get nodes -oname", NodeSourceSSH, true},
		{"kubectl get nodes --output=name", NodeSourceSSH, true},
		{"kubectl get nodes --output name", NodeSourceSSH, true},
		{"kubectl get nodes -o=name", NodeSourceSSH, true},
		{DefaultKubectlCommand, NodeSourceSSH, false},
		{"kubectl get nodes -o custom-columns=NAME:.metadata.name,V:.status.nodeInfo.kubeletVersion --no-headers", NodeSourceSSH, false},
		{"kubectl get nodes -o name", NodeSourceKubernetesAPI, false},
	} {
		c := Defaults()
		c.SSH.KubectlCommand, c.Check.NodeSource = tc.command, tc.source
		got := FeaturesOff(&c)
		if (len(got) > 0) != tc.off {
			t.Errorf("%q (%s): %v, want off=%v", tc.command, tc.source, got, tc.off)
			continue
		}
		if tc.off {
			s := got[0].String()
			for _, want := range []string{"ssh.kubectl_command " + tc.command, "node_version_mismatch", "remove the key", DefaultKubectlCommand} {
				if !strings.Contains(s, want) {
					t.Errorf("warning %q does not say %q", s, want)
				}
			}
		}
	}
}

// TestPreviousReleaseConfig: the whole configuration file the previous release's package
// installed (examples/cks-drift-exporter.yml at packaging/upgrade-from, a conffile an upgrade
// keeps) is named for its kubectl command.
func TestPreviousReleaseConfig(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("needs git")
	}
	commit := previousrelease.Commit(t, git)
	file, err := exec.Command(git, "show", commit+":examples/cks-drift-exporter.yml").Output()
	if err != nil {
		t.Skipf("commit %s (packaging/upgrade-from) is not in this clone: %v", commit, err)
	}
	path := filepath.Join(t.TempDir(), "cks-drift-exporter.yml")
	if err := os.WriteFile(path, file, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CS_API_KEY", "k")
	t.Setenv("CS_SECRET_KEY", "s")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	off := FeaturesOff(c)
	if len(off) != 1 || off[0].Key != "ssh.kubectl_command" {
		t.Errorf("FeaturesOff of %s's configuration = %v, want ssh.kubectl_command", commit, off)
	}
}
