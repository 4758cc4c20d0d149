package docs

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cks-drift-exporter/cks-drift-exporter/config"
)

// TestDocumentedCommandsOnAPackage runs the documented commands that commandRules mark to run,
// as written, on the package scripts/package-test.sh installed, against the simulated cloud:
// the script runs it inside the service's network namespace, as root, once for each phase
// (CKS_DRIFT_DOCS_PHASE): install (the install guide's steps, before the service's first start),
// running, and stopped (--once, with the pins the service made). The commands of one block and phase run in one shell, in order, so that a
// variable one sets reaches the next, each with its status checked. CLOUD, CS_API_KEY,
// CS_SECRET_KEY and SSH_KEY are set to the simulator's by the script; the working directory
// (CKS_DRIFT_DOCS_DIR) holds dist/ with the .deb and this tree's rules/ and examples/; the
// placeholders are filled from the simulated cloud and the service's log (CKS_DRIFT_DOCS_LOG).
// The last phase fails when a command marked to run was run in none (CKS_DRIFT_DOCS_RAN lists
// those that were).
func TestDocumentedCommandsOnAPackage(t *testing.T) {
	ph := phase(os.Getenv("CKS_DRIFT_DOCS_PHASE"))
	if ph != install && ph != running && ph != stopped {
		t.Skip("run by scripts/package-test.sh on a package install (CKS_DRIFT_DOCS_PHASE=install, running, stopped)")
	}
	dir, ranFile := os.Getenv("CKS_DRIFT_DOCS_DIR"), os.Getenv("CKS_DRIFT_DOCS_RAN")
	if dir == "" || ranFile == "" {
		t.Fatal("CKS_DRIFT_DOCS_DIR and CKS_DRIFT_DOCS_RAN must be set")
	}
	cmds := documentedCommands(t)
	var values map[string]string
	fingerprint := ""
	if ph == running {
		values, fingerprint = simulatorValues(t, os.Getenv("CKS_DRIFT_DOCS_LOG"))
	}
	for _, g := range commandGroups(cmds, ph) {
		t.Run(g[0].file+":"+fmt.Sprint(g[0].line), func(t *testing.T) {
			script := ""
			for _, c := range g {
				script += guarded(c, fillPlaceholders(c.text, values))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "sh", "-c", script)
			cmd.Dir = dir
			out, err := cmd.CombinedOutput()
			t.Logf("ran:\n%s\noutput:\n%s", script, out)
			if err != nil {
				t.Errorf("%s: the documented commands fail as written: %v", g[0], err)
			}
			// The host key's fingerprint as ssh-keygen prints it is the one the exporter pinned.
			if strings.Contains(script, "ssh-keygen -lf") && !strings.Contains(string(out), fingerprint) {
				t.Errorf("%s: ssh-keygen -lf does not print the fingerprint the exporter logged (%s)", g[0], fingerprint)
			}
			// The reason the docs give for logging in as the service's user: as root, ssh refuses
			// the key install.md installs (0440, root's own).
			if asUser := "sudo -u cks-drift-exporter ssh "; strings.Contains(script, asUser) {
				asRoot := strings.ReplaceAll(script, asUser, "ssh -o BatchMode=yes ")
				out, err := exec.CommandContext(ctx, "sh", "-c", asRoot).CombinedOutput()
				if err == nil || !strings.Contains(string(out), "are too open") {
					t.Errorf("%s: as root, ssh was expected to refuse the key as too open (%v):\n%s", g[0], err, out)
				}
			}
			f, ferr := os.OpenFile(ranFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if ferr != nil {
				t.Fatal(ferr)
			}
			defer f.Close()
			for _, c := range g {
				fmt.Fprintln(f, c)
			}
		})
	}
	if ph != stopped {
		return
	}
	b, err := os.ReadFile(ranFile)
	if err != nil {
		t.Fatal(err)
	}
	ran := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		ran[l] = true
	}
	for _, c := range cmds {
		if r := classify(c); r != nil && r.phase != notRun && !ran[c.String()] {
			t.Errorf("%s: marked to run on a package install, and not run", c)
		}
	}
}

// commandGroups returns the commands to run in phase ph, those of one block in one group (in
// the document's order), each code span in a group of its own.
func commandGroups(cmds []docCommand, ph phase) [][]docCommand {
	var groups [][]docCommand
	at := map[string]int{} // a block's group
	for _, c := range cmds {
		if r := classify(c); r == nil || r.phase != ph {
			continue
		}
		key := fmt.Sprintf("%s:%d", c.file, c.blockAt)
		if i, ok := at[key]; ok && c.blockAt != 0 {
			groups[i] = append(groups[i], c)
			continue
		}
		at[key] = len(groups)
		groups = append(groups, []docCommand{c})
	}
	return groups
}

// guarded is a command as a line of a shell script that stops the script, naming the command,
// when its status is not one its rule accepts.
func guarded(c docCommand, text string) string {
	ok := "0"
	for _, e := range classify(c).exits {
		ok += fmt.Sprintf("|%d", e)
	}
	return fmt.Sprintf("%s\ns=$?; case $s in %s) ;; *) echo \"exit status $s: %s\"; exit 1 ;; esac\n",
		text, ok, strings.ReplaceAll(c.String(), `"`, `'`))
}

// fillPlaceholders puts the simulated cloud's values for the placeholders in a command.
func fillPlaceholders(text string, values map[string]string) string {
	return placeholder.ReplaceAllStringFunc(text, func(p string) string {
		if v, ok := values[p]; ok {
			return v
		}
		return p
	})
}

// simulatorValues are the values of the placeholders on the simulated cloud: its prod-east
// cluster (from /findings), the address of its control node as the exporter pinned it (the
// service's log), and the exporter's defaults for the user and the command (the packaged
// configuration sets neither); and the fingerprint of the pinned key.
func simulatorValues(t *testing.T, logFile string) (values map[string]string, fingerprint string) {
	t.Helper()
	resp, err := http.Get("http://127.0.0.1:9862/findings")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var report struct {
		Clusters []struct{ ID, Name string } `json:"clusters"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&report); err != nil {
		t.Fatal(err)
	}
	id := ""
	for _, c := range report.Clusters {
		if c.Name == "prod-east" {
			id = c.ID
		}
	}
	if id == "" {
		t.Fatalf("/findings names no cluster prod-east: %+v", report.Clusters)
	}
	log, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	pinned := regexp.MustCompile(`msg="Pinned the SSH host key[^"]*" cluster_id=` + regexp.QuoteMeta(id) + ` addr=([0-9.]+):([0-9]+) key_type=\S+ fingerprint=(\S+)`).FindSubmatch(log)
	if pinned == nil {
		t.Fatalf("the service's log (%s) has no pinned host key of prod-east (%s)", logFile, id)
	}
	d := config.Defaults()
	return map[string]string{
		"<cluster uuid>":        id,
		"<address>":             string(pinned[1]),
		"<port>":                string(pinned[2]),
		"<ssh.user>":            d.SSH.User,
		"<ssh.kubectl_command>": d.SSH.KubectlCommand,
	}, string(pinned[3])
}
