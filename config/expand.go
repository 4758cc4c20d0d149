package config

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// envRef matches ${NAME}. Only this form is expanded, so a secret written
// inline that happens to hold a bare "$" is left as it is.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// located is one place of the file: the dotted key, the node as written there (its line is
// where the key is; it may be an alias) and the node it stands for (the alias's anchor).
type located struct {
	key   string
	node  *yaml.Node
	value *yaml.Node
	// skipped is set inside a mapping that holds a key twice: yaml decodes nothing of it, so
	// nothing in it is checked either.
	skipped bool
}

// duplicate is a key set twice in one mapping, on the lines of first and again.
type duplicate struct {
	section      string
	first, again *yaml.Node
}

// walker walks the parsed tree along the schema: it replaces ${NAME} in the values, and
// records every value with its key, the keys the schema does not know and the keys set twice,
// so that problems are reported by key and line from the tree itself rather than from yaml's
// error texts. Expanding scalar values after parsing, rather than the raw text, means a
// variable's value is only ever a value: it cannot add keys or change the structure of the file.
type walker struct {
	lookup     func(string) (string, bool)
	values     []located // every value at a key of the schema, in the order of the file
	unknown    []located // keys the schema does not know: key is their section, node the key
	duplicates []duplicate
	problems   []*problem // unset environment variables
}

func newWalker(lookup func(string) (string, bool)) *walker {
	return &walker{lookup: lookup}
}

func (w *walker) walk(n *yaml.Node, key string) { w.visit(n, key, false, false) }

// visit records n as the value of key and goes on into its mapping. aliased: n was reached
// through an alias, so its scalars were expanded where they are written, if at all, and are not
// expanded again. skipped: see located.
func (w *walker) visit(n *yaml.Node, key string, aliased, skipped bool) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			w.visit(c, key, aliased, skipped)
		}
		return
	}
	t, known := schema.lookup(key)
	if !known {
		return // an unknown key, recorded by its mapping
	}
	value := n
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return
		}
		value, aliased = n.Alias, true
	}
	w.values = append(w.values, located{key: key, node: n, value: value, skipped: skipped})
	switch value.Kind {
	case yaml.MappingNode:
		if t.Kind() != reflect.Struct {
			return
		}
		if !skipped {
			skipped = w.findDuplicates(value, key)
		}
		for i := 0; i+1 < len(value.Content); i += 2 {
			k := value.Content[i]
			child := join(key, keyName(k))
			if _, ok := schema.lookup(child); !ok {
				if !skipped {
					w.unknown = append(w.unknown, located{key: key, node: k, value: resolve(k)})
				}
				continue
			}
			w.visit(value.Content[i+1], child, aliased, skipped)
		}
	case yaml.SequenceNode:
		// A list of sections (accept): each item is checked as a section of its own, named by
		// its index, accept[0].
		if !isSectionList(t) {
			return
		}
		for i, item := range value.Content {
			w.visit(item, fmt.Sprintf("%s[%d]", key, i), aliased, skipped)
		}
	case yaml.ScalarNode:
		if !aliased {
			w.expand(value, key, t)
		}
	}
}

// findDuplicates records the keys set twice in a mapping, pair by pair as yaml finds them, and
// reports whether there are any: yaml then decodes nothing of the mapping.
func (w *walker) findDuplicates(m *yaml.Node, section string) bool {
	found := false
	for i := 0; i < len(m.Content); i += 2 {
		for j := i + 2; j < len(m.Content); j += 2 {
			a, b := m.Content[i], m.Content[j]
			if a.Kind == b.Kind && a.Value == b.Value {
				w.duplicates = append(w.duplicates, duplicate{section: section, first: a, again: b})
				found = true
			}
		}
	}
	return found
}

func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

// keyName is the name a mapping key gives its value.
func keyName(k *yaml.Node) string { return resolve(k).Value }

// expand replaces the references in one scalar. A value with an unset
// variable is left as written and reported once per variable.
func (w *walker) expand(n *yaml.Node, key string, t reflect.Type) {
	if !strings.Contains(n.Value, "${") {
		return
	}
	var missing []string
	value := envRef.ReplaceAllStringFunc(n.Value, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, ok := w.lookup(name)
		if !ok && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		return v
	})
	for _, name := range missing {
		w.problems = append(w.problems, &problem{line: n.Line, key: key,
			msg: fmt.Sprintf("%s: environment variable %s is not set", key, name)})
	}
	if len(missing) > 0 {
		return
	}
	n.Value = value
	// "${X}" is a string to YAML, even unquoted. For a number, boolean or
	// duration the expanded text is read as if it had been written plain,
	// so `port: "${SSH_PORT}"` works; strings keep their string tag, so a
	// value such as "null" or "a: b" stays exactly that string.
	if t.Kind() != reflect.String && n.Style&yaml.TaggedStyle == 0 {
		n.Tag, n.Style = "", 0
	}
}

// secrets returns every node that is, or lies within, the value of a secret key, however it got
// there: written at the key, or shared with it through an anchor and an alias. No message may
// quote such a node, wherever else it is used.
func (w *walker) secrets() map[*yaml.Node]bool {
	out := make(map[*yaml.Node]bool)
	var mark func(n *yaml.Node)
	mark = func(n *yaml.Node) {
		n = resolve(n)
		if out[n] {
			return
		}
		out[n] = true
		for _, c := range n.Content {
			mark(c)
		}
	}
	for _, l := range w.values {
		if t, _ := schema.lookup(l.key); t == reflect.TypeFor[Secret]() {
			mark(l.value)
		}
	}
	return out
}

// hideSecrets replaces in msg every secret value, and the first characters of each, which is
// what yaml quotes of a long value. It guards the one message taken from yaml's text.
func hideSecrets(msg string, secrets map[*yaml.Node]bool) string {
	var values []string
	for n := range secrets {
		if n.Kind == yaml.ScalarNode && n.Value != "" {
			values = append(values, n.Value, n.Value[:min(len(n.Value), 7)])
		}
	}
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, v := range values {
		msg = strings.ReplaceAll(msg, v, redactedSecret)
	}
	return msg
}

// schema maps every dotted key the file may hold to the Go type it decodes into.
var schema = newKeySchema(reflect.TypeFor[Config]())

type keySchema struct {
	types map[string]reflect.Type
}

func newKeySchema(t reflect.Type) keySchema {
	s := keySchema{types: map[string]reflect.Type{}}
	s.add("", t)
	return s
}

func (s keySchema) add(key string, t reflect.Type) {
	s.types[key] = t
	if isSectionList(t) {
		s.add(key+"[]", t.Elem()) // the items of a list of sections, whatever their index
		return
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		s.add(join(key, name), f.Type)
	}
}

// isSectionList reports whether t is a list of sections, such as accept.
func isSectionList(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Struct
}

// listIndex is the index of an item in a dotted key, accept[2].kind.
var listIndex = regexp.MustCompile(`\[\d+\]`)

// lookup returns the type of a dotted key, items of lists named by their index.
func (s keySchema) lookup(key string) (reflect.Type, bool) {
	t, ok := s.types[listIndex.ReplaceAllString(key, "[]")]
	return t, ok
}

func join(section, key string) string {
	if section == "" {
		return key
	}
	return section + "." + key
}

// describe says what key expected when its value n could not be decoded
// into t. Values are quoted to help find the mistake, except for secrets.
func describe(key string, n *yaml.Node, t reflect.Type, secret bool) string {
	var got string
	switch {
	case n.Kind == yaml.MappingNode:
		got = "a mapping"
	case n.Kind == yaml.SequenceNode:
		got = "a list"
	case secret || t == reflect.TypeFor[Secret]():
		got = "that value"
	case len(n.Value) > 40:
		got = fmt.Sprintf("%q", n.Value[:37]+"...")
	default:
		got = fmt.Sprintf("%q", n.Value)
	}
	switch {
	case t.Kind() == reflect.Struct && key == "":
		return "the file must be a mapping of sections, not " + got
	case t.Kind() == reflect.Struct:
		return key + ": must be a mapping, not " + got
	case t.Kind() == reflect.Slice:
		return key + ": must be a list, not " + got
	case n.Kind != yaml.ScalarNode:
		return key + ": must be a single value, not " + got
	case t == reflect.TypeFor[time.Duration]():
		return key + ": must be a duration such as 30s or 5m, not " + got
	case t == reflect.TypeFor[Until]():
		return key + ": must be a date such as 2027-03-31 or an RFC 3339 time such as 2027-03-31T18:00:00Z, not " + got
	case t.Kind() == reflect.Bool:
		return key + ": must be true or false, not " + got
	case t.Kind() == reflect.Int:
		return key + ": must be a whole number, not " + got
	}
	return key + ": cannot be " + got
}
