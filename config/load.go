package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
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
		w := newWalker(lookup)
		w.walk(root, "")
		doc = append(doc, w.problems...)
		doc = append(doc, w.check()...)
		doc = append(doc, decode(root, &cfg, w, len(doc))...)
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

// yamlLine takes the line number out of a yaml syntax error, the one kind of yaml error that
// has no typed form (yaml.TypeError covers decoding only).
var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

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

// check reports what the walk found wrong, by key and line, from the nodes and the schema: keys
// the schema does not know, keys set twice, and values that cannot be decoded into their key's
// type. A value shared with a secret key through an anchor is never quoted.
func (w *walker) check() []*problem {
	secrets := w.secrets()
	var ps []*problem
	for _, u := range w.unknown {
		name := strconv.Quote(u.value.Value)
		if secrets[u.value] {
			name = "(the value of a secret)"
		}
		where := "at the top level"
		if u.key != "" {
			where = "in " + u.key
		}
		ps = append(ps, &problem{line: u.node.Line, msg: fmt.Sprintf("unknown key %s %s", name, where)})
	}
	for _, d := range w.duplicates {
		name := join(d.section, keyName(d.again))
		if secrets[resolve(d.again)] {
			name = join(d.section, "(the value of a secret)")
		}
		// yaml decodes nothing of the mapping: its section's values are not validated either,
		// they would only be the defaults.
		ps = append(ps, &problem{line: d.again.Line, key: d.section, all: d.section == "",
			msg: fmt.Sprintf("%s: set twice (first on line %d)", name, d.first.Line)})
	}
	for _, l := range w.values {
		t, _ := schema.lookup(l.key)
		if l.skipped || fits(l.value, t) {
			continue
		}
		ps = append(ps, &problem{line: l.node.Line, key: l.key, all: l.key == "",
			msg: describe(l.key, l.value, t, secrets[l.value])})
	}
	return ps
}

// fits reports whether yaml can decode n into a value of type t. A mapping for a section, or a
// list for a list of sections, fits here; its keys and items are checked one by one.
func fits(n *yaml.Node, t reflect.Type) bool {
	if t.Kind() == reflect.Struct && n.Kind == yaml.MappingNode || isSectionList(t) && n.Kind == yaml.SequenceNode {
		return true
	}
	return n.Decode(reflect.New(t).Interface()) == nil
}

// decode decodes the expanded tree onto cfg, which already holds the defaults. Its errors are
// the ones check has already reported by key; only if check found nothing to report
// (found == 0) is yaml's own text used, with every secret hidden, so that no error is lost.
func decode(root *yaml.Node, cfg *Config, w *walker, found int) []*problem {
	err := root.Decode(cfg)
	if err == nil || found > 0 {
		return nil
	}
	secrets := w.secrets()
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		p := yamlProblem(err.Error())
		p.msg = hideSecrets(p.msg, secrets)
		return []*problem{p}
	}
	var ps []*problem
	for _, e := range te.Errors {
		p := yamlProblem(e)
		p.msg = hideSecrets(p.msg, secrets)
		ps = append(ps, p)
	}
	return ps
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
