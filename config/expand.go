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

// located is one value of the file and the dotted key it is the value of.
type located struct {
	key  string
	node *yaml.Node
}

// walker replaces ${NAME} in the values of the parsed tree, and remembers
// which key and value sit on which line so that decode errors, which yaml
// reports by line and Go type, can be given the key's name. Expanding scalar values
// after parsing, rather than the raw text, means a variable's value is only
// ever a value: it cannot add keys or change the structure of the file.
type walker struct {
	lookup   func(string) (string, bool)
	lines    map[int][]located // values by line
	keys     map[int][]located // keys by line
	problems []*problem
}

func newWalker(lookup func(string) (string, bool)) *walker {
	return &walker{lookup: lookup, lines: map[int][]located{}, keys: map[int][]located{}}
}

func (w *walker) walk(n *yaml.Node, key string) {
	if n.Kind == yaml.DocumentNode {
		for _, c := range n.Content {
			w.walk(c, key)
		}
		return
	}
	t, known := schema.types[key]
	if !known {
		return // an unknown key, reported by strictKeys
	}
	w.lines[n.Line] = append(w.lines[n.Line], located{key: key, node: n})
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			w.keys[k.Line] = append(w.keys[k.Line], located{key: join(key, k.Value), node: k})
			w.walk(n.Content[i+1], join(key, k.Value))
		}
	case yaml.ScalarNode:
		w.expand(n, key, t)
	}
}

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

// hideSecrets replaces in msg every value of a secret key as the decoder sees it (expanded,
// through an alias), longest first so that a secret holding another is hidden whole.
func (w *walker) hideSecrets(msg string) string {
	var values []string
	for _, located := range w.lines {
		for _, l := range located {
			n := l.node
			if n.Kind == yaml.AliasNode && n.Alias != nil {
				n = n.Alias
			}
			if n.Kind == yaml.ScalarNode && n.Value != "" && schema.types[l.key] == reflect.TypeFor[Secret]() {
				values = append(values, n.Value)
			}
		}
	}
	slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	for _, v := range values {
		msg = strings.ReplaceAll(msg, v, redactedSecret)
	}
	return msg
}

// schema maps every dotted key the file may hold to the Go type it decodes
// into, and each section's Go type name, as yaml prints it, to its key.
var schema = newKeySchema(reflect.TypeFor[Config]())

type keySchema struct {
	types    map[string]reflect.Type
	sections map[string]string
}

func newKeySchema(t reflect.Type) keySchema {
	s := keySchema{types: map[string]reflect.Type{}, sections: map[string]string{}}
	s.add("", t)
	return s
}

func (s keySchema) add(key string, t reflect.Type) {
	s.types[key] = t
	if t.Kind() != reflect.Struct {
		return
	}
	s.sections[t.String()] = key
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		s.add(join(key, name), f.Type)
	}
}

func join(section, key string) string {
	if section == "" {
		return key
	}
	return section + "." + key
}

// describe says what key expected when its value n could not be decoded
// into t. Values are quoted to help find the mistake, except for secrets.
func describe(key string, n *yaml.Node, t reflect.Type) string {
	var got string
	switch {
	case n.Kind == yaml.MappingNode:
		got = "a mapping"
	case n.Kind == yaml.SequenceNode:
		got = "a list"
	case t == reflect.TypeFor[Secret]():
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
	case n.Kind != yaml.ScalarNode:
		return key + ": must be a single value, not " + got
	case t == reflect.TypeFor[time.Duration]():
		return key + ": must be a duration such as 30s or 5m, not " + got
	case t.Kind() == reflect.Bool:
		return key + ": must be true or false, not " + got
	case t.Kind() == reflect.Int:
		return key + ": must be a whole number, not " + got
	}
	return key + ": cannot be " + got
}
