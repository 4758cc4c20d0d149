package docs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// docCommand is a command line of the documents: a logical line of a ```sh block (continuation
// lines joined; a block whose info string says `sh script` is one command), or a code span of
// the prose that starts with a program an operator runs (hostCommand).
type docCommand struct {
	file    string
	line    int
	text    string
	block   string // the first command of its block; empty for a code span
	blockAt int    // the line of its block's fence; 0 for a code span
}

func (c docCommand) String() string { return fmt.Sprintf("%s:%d: %s", c.file, c.line, c.text) }

// hostCommand is a code span of the prose that is a command line: a program's name with at
// least one argument.
var hostCommand = regexp.MustCompile(`^(cks-drift-exporter|\./cks-drift-exporter|sudo|runuser|systemctl|journalctl|curl|promtool|amtool|dpkg|rpm|ssh|ssh-keygen|ssh-keyscan|nc|cmk|kubectl|crictl|make|go|helm|rabbitmqctl|openssl|apt-get|sh|install|mv) `)

// phase is when scripts/package-test.sh runs a command: after the package's install and before
// the service's first start (the install guide's steps), with the service running, or with it
// stopped again (--once, which needs the state file the service locks).
type phase string

const (
	notRun  phase = ""
	install phase = "install"
	running phase = "running"
	stopped phase = "stopped"
)

// commandRule classifies the commands that match it (on the command, or on the first command
// of its block); the first rule that matches decides. A command of the docs that no rule
// matches fails TestEveryDocumentedCommandIsClassified: a new command is run on a package install,
// or says here why it cannot be.
type commandRule struct {
	match, block *regexp.Regexp
	phase        phase
	why          string // why a command is not run
	exits        []int  // the exit statuses that pass, besides 0
}

var commandRules = []commandRule{
	// Not run, and why.
	{block: regexp.MustCompile(`^helm install `), why: "a Helm install on a Kubernetes cluster: deploy/test's tests run the chart against a real API server"},
	{block: regexp.MustCompile(`^make (build|demo)\b`), why: "a source checkout's build and demo: make test and .ci/run run them; the package test runs the installed binary"},
	{match: regexp.MustCompile(`^(make|go|helm) |^[A-Z_]+=\S+ (make|go) |^\./cks-drift-exporter `), why: "development, in a source checkout: make test and .ci/run run these (make package too, before this test)"},
	{match: regexp.MustCompile(`\bcmk\b`), why: "needs a real CloudStack: cmk (CloudMonkey) calls APIs the simulator does not serve"},
	{match: regexp.MustCompile(`\b(kubectl|crictl|kubelet)\b|^sh cks-drift-kubeconfig\.sh|^set -eu$`), why: "runs on a tenant's Kubernetes cluster or control node, with its admin credentials"},
	{match: regexp.MustCompile(`^rabbitmqctl `), why: "runs on CloudStack's RabbitMQ broker"},
	{match: regexp.MustCompile(`^apt-get `), why: "installs a development machine's packages (.ci/run does)"},
	{block: regexp.MustCompile(`/etc/cks-drift-exporter/east$`), why: "a second cloud's instance, started by the template unit: needs systemd (see the next rule)"},
	{match: regexp.MustCompile(`^(sudo )?(systemctl|journalctl) `), why: "needs a running systemd, which CI machines lack: scripts/package-test.sh starts the unit's ExecStart as systemd would"},
	{match: regexp.MustCompile(`^nc `), why: "netcat, which CI does not install; the ssh command of the same section reaches the same port"},
	{match: regexp.MustCompile(`^ssh-keygen -lf /etc/ssh/`), why: "runs on the control node's console"},
	{match: regexp.MustCompile(`--ssh\.forget-host-key=`), why: "removes a pin with the service stopped; cmd/cks-drift-exporter TestForgetHostKeyNoMatch runs it"},
	{match: regexp.MustCompile(`^[A-Z_]+=(\.\.\.|/path/|https://cloud\.example\.com/)`), why: "the operator's own values: the package test sets CLOUD, CS_API_KEY, CS_SECRET_KEY and SSH_KEY to the simulator's"},
	{match: regexp.MustCompile(`^(dpkg --purge|ssh -v|ssh-keygen -lf|ssh-keyscan -t ed25519|promtool (check|test) (rules|web-config))$`), why: "a program named in a sentence, not a command line"},
	{match: regexp.MustCompile(`^CS_WEBHOOK_SECRET=`), why: "the secret of a webhook that cmk creates on a real CloudStack (next line)"},
	// Run on the package install, as written (placeholders filled, see fillPlaceholders).
	{match: regexp.MustCompile(`^(cks-drift-exporter --config\.check|runuser -u cks-drift-exporter --)$`), why: "named in a sentence: the check without the environment file's keys and user, which fails on a package install"},
	{match: regexp.MustCompile(`^sudo (dpkg -i|install|sed -i) `), phase: install},
	{match: regexp.MustCompile(` --once\b`), phase: stopped, exits: []int{1}}, // 1: drift found, as the simulator has
	{match: regexp.MustCompile(`^(sudo |until |curl |cks-drift-exporter |promtool |amtool |ssh-keyscan |ssh-keygen |rm "\$[A-Z]+"$|[A-Z]+=\$\(mktemp\))`), phase: running},
}

// classify returns the rule of a command, nil when none matches.
func classify(c docCommand) *commandRule {
	for i, r := range commandRules {
		if r.match != nil && r.match.MatchString(c.text) || r.block != nil && r.block.MatchString(c.block) {
			return &commandRules[i]
		}
	}
	return nil
}

// installedExporter is a command of the installed exporter that reads its configuration (every
// flag but --version and --help).
var installedExporter = regexp.MustCompile(`(^|[ ;&|])cks-drift-exporter --(?:[^vh]|v[^e]|h[^e])`)

// placeholder is a value the docs leave to the operator, as <name>.
var placeholder = regexp.MustCompile(`<[a-z][a-z._ ]*>`)

// fillable are the placeholders the package test can fill from the simulated cloud, with the
// service running.
var fillable = map[string]bool{
	"<port>": true, "<address>": true, "<ssh.user>": true, "<ssh.kubectl_command>": true,
	"<cluster uuid>": true,
}

// TestEveryDocumentedCommandIsClassified: every command line of README.md and docs/*.md is run on
// a package install by scripts/package-test.sh (TestDocumentedCommandsOnAPackage) or says why
// not (commandRules); a new one that is neither fails here. A command that is run may name only
// the placeholders the package test fills.
func TestEveryDocumentedCommandIsClassified(t *testing.T) {
	t.Parallel()
	cmds := documentedCommands(t)
	run := 0
	for _, c := range cmds {
		r := classify(c)
		if r == nil {
			t.Errorf("%s: no rule in docs/commands_test.go says whether the package test runs this command or why not", c)
			continue
		}
		if r.phase == notRun {
			continue
		}
		run++
		if installedExporter.MatchString(c.text) && !strings.Contains(c.text, "/etc/default/cks-drift-exporter") {
			t.Errorf("%s: the installed exporter reads the API keys of its configuration from /etc/default/cks-drift-exporter: without them it stops at 'environment variable CS_API_KEY is not set' (install.md has the commands)", c)
		}
		for _, p := range placeholder.FindAllString(c.text, -1) {
			if !fillable[p] || r.phase != running {
				t.Errorf("%s: the package test cannot fill %s (it fills %v with the service running)", c, p, fillable)
			}
		}
	}
	if run < 10 {
		t.Errorf("%d documented commands are run on a package install, want at least 10 (the install guide's)", run)
	}
}

// TestCommandRulesEachMatch: every rule classifies a command of the docs, so that none outlives
// what it was written for.
func TestCommandRulesEachMatch(t *testing.T) {
	t.Parallel()
	used := map[*commandRule]bool{}
	for _, c := range documentedCommands(t) {
		used[classify(c)] = true
	}
	for i := range commandRules {
		if !used[&commandRules[i]] {
			r := commandRules[i]
			t.Errorf("command rule %d (match %v, block %v) matches no command of the docs", i, r.match, r.block)
		}
	}
}

// documentedCommands reads the command lines of README.md and docs/*.md, in that order.
func documentedCommands(t *testing.T) []docCommand {
	t.Helper()
	files, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []docCommand
	for _, f := range append([]string{"../README.md"}, files...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, commandsOf(strings.TrimPrefix(f, "../"), string(b))...)
	}
	return out
}

var fence = regexp.MustCompile("^(\\s*)```(.*)$")

// commandsOf extracts the commands of one Markdown document (file names them).
func commandsOf(file, doc string) []docCommand {
	var out []docCommand
	sc := bufio.NewScanner(strings.NewReader(doc))
	n := 0
	inBlock, shell, script := false, false, false
	var indent, first string
	fenceAt := 0
	var pending *docCommand // a logical line continued with a backslash, or a script block
	for sc.Scan() {
		n++
		line := sc.Text()
		if m := fence.FindStringSubmatch(line); m != nil {
			if !inBlock {
				info := strings.Fields(m[2])
				inBlock, indent, first, fenceAt = true, m[1], "", n
				shell = len(info) > 0 && (info[0] == "sh" || info[0] == "bash")
				script = shell && len(info) > 1 && info[1] == "script"
				if script {
					pending = &docCommand{file: file, line: n + 1, blockAt: n}
				}
			} else {
				if pending != nil && script {
					pending.block = strings.TrimSpace(pending.text)
					out = append(out, *pending)
				}
				inBlock, pending = false, nil
			}
			continue
		}
		if !inBlock {
			for _, s := range codeSpan.FindAllStringSubmatch(line, -1) {
				if hostCommand.MatchString(s[1]) {
					out = append(out, docCommand{file: file, line: n, text: s[1]})
				}
			}
			continue
		}
		if !shell {
			continue
		}
		line = strings.TrimPrefix(line, indent)
		if script {
			pending.text += line + "\n"
			continue
		}
		if pending == nil {
			trimmed := strings.TrimSpace(line)
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			pending = &docCommand{file: file, line: n, blockAt: fenceAt}
		}
		pending.text += strings.TrimSpace(line)
		if strings.HasSuffix(pending.text, "\\") {
			pending.text = strings.TrimSuffix(pending.text, "\\")
			continue
		}
		if first == "" {
			first = pending.text
		}
		pending.block = first
		out = append(out, *pending)
		pending = nil
	}
	return out
}
