package dashboards

import (
	"fmt"
	"sort"
	"strings"
)

// A small PromQL reader: enough to find every series selector of a
// dashboard's query with its label matchers, its range and the function it
// is passed to, for narrowing the alert pack's expressions to the
// dashboard's job and instance (narrow) and for the lint tests. It is not a
// parser: Prometheus itself runs every query (prometheus_test.go beside
// it) and promtool checks that they parse (the tests).

// tokenKind is the kind of a PromQL token.
type tokenKind int

const (
	tokIdent    tokenKind = iota // metric, function, keyword or label name
	tokString                    // "...", '...' or `...`
	tokNumber                    // 1, 0.5, 1e-05, 0x1f
	tokDuration                  // 5m, 1h30m, 500ms
	tokVariable                  // a Grafana variable outside a string: $__rate_interval
	tokPunct                     // ( ) { } [ ] , :
	tokOperator                  // + - * / % ^ == != <= >= < > =~ !~ = @
)

// token is one token of an expression, with its byte offsets.
type token struct {
	kind       tokenKind
	text       string
	start, end int
}

// lex splits a PromQL expression into tokens. Comments (#) are skipped.
func lex(expr string) ([]token, error) {
	var out []token
	i := 0
	for i < len(expr) {
		c := expr[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			for i < len(expr) && expr[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for j < len(expr) && expr[j] != c {
				if expr[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			if j >= len(expr) {
				return nil, fmt.Errorf("unterminated string at offset %d", i)
			}
			out = append(out, token{tokString, expr[i : j+1], i, j + 1})
			i = j + 1
		case c == '$':
			j := i + 1
			if j < len(expr) && expr[j] == '{' {
				for j < len(expr) && expr[j] != '}' {
					j++
				}
				j++
			} else {
				for j < len(expr) && isIdentChar(expr[j], false) && expr[j] != ':' {
					j++
				}
			}
			if j == i+1 || j > len(expr) {
				return nil, fmt.Errorf("lone $ at offset %d", i)
			}
			out = append(out, token{tokVariable, expr[i:j], i, j})
			i = j
		case isIdentChar(c, true):
			j := i
			for j < len(expr) && isIdentChar(expr[j], false) {
				j++
			}
			out = append(out, token{tokIdent, expr[i:j], i, j})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(expr) && expr[i+1] >= '0' && expr[i+1] <= '9':
			j := i
			for j < len(expr) && (isIdentChar(expr[j], false) && expr[j] != ':' || expr[j] == '.' ||
				(expr[j] == '+' || expr[j] == '-') && (expr[j-1] == 'e' || expr[j-1] == 'E') && !strings.HasPrefix(expr[i:j], "0x")) {
				j++
			}
			text := expr[i:j]
			kind := tokNumber
			if isDuration(text) {
				kind = tokDuration
			} else if !isNumber(text) {
				return nil, fmt.Errorf("bad number or duration %q at offset %d", text, i)
			}
			out = append(out, token{kind, text, i, j})
			i = j
		case strings.ContainsRune("(){}[],:", rune(c)):
			out = append(out, token{tokPunct, string(c), i, i + 1})
			i++
		default:
			op := ""
			for _, o := range []string{"==", "!=", "<=", ">=", "=~", "!~", "+", "-", "*", "/", "%", "^", "<", ">", "=", "@"} {
				if strings.HasPrefix(expr[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected character %q at offset %d", c, i)
			}
			out = append(out, token{tokOperator, op, i, i + len(op)})
			i += len(op)
		}
	}
	return out, nil
}

// isIdentChar reports whether c can be part of a name (first: start one).
// Recorded series hold colons (dynamodb:x:rate), but none starts with one,
// which leaves a subquery's [1d:10m] to the punctuation.
func isIdentChar(c byte, first bool) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && (c == ':' || c >= '0' && c <= '9')
}

// isDuration reports whether s is a Prometheus duration such as 5m or 1h30m.
func isDuration(s string) bool {
	if s == "" {
		return false
	}
	for s != "" {
		j := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 0 {
			return false
		}
		s = s[j:]
		unit := ""
		for _, u := range []string{"ms", "s", "m", "h", "d", "w", "y"} {
			if strings.HasPrefix(s, u) {
				unit = u
				break
			}
		}
		if unit == "" {
			return false
		}
		s = s[len(unit):]
	}
	return true
}

func isNumber(s string) bool {
	if strings.HasPrefix(s, "0x") {
		return len(s) > 2 && strings.Trim(s[2:], "0123456789abcdefABCDEF") == ""
	}
	digits, dot, exp := false, false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits = true
		case c == '.' && !dot && !exp:
			dot = true
		case (c == 'e' || c == 'E') && digits && !exp:
			exp, digits = true, false
		case (c == '+' || c == '-') && i > 0 && (s[i-1] == 'e' || s[i-1] == 'E'):
		default:
			return false
		}
	}
	return digits
}

// promKeywords are identifiers that are neither metrics nor functions.
var promKeywords = map[string]bool{"and": true, "or": true, "unless": true, "by": true, "without": true, "on": true,
	"ignoring": true, "group_left": true, "group_right": true, "offset": true, "bool": true, "atan2": true,
	"inf": true, "nan": true, "start": true, "end": true}

// labelListWords open a list of label names: by (a, b), on (a), group_left (c).
var labelListWords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true}

// Matcher is one label matcher of a selector: label, operator (=, !=, =~,
// !~) and the value without its quotes.
type Matcher struct {
	Label, Op, Value string
}

func (m Matcher) String() string { return fmt.Sprintf("%s%s%q", m.Label, m.Op, m.Value) }

// Selector is one series selector of an expression.
type Selector struct {
	// Metric is the metric name ("" for a selector of matchers alone).
	Metric   string
	Matchers []Matcher
	// Range is the text between the brackets that follow the selector
	// ("5m", "$__rate_interval", "1d:10m" for a subquery), "" for none.
	Range string
	// Func is the function the selector is an argument of ("" at the top
	// level or inside an aggregation's or a binary operation's
	// parentheses).
	Func string
	// Text is the selector as written (without its range).
	Text string
	// insert is the byte offset where a matcher can be added: just before
	// the closing brace, or just after the metric name when it has none;
	// braces tells which.
	insert int
	braces bool
	empty  bool // braces without any matcher
}

// Has reports whether the selector has exactly this matcher.
func (s Selector) Has(m Matcher) bool {
	for _, x := range s.Matchers {
		if x == m {
			return true
		}
	}
	return false
}

// Selectors returns every series selector of a PromQL expression, in order,
// or an error when the expression is not well formed (unbalanced brackets,
// a malformed matcher or range, a stray token).
func Selectors(expr string) ([]Selector, error) {
	toks, err := lex(expr)
	if err != nil {
		return nil, err
	}
	var stack []openPunct
	var out []Selector
	closing := map[string]string{")": "(", "}": "{", "]": "["}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		prev := func() token {
			if i == 0 {
				return token{}
			}
			return toks[i-1]
		}
		switch {
		case t.kind == tokIdent && labelListWords[strings.ToLower(t.text)] && i+1 < len(toks) && toks[i+1].text == "(":
			// by (a, b): skip the label names.
			j := i + 2
			for j < len(toks) && toks[j].text != ")" {
				if toks[j].kind != tokIdent && toks[j].text != "," {
					return nil, fmt.Errorf("%s list holds %q", t.text, toks[j].text)
				}
				j++
			}
			if j == len(toks) {
				return nil, fmt.Errorf("unclosed %s list", t.text)
			}
			i = j
		case t.kind == tokIdent && i+1 < len(toks) && toks[i+1].text == "(":
			// A function call or an aggregation.
			stack = append(stack, openPunct{"(", t.text})
			i++
		case t.kind == tokIdent && isAggregation(t.text) && i+1 < len(toks) && labelListWords[toks[i+1].text]:
			// sum by (a) (x): the call's parenthesis comes after the list;
			// mark it when reached.
			j := i + 2
			if j < len(toks) && toks[j].text == "(" {
				for j < len(toks) && toks[j].text != ")" {
					j++
				}
				if j+1 < len(toks) && toks[j+1].text == "(" {
					stack = append(stack, openPunct{"(", t.text})
					i = j + 1
					continue
				}
			}
			return nil, fmt.Errorf("aggregation %s without its argument", t.text)
		case t.kind == tokIdent && !promKeywords[strings.ToLower(t.text)] && !(prev().kind == tokIdent && strings.ToLower(prev().text) == "offset"):
			s, next, err := selectorAt(expr, toks, i)
			if err != nil {
				return nil, err
			}
			out = append(out, s.inFunc(stack))
			i = next - 1
		case t.text == "{":
			s, next, err := selectorAt(expr, toks, i)
			if err != nil {
				return nil, err
			}
			out = append(out, s.inFunc(stack))
			i = next - 1
		case t.text == "(" || t.text == "[":
			if t.text == "[" {
				// A subquery's range after a parenthesis.
				j := i + 1
				for j < len(toks) && toks[j].text != "]" {
					j++
				}
				if j == len(toks) || !validRange(toks[i+1:j]) {
					return nil, fmt.Errorf("malformed range at offset %d", t.start)
				}
				i = j
				continue
			}
			stack = append(stack, openPunct{t.text, ""})
		case t.text == ")" || t.text == "}" || t.text == "]":
			if len(stack) == 0 || stack[len(stack)-1].punct != closing[t.text] {
				return nil, fmt.Errorf("unbalanced %q at offset %d", t.text, t.start)
			}
			stack = stack[:len(stack)-1]
		case t.kind == tokVariable:
			return nil, fmt.Errorf("variable %s outside a string or a range at offset %d", t.text, t.start)
		}
	}
	if len(stack) > 0 {
		return nil, fmt.Errorf("unclosed %q", stack[len(stack)-1].punct)
	}
	if len(toks) == 0 {
		return nil, fmt.Errorf("empty expression")
	}
	return out, nil
}

// openPunct is an open parenthesis or bracket, with the function it calls
// for a parenthesis.
type openPunct struct {
	punct string
	fn    string
}

// isAggregation reports whether name is a PromQL aggregation operator, which
// can take a by or without list before its argument.
func isAggregation(name string) bool {
	switch strings.ToLower(name) {
	case "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio":
		return true
	}
	return false
}

// inFunc sets the function a selector is passed to: the innermost open
// parenthesis, when it belongs to a call.
func (s Selector) inFunc(stack []openPunct) Selector {
	if len(stack) > 0 && stack[len(stack)-1].punct == "(" {
		s.Func = stack[len(stack)-1].fn
	}
	return s
}

// selectorAt reads the selector starting at toks[i] (a metric name or an
// opening brace) with its optional range; next is the index after it.
func selectorAt(expr string, toks []token, i int) (s Selector, next int, err error) {
	start := toks[i].start
	j := i
	if toks[i].kind == tokIdent {
		s.Metric = toks[i].text
		s.insert = toks[i].end
		j++
	}
	if j < len(toks) && toks[j].text == "{" {
		s.braces, s.empty = true, true
		j++
		for {
			if j < len(toks) && toks[j].text == "}" {
				break
			}
			if j+2 >= len(toks) || toks[j].kind != tokIdent || toks[j+1].kind != tokOperator || toks[j+2].kind != tokString {
				return s, 0, fmt.Errorf("malformed matcher at offset %d", toks[min(j, len(toks)-1)].start)
			}
			op := toks[j+1].text
			if op != "=" && op != "!=" && op != "=~" && op != "!~" {
				return s, 0, fmt.Errorf("bad matcher operator %q at offset %d", op, toks[j+1].start)
			}
			v := toks[j+2].text
			s.Matchers = append(s.Matchers, Matcher{toks[j].text, op, unquote(v)})
			s.empty = false
			j += 3
			if j < len(toks) && toks[j].text == "," {
				j++
			}
		}
		s.insert = toks[j].start
		j++
	}
	s.Text = expr[start:toks[j-1].end]
	if s.Metric == "" && len(s.Matchers) == 0 {
		return s, 0, fmt.Errorf("empty selector at offset %d", start)
	}
	if j < len(toks) && toks[j].text == "[" {
		k := j + 1
		for k < len(toks) && toks[k].text != "]" {
			k++
		}
		if k == len(toks) || !validRange(toks[j+1:k]) {
			return s, 0, fmt.Errorf("malformed range after %s", s.Text)
		}
		s.Range = expr[toks[j].end:toks[k].start]
		j = k + 1
	}
	return s, j, nil
}

// validRange accepts d, $var, d:d and d: inside brackets.
func validRange(ts []token) bool {
	dur := func(t token) bool { return t.kind == tokDuration || t.kind == tokVariable || t.kind == tokNumber }
	switch len(ts) {
	case 1:
		return dur(ts[0])
	case 2:
		return dur(ts[0]) && ts[1].text == ":"
	case 3:
		return dur(ts[0]) && ts[1].text == ":" && dur(ts[2])
	}
	return false
}

func unquote(s string) string {
	body := s[1 : len(s)-1]
	if s[0] == '`' {
		return body
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String()
}

// narrow adds the matchers to every selector of expr that lacks them, so
// that an expression written elsewhere (the alert pack's) reads only the
// series of the dashboard's selection.
func narrow(expr string, ms ...Matcher) (string, error) {
	sels, err := Selectors(expr)
	if err != nil {
		return "", fmt.Errorf("narrowing %q: %w", expr, err)
	}
	type edit struct {
		at   int
		text string
	}
	var edits []edit
	for _, s := range sels {
		var add []string
		for _, m := range ms {
			if !s.Has(m) {
				add = append(add, m.String())
			}
		}
		if len(add) == 0 {
			continue
		}
		text := strings.Join(add, ", ")
		switch {
		case !s.braces:
			text = "{" + text + "}"
		case !s.empty:
			text = ", " + text
		}
		edits = append(edits, edit{s.insert, text})
	}
	sort.Slice(edits, func(i, j int) bool { return edits[i].at > edits[j].at })
	for _, e := range edits {
		expr = expr[:e.at] + e.text + expr[e.at:]
	}
	return expr, nil
}
