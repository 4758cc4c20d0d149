package sshtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
)

// answer is what a command writes and its exit status.
type answer struct {
	stdout, stderr string
	status         uint32
}

// kubectlCall is a command line the fake control node answers as kubectl would: kubectl (or
// /opt/bin/kubectl, where CKS installs it), through sudo or not, "get nodes" (node, no), and
// the flags an operator would give it.
type kubectlCall struct {
	output    string   // -o: "" (the table), name, wide, json or custom-columns=<spec>
	noHeaders bool     // --no-headers
	names     []string // the nodes asked for by name; none: every node
}

// kubectlPaths are the names under which the control node has kubectl.
var kubectlPaths = []string{"kubectl", "/opt/bin/kubectl"}

// shellSyntax are the characters after which sh would do more than run one program. The fake
// runs no shell, so a command holding one outside quotes runs nothing.
const shellSyntax = ";&|<>()$`\\\n"

// parseCommand reads command as sh, sudo and kubectl would. It returns the call when the
// command is a kubectl get nodes that kubectl accepts, else what sh, sudo or kubectl answers;
// Server.Commands counts only the calls.
func parseCommand(command string) (kubectlCall, *answer) {
	words, ok := shellWords(command)
	if !ok {
		return kubectlCall{}, &answer{stderr: "sh: 1: the fake control node runs no shell syntax (" + strconv.Quote(shellSyntax) + "), only kubectl get nodes\n", status: 2}
	}
	if len(words) == 0 {
		return kubectlCall{}, &answer{}
	}
	sudo := words[0] == "sudo"
	if sudo {
		words = words[1:]
		for len(words) > 0 && words[0] == "-n" { // non-interactive: the same here
			words = words[1:]
		}
		if len(words) == 0 {
			return kubectlCall{}, &answer{stderr: "usage: sudo -h | -K | -k | -V\n", status: 1}
		}
	}
	switch {
	case slices.Contains(kubectlPaths, words[0]):
		return parseKubectl(words[1:])
	case sudo:
		return kubectlCall{}, &answer{stderr: "sudo: " + words[0] + ": command not found\n", status: 1}
	default:
		return kubectlCall{}, &answer{stderr: "sh: 1: " + words[0] + ": not found\n", status: 127}
	}
}

// shellWords splits command into words as sh does for a simple command: at blanks, with single
// and double quotes kept together and removed. ok is false for anything more (shellSyntax outside
// quotes, an unclosed quote).
func shellWords(command string) (words []string, ok bool) {
	var (
		word   strings.Builder
		inWord bool
		quote  rune
	)
	for _, r := range command {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case strings.ContainsRune(shellSyntax, r):
			return nil, false
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, true
}

// valueFlags are kubectl's flags that take a value and change nothing the fake prints.
var valueFlags = []string{"request-timeout", "kubeconfig", "context", "cluster", "user", "server"}

// parseKubectl reads kubectl's arguments.
func parseKubectl(args []string) (kubectlCall, *answer) {
	var (
		call       kubectlCall
		positional []string
	)
	fail := func(format string, a ...any) (kubectlCall, *answer) {
		return kubectlCall{}, &answer{stderr: fmt.Sprintf(format, a...) + "\n", status: 1}
	}
	flagError := func(format string, a ...any) (kubectlCall, *answer) { // as kubectl words a bad flag
		return fail("error: "+format+"\nSee 'kubectl get --help' for usage.", a...)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			positional = append(positional, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			switch {
			case name == "no-headers":
				b, err := strconv.ParseBool(value)
				if !hasValue {
					b, err = true, nil
				}
				if err != nil {
					return flagError("invalid argument %q for \"--no-headers\" flag: strconv.ParseBool: parsing %q: invalid syntax", value, value)
				}
				call.noHeaders = b
			case name == "output" || slices.Contains(valueFlags, name):
				if !hasValue {
					if i+1 == len(args) {
						return flagError("flag needs an argument: --%s", name)
					}
					i++
					value = args[i]
				}
				if name == "output" {
					call.output = value
				}
			default:
				return flagError("unknown flag: --%s", name)
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if a[1] != 'o' {
				return flagError("unknown shorthand flag: %q in %s", a[1], a)
			}
			value := strings.TrimPrefix(a[2:], "=")
			if len(a) == 2 {
				if i+1 == len(args) {
					return flagError("flag needs an argument: 'o' in -o")
				}
				i++
				value = args[i]
			}
			call.output = value
		default:
			positional = append(positional, a)
		}
	}
	switch {
	case len(positional) == 0:
		return fail("error: the fake control node answers only kubectl get nodes")
	case positional[0] != "get":
		return fail("error: the fake control node answers only kubectl get nodes, not kubectl %s", positional[0])
	case len(positional) == 1:
		return fail("error: Required resource not specified.\nUse \"kubectl explain <resource>\" for a detailed description of that resource (e.g. kubectl explain pods).\nSee 'kubectl get -h' for help and examples")
	case !slices.Contains([]string{"nodes", "node", "no"}, strings.ToLower(positional[1])):
		return fail("error: the server doesn't have a resource type %q", positional[1])
	}
	call.names = positional[2:]
	if spec, ok := strings.CutPrefix(call.output, "custom-columns="); ok {
		if _, err := customColumns(spec, nil, true); err != "" {
			return kubectlCall{}, &answer{stderr: err, status: 1}
		}
	} else if !slices.Contains([]string{"", "name", "wide", "json"}, call.output) {
		if format, _, _ := strings.Cut(call.output, "="); slices.Contains([]string{"yaml", "jsonpath", "jsonpath-as-json", "jsonpath-file", "go-template", "go-template-file", "template", "templatefile", "custom-columns-file"}, format) {
			return fail("error: the fake control node does not print -o %s", format)
		}
		return fail("error: unable to match a printer suitable for the output format %q, allowed formats are: custom-columns,custom-columns-file,go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,name,template,templatefile,wide,yaml", call.output)
	}
	return call, nil
}

// node is what the fake knows of one Kubernetes node.
type node struct {
	name, version string // version: "" when the node reports none
	index         int    // its place in the list, for its address
}

// print answers call for nodes, as kubectl prints them.
func (call kubectlCall) print(all []node) answer {
	nodes, missing := all, []string(nil)
	if len(call.names) > 0 {
		nodes = nil
		for _, name := range call.names {
			i := slices.IndexFunc(all, func(n node) bool { return n.name == name })
			if i < 0 {
				missing = append(missing, name)
				continue
			}
			nodes = append(nodes, all[i])
		}
	}
	var ans answer
	for _, name := range missing {
		ans.stderr += fmt.Sprintf("Error from server (NotFound): nodes %q not found\n", name)
		ans.status = 1
	}
	switch spec, columns := strings.CutPrefix(call.output, "custom-columns="); {
	case call.output == "name":
		for _, n := range nodes {
			ans.stdout += "node/" + n.name + "\n"
		}
	case call.output == "json":
		ans.stdout = nodesJSON(nodes)
	case columns:
		out, err := customColumns(spec, nodes, call.noHeaders)
		if err != "" {
			return answer{stderr: err, status: 1}
		}
		ans.stdout = out
	default:
		if len(nodes) == 0 && len(missing) == 0 {
			return answer{stderr: "No resources found\n"}
		}
		ans.stdout = nodeTable(nodes, call.output == "wide", call.noHeaders)
	}
	return ans
}

// table prints rows as kubectl's printer aligns them (k8s.io/cli-runtime's
// printers.GetNewTabWriter: minimum cell width 6, padding 3 spaces, none after the last column).
func table(rows [][]string) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 6, 4, 3, ' ', 0)
	for _, r := range rows {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	_ = w.Flush()
	return b.String()
}

// nodeTable is kubectl's table of nodes, its wide form with the nodes' addresses and software.
func nodeTable(nodes []node, wide, noHeaders bool) string {
	var rows [][]string
	if !noHeaders {
		h := []string{"NAME", "STATUS", "ROLES", "AGE", "VERSION"}
		if wide {
			h = append(h, "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION", "CONTAINER-RUNTIME")
		}
		rows = append(rows, h)
	}
	for _, n := range nodes {
		role := "<none>"
		if strings.Contains(n.name, "-control") {
			role = "control-plane"
		}
		r := []string{n.name, "Ready", role, "10d", n.version}
		if wide {
			r = append(r, fmt.Sprintf("10.1.1.%d", 10+n.index%240), "<none>", "Ubuntu 22.04.5 LTS", "5.15.0-126-generic", "containerd://1.7.22")
		}
		rows = append(rows, r)
	}
	return table(rows)
}

// customColumns prints -o custom-columns=<spec>: the node's name (.metadata.name) and kubelet
// version (.status.nodeInfo.kubeletVersion) are known, any other field prints "<none>", as
// kubectl prints a field the object lacks. err is kubectl's complaint about spec.
func customColumns(spec string, nodes []node, noHeaders bool) (out, err string) {
	if spec == "" {
		return "", "error: custom-columns format specified but no custom columns given\n"
	}
	var headers, paths []string
	for _, col := range strings.Split(spec, ",") {
		header, path, ok := strings.Cut(col, ":")
		if !ok {
			return "", fmt.Sprintf("error: unexpected custom-columns spec: %s, expected <header>:<json-path-expr>\n", col)
		}
		headers, paths = append(headers, header), append(paths, "."+strings.TrimPrefix(strings.Trim(path, "{}"), "."))
	}
	var rows [][]string
	if !noHeaders {
		rows = append(rows, headers)
	}
	for _, n := range nodes {
		r := make([]string, len(paths))
		for i, p := range paths {
			switch {
			case p == ".metadata.name":
				r[i] = n.name
			case p == ".status.nodeInfo.kubeletVersion" && n.version != "":
				r[i] = n.version
			default:
				r[i] = "<none>"
			}
		}
		rows = append(rows, r)
	}
	return table(rows), ""
}

// nodesJSON is kubectl's -o json of a list of nodes (keys sorted, four spaces of indent), with
// the fields the fake knows.
func nodesJSON(nodes []node) string {
	items := make([]any, len(nodes))
	for i, n := range nodes {
		nodeInfo := map[string]any{}
		if n.version != "" {
			nodeInfo["kubeletVersion"] = n.version
		}
		items[i] = map[string]any{"apiVersion": "v1", "kind": "Node",
			"metadata": map[string]any{"name": n.name}, "status": map[string]any{"nodeInfo": nodeInfo}}
	}
	b, _ := json.MarshalIndent(map[string]any{"apiVersion": "v1", "items": items, "kind": "List",
		"metadata": map[string]any{"resourceVersion": ""}}, "", "    ")
	return string(b) + "\n"
}
