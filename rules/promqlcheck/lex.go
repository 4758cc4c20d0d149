// Package promqlcheck reads just enough PromQL to lint rules and dashboards without the
// Prometheus parser, which this module does not depend on.
package promqlcheck

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

type tokenKind int

const (
	tEOF tokenKind = iota
	tIdent
	tNumber
	tString
	tRange // the text between [ and ] (a range or a subquery)
	tOp
	tLParen
	tRParen
	tLBrace
	tRBrace
	tComma
)

type token struct {
	kind tokenKind
	text string // for tString the unquoted value
	pos  int
}

var (
	numberRE = regexp.MustCompile(`^(0[xX][0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?|[0-9]+\.|(\d+(ms|[smhdwy]))+)$`)
	rangeRE  = regexp.MustCompile(`^\s*(\d+(ms|[smhdwy]))+\s*(:\s*((\d+(ms|[smhdwy]))+)?\s*)?$`)
)

// twoCharOps come first so that "==" is not read as "=" "=".
var twoCharOps = []string{"==", "!=", ">=", "<=", "=~", "!~"}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lex splits expr into tokens. It rejects what no PromQL lexer accepts: unknown characters
// (such as a Grafana variable left unsubstituted), unterminated strings, invalid escapes,
// malformed numbers and ranges.
func lex(expr string) ([]token, error) {
	var toks []token
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdentChar(expr[j]) {
				j++
			}
			toks = append(toks, token{tIdent, expr[i:j], i})
			i = j
		case isDigit(c) || (c == '.' && i+1 < len(expr) && isDigit(expr[i+1])):
			j := i
			for j < len(expr) && (isIdentChar(expr[j]) || expr[j] == '.' ||
				((expr[j] == '+' || expr[j] == '-') && (expr[j-1] == 'e' || expr[j-1] == 'E') && !strings.HasPrefix(expr[i:], "0x"))) {
				j++
			}
			if !numberRE.MatchString(expr[i:j]) {
				return nil, fmt.Errorf("position %d: bad number or duration %q", i, expr[i:j])
			}
			toks = append(toks, token{tNumber, expr[i:j], i})
			i = j
		case c == '"' || c == '\'' || c == '`':
			s, n, err := lexString(expr[i:])
			if err != nil {
				return nil, fmt.Errorf("position %d: %w", i, err)
			}
			toks = append(toks, token{tString, s, i})
			i += n
		case c == '[':
			j := strings.IndexByte(expr[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("position %d: unclosed [", i)
			}
			body := expr[i+1 : i+j]
			if !rangeRE.MatchString(body) {
				return nil, fmt.Errorf("position %d: bad range or subquery [%s]", i, body)
			}
			toks = append(toks, token{tRange, body, i})
			i += j + 1
		case c == ']':
			return nil, fmt.Errorf("position %d: ] without [", i)
		case strings.IndexByte("(){},", c) >= 0:
			kind := map[byte]tokenKind{'(': tLParen, ')': tRParen, '{': tLBrace, '}': tRBrace, ',': tComma}[c]
			toks = append(toks, token{kind, string(c), i})
			i++
		default:
			op := ""
			for _, o := range twoCharOps {
				if strings.HasPrefix(expr[i:], o) {
					op = o
					break
				}
			}
			if op == "" && strings.IndexByte("+-*/%^<>=@", c) >= 0 {
				op = string(c)
			}
			if op == "" {
				return nil, fmt.Errorf("position %d: unexpected character %q", i, c)
			}
			toks = append(toks, token{tOp, op, i})
			i += len(op)
		}
	}
	return append(toks, token{tEOF, "", len(expr)}), nil
}

// lexString reads the quoted string at the start of s and returns its value and length. Escapes
// follow Go's rules, as PromQL's do; a raw (backquoted) string has none.
func lexString(s string) (string, int, error) {
	q := s[0]
	if q == '`' {
		end := strings.IndexByte(s[1:], '`')
		if end < 0 {
			return "", 0, fmt.Errorf("unterminated raw string")
		}
		return s[1 : 1+end], end + 2, nil
	}
	var b strings.Builder
	rest := s[1:]
	for len(rest) > 0 {
		if rest[0] == q {
			return b.String(), len(s) - len(rest) + 1, nil
		}
		if rest[0] == '\n' {
			break
		}
		r, _, tail, err := strconv.UnquoteChar(rest, q)
		if err != nil {
			return "", 0, fmt.Errorf("invalid escape or character in string near %q", rest[:min(len(rest), 4)])
		}
		b.WriteRune(r)
		rest = tail
	}
	return "", 0, fmt.Errorf("unterminated string")
}
