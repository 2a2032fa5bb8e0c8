package alerts

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"

	"github.com/dynamodb-exporter/dynamodb_exporter/catalogue"
)

// This file infers, from a rule's PromQL, the label names of the series it
// yields: the labels an alert carries, which Alertmanager routes, groups and
// inhibits on. It follows the evaluation rules of Prometheus's engine
// (promql/engine.go, resultMetric and VectorBinop; "Operators" in the
// Prometheus documentation): `and`/`unless` and a comparison with a scalar
// keep the left side's labels; `or` yields either side's; a one-to-one
// vector operation (arithmetic or comparison) with on(...) keeps only those
// labels, with ignoring(...) drops them; `sum by (...)` keeps the grouping;
// label_replace adds its destination label. Only the subset of PromQL the
// pack uses is understood: anything else is an error, so a rule written
// beyond it fails the test instead of being guessed.

// labelSet is the label names a (sub)expression's series carry; scalar marks
// a scalar (a number, time()).
type labelSet struct {
	scalar bool
	names  map[string]bool
}

func vec(names ...string) labelSet {
	s := labelSet{names: map[string]bool{}}
	for _, n := range names {
		s.names[n] = true
	}
	return s
}

func (s labelSet) sorted() []string {
	var out []string
	for n := range s.names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

type token struct {
	kind string // ident, number, string, op, punct
	text string
}

// tokenize splits an expression; label matchers ({...}) and range selectors
// ([...]) are dropped: they filter series and never add a label.
func tokenize(expr string) ([]token, error) {
	var out []token
	r := []rune(expr)
	for i := 0; i < len(r); {
		c := r[i]
		switch {
		case unicode.IsSpace(c):
			i++
		case c == '{' || c == '[':
			closing := map[rune]rune{'{': '}', '[': ']'}[c]
			j, quoted := i+1, false
			for ; j < len(r) && (quoted || r[j] != closing); j++ {
				if r[j] == '\\' && quoted {
					j++
				} else if r[j] == '"' {
					quoted = !quoted
				}
			}
			if j >= len(r) {
				return nil, fmt.Errorf("unclosed %c", c)
			}
			i = j + 1
		case c == '"':
			j := i + 1
			for ; j < len(r) && r[j] != '"'; j++ {
				if r[j] == '\\' {
					j++
				}
			}
			out = append(out, token{"string", string(r[i+1 : j])})
			i = j + 1
		case unicode.IsLetter(c) || c == '_' || c == ':':
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '_' || r[j] == ':') {
				j++
			}
			out = append(out, token{"ident", string(r[i:j])})
			i = j
		case unicode.IsDigit(c) || c == '.':
			// Numbers, and durations such as 1h after offset.
			j := i
			for j < len(r) && (unicode.IsLetter(r[j]) || unicode.IsDigit(r[j]) || r[j] == '.') {
				j++
			}
			out = append(out, token{"number", string(r[i:j])})
			i = j
		case c == '(' || c == ')' || c == ',':
			out = append(out, token{"punct", string(c)})
			i++
		default:
			op := ""
			for _, o := range []string{"==", "!=", ">=", "<=", ">", "<", "+", "-", "*", "/", "%", "^"} {
				if strings.HasPrefix(string(r[i:]), o) {
					op = o
					break
				}
			}
			if op == "" {
				return nil, fmt.Errorf("unexpected %q", c)
			}
			out = append(out, token{"op", op})
			i += len(op)
		}
	}
	return out, nil
}

type labelParser struct {
	toks     []token
	pos      int
	recorded map[string]labelSet
}

func (p *labelParser) peek() token {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return token{}
}

func (p *labelParser) next() token { t := p.peek(); p.pos++; return t }

func (p *labelParser) expect(text string) error {
	if t := p.next(); t.text != text {
		return fmt.Errorf("expected %q, got %q", text, t.text)
	}
	return nil
}

// precedence of binary operators (higher binds tighter).
func precedence(t token) int {
	switch {
	case t.kind == "ident" && t.text == "or":
		return 1
	case t.kind == "ident" && (t.text == "and" || t.text == "unless"):
		return 2
	case t.kind == "op" && strings.Contains("== != >= <= > <", t.text):
		return 3
	case t.kind == "op" && (t.text == "+" || t.text == "-"):
		return 4
	case t.kind == "op" && (t.text == "*" || t.text == "/" || t.text == "%"):
		return 5
	case t.kind == "op" && t.text == "^":
		return 6
	}
	return 0
}

func (p *labelParser) nameList() ([]string, error) {
	if err := p.expect("("); err != nil {
		return nil, err
	}
	var out []string
	for p.peek().text != ")" {
		t := p.next()
		if t.kind != "ident" {
			return nil, fmt.Errorf("label list: unexpected %q", t.text)
		}
		out = append(out, t.text)
		if p.peek().text == "," {
			p.next()
		}
	}
	p.next()
	return out, nil
}

func (p *labelParser) binary(minPrec int) (labelSet, error) {
	lhs, err := p.unary()
	if err != nil {
		return labelSet{}, err
	}
	for {
		op := p.peek()
		prec := precedence(op)
		if prec == 0 || prec < minPrec {
			return lhs, nil
		}
		p.next()
		var on, ignoring, extra []string
		var group string
		hasOn, done := false, false
		for {
			t := p.peek()
			if t.kind != "ident" {
				break
			}
			switch t.text {
			case "bool":
				p.next()
			case "on", "ignoring":
				p.next()
				l, err := p.nameList()
				if err != nil {
					return labelSet{}, err
				}
				if t.text == "on" {
					on, hasOn = l, true
				} else {
					ignoring = l
				}
			case "group_left", "group_right":
				// The result carries the labels of the "many" side plus
				// the ones listed, taken from the "one" side.
				p.next()
				group = t.text
				if p.peek().text == "(" {
					l, err := p.nameList()
					if err != nil {
						return labelSet{}, err
					}
					extra = l
				}
			default:
				done = true
			}
			if done {
				break
			}
		}
		rhs, err := p.binary(prec + 1)
		if err != nil {
			return labelSet{}, err
		}
		switch {
		case op.text == "and" || op.text == "unless":
		case op.text == "or":
			for n := range rhs.names {
				lhs.names[n] = true
			}
		case lhs.scalar && rhs.scalar:
		case lhs.scalar:
			lhs = rhs
		case rhs.scalar:
		case group != "":
			if group == "group_right" {
				lhs = rhs
			}
			for _, n := range extra {
				lhs.names[n] = true
			}
		case hasOn:
			lhs = vec(on...)
		default:
			for _, n := range ignoring {
				delete(lhs.names, n)
			}
		}
	}
}

func (p *labelParser) unary() (labelSet, error) {
	if p.peek().text == "-" {
		p.next()
	}
	v, err := p.primary()
	if err != nil {
		return labelSet{}, err
	}
	if t := p.peek(); t.kind == "ident" && t.text == "offset" {
		p.next()
		p.next()
	}
	return v, nil
}

var aggregations = map[string]bool{"sum": true, "avg": true, "min": true, "max": true, "count": true, "group": true}

func (p *labelParser) primary() (labelSet, error) {
	t := p.next()
	switch {
	case t.text == "(":
		v, err := p.binary(1)
		if err != nil {
			return labelSet{}, err
		}
		return v, p.expect(")")
	case t.kind == "number":
		return labelSet{scalar: true}, nil
	case t.kind == "ident" && aggregations[t.text]:
		var by, without []string
		var err error
		switch p.peek().text {
		case "by":
			p.next()
			by, err = p.nameList()
		case "without":
			p.next()
			without, err = p.nameList()
		}
		if err != nil {
			return labelSet{}, err
		}
		if err := p.expect("("); err != nil {
			return labelSet{}, err
		}
		inner, err := p.binary(1)
		if err != nil {
			return labelSet{}, err
		}
		if err := p.expect(")"); err != nil {
			return labelSet{}, err
		}
		if without != nil {
			for _, n := range without {
				delete(inner.names, n)
			}
			return inner, nil
		}
		return vec(by...), nil
	case t.kind == "ident" && p.peek().text == "(":
		p.next()
		var args []labelSet
		var strs []string
		for p.peek().text != ")" {
			if p.peek().kind == "string" {
				strs = append(strs, p.next().text)
			} else {
				a, err := p.binary(1)
				if err != nil {
					return labelSet{}, err
				}
				args = append(args, a)
			}
			if p.peek().text == "," {
				p.next()
			}
		}
		p.next()
		switch t.text {
		case "time":
			return labelSet{scalar: true}, nil
		case "rate", "irate", "increase", "delta", "deriv", "changes", "resets", "abs", "ceil", "floor", "round",
			"avg_over_time", "min_over_time", "max_over_time", "sum_over_time", "count_over_time", "last_over_time", "quantile_over_time":
			return args[len(args)-1], nil
		case "label_replace":
			v := args[0]
			v.names[strs[0]] = true
			return v, nil
		case "sqrt", "clamp_min", "clamp_max":
			return args[0], nil
		}
		return labelSet{}, fmt.Errorf("function %s is not understood by the label inference", t.text)
	case t.kind == "ident":
		if v, ok := p.recorded[t.text]; ok {
			return vec(v.sorted()...), nil
		}
		name, extra := t.text, []string(nil)
		for _, suffix := range []string{"_bucket", "_count", "_sum"} {
			if base, ok := strings.CutSuffix(name, suffix); ok {
				if _, known := catalogue.Lookup(base); known {
					name = base
					if suffix == "_bucket" {
						extra = []string{"le"}
					}
				}
			}
		}
		if l, ok := scrapeSeries[name]; ok {
			return vec(l...), nil
		}
		f, ok := catalogue.Lookup(name)
		if !ok {
			return labelSet{}, fmt.Errorf("%s is neither catalogued nor recorded earlier", t.text)
		}
		// Prometheus adds the scrape target's job and instance to every
		// series it scrapes from the exporter.
		return vec(append(append(slices.Clone(f.Labels), extra...), targetLabels...)...), nil
	}
	return labelSet{}, fmt.Errorf("unexpected %q", t.text)
}

// scrapeSeries are the series Prometheus itself writes for every scrape
// target, which the pack may read besides the catalogue: their labels are
// the target's.
var scrapeSeries = map[string][]string{"up": {"instance", "job"}}

// alertLabels returns, per alert of the pack rendered with the defaults, the
// label names its series carry plus its severity label.
func alertLabels(t *testing.T) map[string][]string {
	t.Helper()
	recorded := map[string]labelSet{}
	out := map[string][]string{}
	for _, g := range Pack() {
		for _, r := range g.Rules {
			expr, err := expand(r, r.Expr, defaults(r), "")
			if err != nil {
				t.Fatal(err)
			}
			toks, err := tokenize(expr)
			if err != nil {
				t.Fatalf("%s%s: %v", r.Alert, r.Record, err)
			}
			p := &labelParser{toks: toks, recorded: recorded}
			v, err := p.binary(1)
			if err == nil && p.pos != len(toks) {
				err = fmt.Errorf("unparsed from %q", p.peek().text)
			}
			if err != nil {
				t.Fatalf("%s%s: inferring labels: %v\n%s", r.Alert, r.Record, err, expr)
			}
			if r.Record != "" {
				recorded[r.Record] = v
				continue
			}
			v.names["severity"] = true
			out[r.Alert] = v.sorted()
		}
	}
	return out
}

// TestAlertLabelInference pins the inference on expressions whose result
// labels Prometheus's documentation states.
func TestAlertLabelInference(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`dynamodb_table_info > 0`, "account billing_mode instance job region status table table_class"},
		{`sum by (account, table) (rate(dynamodb_throttle_events_total[5m])) > 1`, "account table"},
		{`dynamodb_items / on (account, region, table) dynamodb_size_bytes`, "account region table"},
		{`dynamodb_items > on (account, region, table) dynamodb_size_bytes`, "account region table"},
		{`dynamodb_items / ignoring (index) dynamodb_size_bytes`, "account instance job region table"},
		{`dynamodb_items * on (account, region, table) group_left (billing_mode) dynamodb_table_info`, "account billing_mode index instance job region table"},
		{`dynamodb_table_info * on (account, region, table) group_right dynamodb_items`, "account index instance job region table"},
		{`dynamodb_items and on (table) dynamodb_table_info`, "account index instance job region table"},
		{`dynamodb_user_errors_total or dynamodb_exporter_tables`, "account instance job region"},
		{`dynamodb_ttl_deleted_items_total or dynamodb_user_errors_total`, "account instance job region table"},
		{`label_replace(dynamodb_user_errors_total, "dimension", "read", "", "")`, "account dimension instance job region"},
		{`(time() - dynamodb_ttl_last_sample_timestamp_seconds) > 3600`, "account instance job region table"},
		{`sum(dynamodb_items)`, ""},
		{`sum without (index) (dynamodb_items)`, "account instance job region table"},
		{`rate(dynamodb_ttl_live_item_remaining_lifetime_seconds_bucket[1h])`, "account instance job le region table"},
	} {
		toks, err := tokenize(tc.expr)
		if err != nil {
			t.Fatal(err)
		}
		p := &labelParser{toks: toks}
		v, err := p.binary(1)
		if err != nil {
			t.Errorf("%s: %v", tc.expr, err)
			continue
		}
		if got := strings.Join(v.sorted(), " "); got != tc.want {
			t.Errorf("%s: labels %q, want %q", tc.expr, got, tc.want)
		}
	}
	// Beyond the subset: an error, not a guess.
	for _, expr := range []string{`histogram_quantile(0.9, dynamodb_items)`, `no_such_metric`} {
		toks, _ := tokenize(expr)
		p := &labelParser{toks: toks}
		if _, err := p.binary(1); err == nil {
			t.Errorf("%s: inferred labels for an expression beyond the understood subset", expr)
		}
	}
}
