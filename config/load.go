package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Load reads the configuration file at path and returns it decoded, completed
// with defaults, with its secret files read and validated; see Parse.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	return Parse(data, path)
}

// Parse does what Load does for a file already read. name is the file's path:
// it starts every error message, and relative paths in the file (secret
// files, ca_file, ssh files, storage.path) are taken relative to its
// directory, as Prometheus does, so a configuration keeps working whatever
// directory the exporter is started from.
//
// Every problem found is reported, not only the first, joined with
// errors.Join; each reads "<name>: line N: <key>: <problem>" when it is about
// what the file says at a place, or "<name>: <key>: <problem>" when it is
// about the values as a whole. A YAML syntax error stops everything else.
func Parse(data []byte, name string) (*Config, error) {
	return parse(data, name, os.LookupEnv)
}

// parse is Parse with the environment injected, so tests need not touch the
// process environment.
func parse(data []byte, name string, lookup func(string) (string, bool)) (*Config, error) {
	root, syntax := parseDocument(data)
	if syntax != nil {
		syntax.file = name
		return nil, syntax
	}
	cfg := defaults()
	var doc []*problem
	if root != nil {
		doc = append(doc, strictKeys(data)...)
		w := newWalker(lookup)
		w.walk(root, "")
		doc = append(doc, w.problems...)
		doc = append(doc, decode(root, &cfg, w)...)
	}
	slices.SortStableFunc(doc, func(a, b *problem) int { return a.line - b.line })

	all := doc
	for _, p := range validate(&cfg) {
		if !reported(doc, p.key) {
			all = append(all, p)
		}
	}
	resolvePaths(&cfg, filepath.Dir(name))
	all = append(all, readSecrets(&cfg, all)...)
	if len(all) == 0 {
		return &cfg, nil
	}
	errs := make([]error, len(all))
	for i, p := range all {
		p.file = name
		errs[i] = p
	}
	return nil, errors.Join(errs...)
}

// problem is one thing wrong with the file. key is the dotted key it is about,
// kept apart from the message so that a value already reported as unreadable
// is not reported again by validation.
type problem struct {
	file string
	line int // 0 when the problem is not about one place in the file
	key  string
	all  bool // nothing of the file was decoded, so no value is worth checking
	msg  string
	err  error // the cause, for errors.Is, when there is one
}

func (p *problem) Error() string {
	s := p.msg
	if p.line > 0 {
		s = "line " + strconv.Itoa(p.line) + ": " + s
	}
	if p.file != "" {
		s = p.file + ": " + s
	}
	return s
}

func (p *problem) Unwrap() error { return p.err }

// reported tells whether key, or the section holding it, already has a problem.
func reported(ps []*problem, key string) bool {
	for _, p := range ps {
		if p.all || p.key != "" && (p.key == key || strings.HasPrefix(key, p.key+".")) {
			return true
		}
	}
	return false
}

var (
	yamlLine        = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownField    = regexp.MustCompile(`^line (\d+): field (.+) not found in type (\S+)$`)
	duplicateKey    = regexp.MustCompile(`^line (\d+): mapping key (".*") already defined at line (\d+)$`)
	cannotUnmarshal = regexp.MustCompile("^line (\\d+): cannot unmarshal (\\S+)(?: `(.*)`)? into (.+)$")
)

// parseDocument parses the file into a node tree, or returns nil for a file
// without content. Only one document is allowed: a second one would be
// silently ignored otherwise. An empty one, as a trailing "---" makes, is
// no harm.
func parseDocument(data []byte) (*yaml.Node, *problem) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); errors.Is(err, io.EOF) {
		return nil, nil
	} else if err != nil {
		return nil, syntaxProblem(err)
	}
	for {
		var next yaml.Node
		if err := dec.Decode(&next); errors.Is(err, io.EOF) {
			return &root, nil
		} else if err != nil {
			return nil, syntaxProblem(err)
		}
		if len(next.Content) > 0 && next.Content[0].ShortTag() != "!!null" {
			return nil, &problem{line: next.Line, msg: "the file holds more than one YAML document"}
		}
	}
}

// strictKeys decodes the file as written with KnownFields(true) and keeps
// only the unknown keys: type problems are left to decode, which sees the
// values after ${VAR} expansion. It has to read the text again because
// yaml.Node.Decode cannot be made strict.
func strictKeys(data []byte) []*problem {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var scratch Config
	var te *yaml.TypeError
	if !errors.As(dec.Decode(&scratch), &te) {
		return nil
	}
	var ps []*problem
	for _, e := range te.Errors {
		if m := unknownField.FindStringSubmatch(e); m != nil {
			ps = append(ps, &problem{line: atoi(m[1]), msg: fmt.Sprintf("unknown key %q %s", m[2], where(m[3]))})
		}
	}
	return ps
}

// where names the section a Go type stands for, as yaml reports types.
func where(typeName string) string {
	if section := schema.sections[typeName]; section != "" {
		return "in " + section
	}
	return "at the top level"
}

// decode decodes the expanded tree onto cfg, which already holds the
// defaults, and rewrites yaml's errors to name the key.
func decode(root *yaml.Node, cfg *Config, w *walker) []*problem {
	err := root.Decode(cfg)
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		if err != nil {
			// yaml stops at a value it cannot decode, such as "!!int abc", and quotes it in
			// full: a secret's value must not show.
			p := yamlProblem(err.Error())
			p.msg = w.hideSecrets(p.msg)
			return []*problem{p}
		}
		return nil
	}
	var ps []*problem
	for _, e := range te.Errors {
		if m := duplicateKey.FindStringSubmatch(e); m != nil {
			ps = append(ps, duplicateProblem(m, w.keys))
		} else {
			ps = append(ps, typeProblem(e, w.lines))
		}
	}
	return ps
}

// duplicateProblem reports a key set twice. yaml then skips the whole
// mapping holding it, so that section's values are not validated either:
// they would only be the defaults.
func duplicateProblem(m []string, keys map[int][]located) *problem {
	line := atoi(m[1])
	name, _ := strconv.Unquote(m[2])
	for _, k := range keys[line] {
		if k.node.Value == name {
			section := ""
			if i := strings.LastIndex(k.key, "."); i >= 0 {
				section = k.key[:i]
			}
			return &problem{line: line, key: section, all: section == "",
				msg: fmt.Sprintf("%s: set twice (first on line %s)", k.key, m[3])}
		}
	}
	return &problem{line: line, all: true, msg: fmt.Sprintf("key %s set twice (first on line %s)", m[2], m[3])}
}

// typeProblem finds the key behind a "cannot unmarshal" error by its line and
// Go type, and says what the key expected.
func typeProblem(e string, lines map[int][]located) *problem {
	m := cannotUnmarshal.FindStringSubmatch(e)
	if m == nil {
		return yamlProblem(e)
	}
	line, value, typeName := atoi(m[1]), m[3], m[4]
	for _, l := range lines[line] {
		t := schema.types[l.key]
		if t.String() == typeName && sameValue(l.node, value) {
			return &problem{line: line, key: l.key, all: l.key == "", msg: describe(l.key, l.node, t)}
		}
	}
	return yamlProblem(e)
}

// sameValue compares a node with the value yaml quotes in an error, which it
// cuts to seven characters and "..." when longer than ten.
func sameValue(n *yaml.Node, quoted string) bool {
	if n.Kind != yaml.ScalarNode || quoted == "" {
		return true
	}
	if cut, ok := strings.CutSuffix(quoted, "..."); ok && len(n.Value) > 10 {
		return strings.HasPrefix(n.Value, cut)
	}
	return n.Value == quoted
}

// syntaxProblem says that the file is not YAML at all.
func syntaxProblem(err error) *problem {
	p := yamlProblem(err.Error())
	p.msg = "invalid YAML: " + p.msg
	return p
}

// yamlProblem turns a yaml error text into a problem, taking its line number
// out so that it is printed like every other problem.
func yamlProblem(e string) *problem {
	e = strings.TrimPrefix(e, "yaml: ")
	if m := yamlLine.FindStringSubmatch(e); m != nil {
		return &problem{line: atoi(m[1]), msg: m[2]}
	}
	return &problem{msg: e}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
