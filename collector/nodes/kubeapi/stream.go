package kubeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// A node list is read as a stream of tokens, not as one document, so that what the exporter
// holds grows with the nodes it keeps (three short strings each) and not with the bytes an API
// server sends: the API server belongs to the tenant, and 16 of them answering 100 MB each once
// took the exporter past 880 MB when every answer was read whole and then decoded. The bounds:
// maxPageBytes per answer (capTransport), maxToken per string or number (tokenGuard, which also
// bounds the decoder's buffer, since it holds one token at a time), maxDepth of nesting, and
// max_nodes items (the caller's add).
const (
	// maxToken bounds one string or number. The largest in a real node object is an annotation:
	// the API server caps a node's annotations at 256 KiB in all (TotalAnnotationSizeLimitB),
	// and JSON escaping can make a text a few times longer on the wire.
	maxToken = 1 << 20
	// maxDepth bounds nesting. A node object's deepest part is managedFields' fieldsV1, about a
	// dozen levels; encoding/json would otherwise keep a stack entry per level of a hostile
	// answer's "[[[[...".
	maxDepth = 64
)

var (
	errTokenTooLarge = fmt.Errorf("a value of the node list is over %d bytes", maxToken)
	errTooDeep       = fmt.Errorf("the node list nests deeper than %d levels", maxDepth)
)

// decodePage reads one NodeList answer from r, calling add for each item with the fields the
// check uses (metadata.name, status.nodeInfo.systemUUID and kubeletVersion) and returning the
// list's continue token. Every other field is skipped token by token; add's error stops the
// read at once. An error is returned for anything that is not a JSON object of the NodeList's
// shape where those fields are read.
func decodePage(r io.Reader, add func(Node) error) (string, error) {
	d := json.NewDecoder(&tokenGuard{r: r})
	w := walker{d: d}
	var cont string
	err := w.object(func(key string) error {
		switch key {
		case "metadata":
			return w.object(func(key string) error {
				if key == "continue" {
					return w.str(&cont)
				}
				return w.skip()
			})
		case "items":
			return w.array(func() error {
				var n Node
				if err := w.item(&n); err != nil {
					return err
				}
				return add(n)
			})
		}
		return w.skip()
	})
	if err != nil {
		return "", err
	}
	if _, err := d.Token(); err != io.EOF {
		return "", errors.New("the node list has more after its end")
	}
	return cont, nil
}

// pageFailure labels an error of decodePage: add's own verdict as it is, a bound as
// output_too_large, the deadline or the connection as classify says, the rest as bad_output.
func pageFailure(ctx context.Context, err error) error {
	var labelled *Error
	switch {
	case errors.As(err, &labelled):
		return err
	case errors.Is(err, errPageTooLarge), errors.Is(err, errTokenTooLarge), errors.As(err, new(errListTooLarge)):
		return withReason(reasonTooLarge, err)
	case ctx.Err() != nil:
		return classify(ctx, err)
	}
	if r := Reason(classify(ctx, err)); r != reasonOther {
		return withReason(r, err) // a timeout or a reset while the body was read
	}
	return withReason(reasonBadAnswer, fmt.Errorf("the node list is not a NodeList: %w", err))
}

// item reads one node object into n.
func (w *walker) item(n *Node) error {
	return w.object(func(key string) error {
		switch key {
		case "metadata":
			return w.object(func(key string) error {
				if key == "name" {
					return w.str(&n.Name)
				}
				return w.skip()
			})
		case "status":
			return w.object(func(key string) error {
				if key != "nodeInfo" {
					return w.skip()
				}
				return w.object(func(key string) error {
					switch key {
					case "systemUUID":
						return w.str(&n.SystemUUID)
					case "kubeletVersion":
						return w.str(&n.KubeletVersion)
					}
					return w.skip()
				})
			})
		}
		return w.skip()
	})
}

// walker reads a JSON stream token by token and keeps count of the nesting.
type walker struct {
	d     *json.Decoder
	depth int
}

// open reads the next token, which must be delim or null; it reports whether it was delim.
func (w *walker) open(delim json.Delim) (bool, error) {
	tok, err := w.d.Token()
	if err != nil {
		return false, err
	}
	if tok == nil {
		return false, nil
	}
	if tok != delim {
		return false, fmt.Errorf("found %s where the node list has %q", kind(tok), delim.String())
	}
	if w.depth++; w.depth > maxDepth {
		return false, errTooDeep
	}
	return true, nil
}

// object reads an object (or null), calling field for each key; field must read the value.
func (w *walker) object(field func(key string) error) error {
	if ok, err := w.open('{'); !ok || err != nil {
		return err
	}
	for w.d.More() {
		tok, err := w.d.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // the decoder accepts nothing else as a key
		if err := field(key); err != nil {
			return err
		}
	}
	return w.close()
}

// array reads an array (or null), calling elem for each element; elem must read it.
func (w *walker) array(elem func() error) error {
	if ok, err := w.open('['); !ok || err != nil {
		return err
	}
	for w.d.More() {
		if err := elem(); err != nil {
			return err
		}
	}
	return w.close()
}

// close reads the delimiter that ends the object or array being read.
func (w *walker) close() error {
	if _, err := w.d.Token(); err != nil {
		return err
	}
	w.depth--
	return nil
}

// str reads a string (or null, which leaves *s as it is).
func (w *walker) str(s *string) error {
	tok, err := w.d.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case string:
		*s = v
	case nil:
	default:
		return fmt.Errorf("found %s where the node list has a string", kind(tok))
	}
	return nil
}

// skip reads one value of any kind without keeping it.
func (w *walker) skip() error {
	start := w.depth
	for {
		tok, err := w.d.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if w.depth++; w.depth > maxDepth {
				return errTooDeep
			}
		case json.Delim('}'), json.Delim(']'):
			w.depth--
		}
		if w.depth == start {
			return nil
		}
	}
}

// kind names a token for an error message without quoting it: the text is the tenant's.
func kind(tok json.Token) string {
	switch tok {
	case json.Delim('{'), json.Delim('}'):
		return "an object"
	case json.Delim('['), json.Delim(']'):
		return "an array"
	}
	switch tok.(type) {
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// tokenGuard fails a read once a string or a bare value (number, literal) runs longer than
// maxToken, before encoding/json's decoder, which buffers one whole token, holds it. It also
// hands the decoder one byte of each run of whitespace outside strings: the decoder keeps the
// whitespace before a token in its buffer until the token comes, so 32 MiB of spaces (1 MB on
// the wire under gzip) once held about 90 MB a list; JSON gives whitespace outside strings no
// meaning, and one byte still separates what it separated. It tracks only whether it is inside
// a string and whether the last byte there was a backslash, which is all JSON needs to find
// where a string ends.
type tokenGuard struct {
	r        io.Reader
	inString bool
	escaped  bool
	space    bool // the last byte handed on was whitespace outside a string
	run      int  // bytes of the current token so far
}

func (g *tokenGuard) Read(p []byte) (int, error) {
	for {
		n, err := g.r.Read(p)
		kept := 0
		for _, c := range p[:n] {
			space := false
			switch {
			case g.inString:
				switch {
				case g.escaped:
					g.escaped = false
				case c == '\\':
					g.escaped = true
				case c == '"':
					g.inString = false
				}
				if g.inString {
					g.run++
				} else {
					g.run = 0
				}
			case c == ' ' || c == '\t' || c == '\n' || c == '\r':
				space, g.run = true, 0
			case c == '"':
				g.inString, g.run = true, 0
			case c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':':
				g.run = 0
			default:
				g.run++
			}
			if g.run > maxToken {
				return 0, errTokenTooLarge
			}
			if space && g.space {
				continue // dropped: its run has its one byte
			}
			g.space = space
			p[kept] = c
			kept++
		}
		// A read of nothing but dropped whitespace reads again rather than return 0 bytes.
		if kept > 0 || err != nil || n == 0 {
			return kept, err
		}
	}
}
