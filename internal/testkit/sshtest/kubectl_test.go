package sshtest

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/ssh"
)

// TestKubectlCommands: the fake control node answers every plausible kubectl get nodes as
// kubectl prints it (the path, sudo or not, each output format with and without headers, flags
// in any of kubectl's spellings), kubectl's refusals as kubectl words them, and any other command
// as sh or sudo would, without running it.
func TestKubectlCommands(t *testing.T) {
	s, signer := newTestServer(t)
	s.SetNodes("demo-control-1", "demo-node-2")
	s.SetVersions(map[string]string{"demo-control-1": "v1.33.1", "demo-node-2": "v1.32.4"})
	c := dial(t, s, signer)
	const (
		names   = "node/demo-control-1\nnode/demo-node-2\n"
		columns = "demo-control-1   v1.33.1\ndemo-node-2      v1.32.4\n"
	)
	for _, tc := range []struct {
		command        string
		stdout, stderr string // stderr: a prefix
		status         int
		ran            bool // counted in Commands: kubectl ran
	}{
		{command: DefaultCommand, stdout: columns, ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o name", stdout: names, ran: true},
		{command: "kubectl get nodes -o name", stdout: names, ran: true},
		{command: "sudo -n /opt/bin/kubectl --kubeconfig /etc/kubernetes/admin.conf get no -oname", stdout: names, ran: true},
		{command: "sudo kubectl get node --output=name --request-timeout 5s", stdout: names, ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o=name demo-node-2", stdout: "node/demo-node-2\n", ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion --no-headers", stdout: columns, ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o 'custom-columns=NAME:{.metadata.name},VERSION:status.nodeInfo.kubeletVersion' --no-headers=true", stdout: columns, ran: true},
		{command: `sudo /opt/bin/kubectl get nodes -o "custom-columns=NAME:.metadata.name,VERSION:.status.nodeInfo.kubeletVersion"`,
			stdout: "NAME             VERSION\n" + columns, ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o custom-columns=NAME:.metadata.name,UID:.metadata.uid --no-headers",
			stdout: "demo-control-1   <none>\ndemo-node-2      <none>\n", ran: true},
		{command: "sudo /opt/bin/kubectl get nodes",
			stdout: "NAME             STATUS   ROLES           AGE   VERSION\ndemo-control-1   Ready    control-plane   10d   v1.33.1\ndemo-node-2      Ready    <none>          10d   v1.32.4\n", ran: true},
		{command: "sudo /opt/bin/kubectl get nodes --no-headers -o wide",
			stdout: "demo-control-1   Ready   control-plane   10d   v1.33.1   10.1.1.10   <none>   Ubuntu 22.04.5 LTS   5.15.0-126-generic   containerd://1.7.22\n" +
				"demo-node-2      Ready   <none>          10d   v1.32.4   10.1.1.11   <none>   Ubuntu 22.04.5 LTS   5.15.0-126-generic   containerd://1.7.22\n", ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o json demo-node-2",
			stdout: "{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n        {\n            \"apiVersion\": \"v1\",\n            \"kind\": \"Node\",\n            \"metadata\": {\n                \"name\": \"demo-node-2\"\n            },\n            \"status\": {\n                \"nodeInfo\": {\n                    \"kubeletVersion\": \"v1.32.4\"\n                }\n            }\n        }\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n", ran: true},
		{command: "sudo /opt/bin/kubectl get nodes -o name ghost", stdout: "", stderr: `Error from server (NotFound): nodes "ghost" not found`, status: 1, ran: true},

		// kubectl's refusals
		{command: "sudo /opt/bin/kubectl get nodes --all", stderr: "error: unknown flag: --all\n", status: 1},
		{command: "sudo /opt/bin/kubectl get nodes -x", stderr: "error: unknown shorthand flag: 'x' in -x\n", status: 1},
		{command: "sudo /opt/bin/kubectl get nodes -o", stderr: "error: flag needs an argument: 'o' in -o\n", status: 1},
		{command: "sudo /opt/bin/kubectl get nodes -o table", stderr: `error: unable to match a printer suitable for the output format "table"`, status: 1},
		{command: "sudo /opt/bin/kubectl get nodes -o custom-columns=NAME", stderr: "error: unexpected custom-columns spec: NAME, expected <header>:<json-path-expr>\n", status: 1},
		{command: "sudo /opt/bin/kubectl get pods", stderr: `error: the server doesn't have a resource type "pods"`, status: 1},
		{command: "sudo /opt/bin/kubectl get", stderr: "error: Required resource not specified.", status: 1},

		// sh and sudo
		{command: "rm -rf /", stderr: "sh: 1: rm: not found\n", status: 127},
		{command: "/usr/local/bin/kubectl get nodes -o name", stderr: "sh: 1: /usr/local/bin/kubectl: not found\n", status: 127},
		{command: "sudo /usr/local/bin/kubectl get nodes -o name", stderr: "sudo: /usr/local/bin/kubectl: command not found\n", status: 1},
		{command: "sudo", stderr: "usage: sudo", status: 1},
		{command: "sudo /opt/bin/kubectl get nodes -o name; touch /tmp/x", stderr: "sh: 1: the fake control node runs no shell syntax", status: 2},
		{command: "sudo /opt/bin/kubectl get nodes -o name $(id)", stderr: "sh: 1: the fake control node runs no shell syntax", status: 2},
		{command: "sudo /opt/bin/kubectl get nodes -o 'name", stderr: "sh: 1: the fake control node runs no shell syntax", status: 2},
	} {
		t.Run(tc.command, func(t *testing.T) {
			before := s.Commands()
			stdout, stderr, err := run(t, c, tc.command)
			status := 0
			var exitErr *ssh.ExitError
			if errors.As(err, &exitErr) {
				status = exitErr.ExitStatus()
			} else if err != nil {
				t.Fatal(err)
			}
			if stdout != tc.stdout || !strings.HasPrefix(stderr, tc.stderr) || (tc.stderr == "") != (stderr == "") || status != tc.status {
				t.Errorf("stdout %q\nstderr %q\nexit %d\nwant stdout %q, stderr starting %q, exit %d", stdout, stderr, status, tc.stdout, tc.stderr, tc.status)
			}
			if ran := s.Commands() > before; ran != tc.ran {
				t.Errorf("counted as kubectl run: %v, want %v", ran, tc.ran)
			}
		})
	}
}
