package promqlcheck

import (
	"fmt"
	"regexp"
	"strings"
)

// Parse checks that expr is well-formed PromQL as far as this package can tell (balanced
// parentheses, braces and quotes, known functions, operands and operators in turn, valid
// regular expressions in matchers) and returns its vector selectors in order.
func Parse(expr string) ([]Selector, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	if err := p.run(); err != nil {
		return nil, err
	}
	return p.sels, nil
}

type parser struct {
	toks  []token
	i     int
	stack []string // one entry per open parenthesis: the call it belongs to, or ""
	sels  []Selector
}

func (p *parser) next() token { t := p.toks[p.i]; p.i++; return t }
func (p *parser) peek() token { return p.toks[p.i] }

func errAt(t token, format string, args ...any) error {
	return fmt.Errorf("position %d: "+format, append([]any{t.pos}, args...)...)
}

func unexpected(t token) error {
	if t.kind == tEOF {
		return errAt(t, "unexpected end of expression")
	}
	return errAt(t, "unexpected %q", t.text)
}

// run walks the tokens with one bit of state, whether an operand or an operator comes next,
// which is enough to reject most malformed expressions.
func (p *parser) run() error {
	operand := true // an operand is expected next
	for {
		t := p.next()
		switch t.kind {
		case tEOF:
			if len(p.stack) > 0 {
				return errAt(t, "unclosed (")
			}
			if operand {
				return unexpected(t)
			}
			return nil
		case tNumber, tString:
			if !operand {
				return unexpected(t)
			}
			operand = false
		case tIdent:
			var err error
			if operand, err = p.ident(t, operand); err != nil {
				return err
			}
		case tLBrace:
			if !operand {
				return unexpected(t)
			}
			sel := Selector{}
			if err := p.matchers(&sel); err != nil {
				return err
			}
			if m, ok := sel.Matcher("__name__"); ok && m.Op == "=" {
				sel.Metric = m.Value
			}
			p.add(sel)
			operand = false
		case tRange:
			if operand {
				return unexpected(t)
			}
		case tLParen:
			if !operand {
				return unexpected(t)
			}
			p.stack = append(p.stack, "")
		case tRParen:
			if len(p.stack) == 0 {
				return errAt(t, ") without (")
			}
			top := p.stack[len(p.stack)-1]
			if operand && (top == "" || p.toks[p.i-2].kind != tLParen) {
				return unexpected(t)
			}
			p.stack = p.stack[:len(p.stack)-1]
			operand = false
		case tComma:
			if len(p.stack) == 0 || p.stack[len(p.stack)-1] == "" || operand {
				return unexpected(t)
			}
			operand = true
		case tOp:
			var err error
			if operand, err = p.op(t, operand); err != nil {
				return err
			}
		case tRBrace:
			return unexpected(t)
		}
	}
}

// op handles an operator and returns whether an operand is expected next: "bool" may follow a
// comparison, and "@" takes its operand (a number, start() or end()) at once.
func (p *parser) op(t token, operand bool) (bool, error) {
	if operand {
		if t.text == "+" || t.text == "-" {
			return true, nil // unary
		}
		return true, unexpected(t)
	}
	switch t.text {
	case "=~", "!~", "=":
		return true, unexpected(t)
	case "==", "!=", ">", "<", ">=", "<=":
		if n := p.peek(); n.kind == tIdent && n.text == "bool" {
			p.i++
		}
	case "@":
		switch n := p.next(); {
		case n.kind == tNumber:
			return false, nil
		case n.kind == tIdent && (n.text == "start" || n.text == "end") &&
			p.next().kind == tLParen && p.next().kind == tRParen:
			return false, nil
		default:
			return false, errAt(n, "@ takes a number, start() or end()")
		}
	}
	return true, nil
}

// ident handles a name: a keyword, a function or aggregation call, or a metric selector. It
// returns whether an operand is expected next.
func (p *parser) ident(t token, operand bool) (bool, error) {
	name := t.text
	lower := strings.ToLower(name)
	next := p.peek()
	switch {
	case binaryKeywords[lower]:
		if operand {
			return true, unexpected(t)
		}
		return true, nil
	case lower == "on" || lower == "ignoring" || lower == "group_left" || lower == "group_right":
		if !operand {
			return true, unexpected(t)
		}
		if next.kind == tLParen {
			return true, p.labelList()
		}
		return true, nil
	case lower == "by" || lower == "without":
		// The postfix form: sum(x) by (job).
		if operand || p.toks[p.i-2].kind != tRParen {
			return false, unexpected(t)
		}
		return false, p.labelList()
	case lower == "offset":
		if operand {
			return true, unexpected(t)
		}
		if next.kind == tOp && next.text == "-" {
			p.i++
		}
		if n := p.next(); n.kind != tNumber {
			return false, unexpected(n)
		}
		return false, nil
	case lower == "bool":
		return true, unexpected(t)
	case lower == "inf" || lower == "nan":
		if !operand {
			return false, unexpected(t)
		}
		return false, nil
	}
	if !operand {
		return false, unexpected(t)
	}
	if aggregations[name] && next.kind == tIdent && (next.text == "by" || next.text == "without") {
		p.i++
		if err := p.labelList(); err != nil {
			return true, err
		}
		next = p.peek()
		if next.kind != tLParen {
			return true, unexpected(next)
		}
	}
	if next.kind == tLParen {
		if !functions[name] && !aggregations[name] {
			return true, errAt(t, "unknown function %q", name)
		}
		p.i++
		p.stack = append(p.stack, name)
		return true, nil
	}
	sel := Selector{Metric: name}
	if next.kind == tLBrace {
		p.i++
		if err := p.matchers(&sel); err != nil {
			return false, err
		}
	}
	p.add(sel)
	return false, nil
}

// labelList consumes "(a, b)" after by, without, on, ignoring, group_left or group_right.
func (p *parser) labelList() error {
	if t := p.next(); t.kind != tLParen {
		return unexpected(t)
	}
	for {
		t := p.next()
		if t.kind == tRParen {
			return nil
		}
		if t.kind != tIdent {
			return unexpected(t)
		}
		switch n := p.next(); n.kind {
		case tRParen:
			return nil
		case tComma:
		default:
			return unexpected(n)
		}
	}
}

// matchers consumes the matchers after "{" up to and including "}".
func (p *parser) matchers(sel *Selector) error {
	for {
		t := p.next()
		if t.kind == tRBrace {
			return nil
		}
		if t.kind != tIdent {
			return unexpected(t)
		}
		op := p.next()
		if op.kind != tOp || (op.text != "=" && op.text != "!=" && op.text != "=~" && op.text != "!~") {
			return unexpected(op)
		}
		v := p.next()
		if v.kind != tString {
			return unexpected(v)
		}
		if op.text == "=~" || op.text == "!~" {
			if _, err := regexp.Compile("^(?:" + v.text + ")$"); err != nil {
				return errAt(v, "bad regular expression in matcher %s: %v", t.text, err)
			}
		}
		sel.Matchers = append(sel.Matchers, Matcher{Name: t.text, Op: op.text, Value: v.text})
		switch n := p.next(); n.kind {
		case tRBrace:
			return nil
		case tComma:
		default:
			return unexpected(n)
		}
	}
}

func (p *parser) add(sel Selector) {
	for _, f := range p.stack {
		if f != "" {
			sel.Within = append(sel.Within, f)
		}
	}
	p.sels = append(p.sels, sel)
}
