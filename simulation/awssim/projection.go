package awssim

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// projection is the list of top-level attributes a read returns; nil means
// every attribute.
type projection []string

var (
	placeholderRE = regexp.MustCompile(`^#[0-9A-Za-z_]+$`)
	plainNameRE   = regexp.MustCompile(`^[A-Za-z_][0-9A-Za-z_]*$`)
)

// readExpressions are the expression parameters of a read request that the
// simulator understands.
type readExpressions struct {
	ProjectionExpression      *string
	ExpressionAttributeNames  map[string]string
	ExpressionAttributeValues map[string]json.RawMessage
	AttributesToGet           []string
}

// projection validates the expression parameters as DynamoDB does and
// returns the projection they ask for. Filters and conditions are not part
// of it: callers refuse them before.
func (r readExpressions) projection() (projection, error) {
	hasExpr := r.ProjectionExpression != nil
	if hasExpr && r.AttributesToGet != nil {
		return nil, apiErr(ErrValidation, "Can not use both expression and non-expression parameters in the same request: Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}")
	}
	if r.ExpressionAttributeNames != nil {
		if !hasExpr {
			return nil, apiErr(ErrValidation, "ExpressionAttributeNames can only be specified when using expressions")
		}
		if len(r.ExpressionAttributeNames) == 0 {
			return nil, apiErr(ErrValidation, "ExpressionAttributeNames must not be empty")
		}
	}
	if r.ExpressionAttributeValues != nil {
		if !hasExpr {
			return nil, apiErr(ErrValidation, "ExpressionAttributeValues can only be specified when using expressions")
		}
		if len(r.ExpressionAttributeValues) == 0 {
			return nil, apiErr(ErrValidation, "ExpressionAttributeValues must not be empty")
		}
		// A projection uses no values, and no other expression is
		// simulated: every value is unused. Only the placeholders are
		// named, never the values.
		return nil, apiErr(ErrValidation, "Value provided in ExpressionAttributeValues unused in expressions: keys: {"+strings.Join(slices.Sorted(maps.Keys(r.ExpressionAttributeValues)), ", ")+"}")
	}
	if r.AttributesToGet != nil {
		if len(r.AttributesToGet) == 0 {
			return nil, apiErr(ErrValidation, "1 validation error detected: Value '[]' at 'attributesToGet' failed to satisfy constraint: Member must have length greater than or equal to 1")
		}
		seen := map[string]bool{}
		for _, a := range r.AttributesToGet {
			if seen[a] {
				return nil, apiErr(ErrValidation, "One or more parameter values were invalid: Duplicate value in attribute name: "+a)
			}
			seen[a] = true
		}
		return projection(slices.Clone(r.AttributesToGet)), nil
	}
	if !hasExpr {
		return nil, nil
	}
	used := map[string]bool{}
	p, err := parseProjection(*r.ProjectionExpression, r.ExpressionAttributeNames, used)
	if err != nil {
		return nil, err
	}
	var unused []string
	for k := range r.ExpressionAttributeNames {
		if !used[k] {
			unused = append(unused, k)
		}
	}
	if len(unused) > 0 {
		slices.Sort(unused)
		return nil, apiErr(ErrValidation, "Value provided in ExpressionAttributeNames unused in expressions: keys: {"+strings.Join(unused, ", ")+"}")
	}
	return p, nil
}

// parseProjection reads a ProjectionExpression of top-level attribute
// names and #placeholders, marking the placeholders it uses. Document paths
// into maps and lists are refused as not simulated.
func parseProjection(expr string, names map[string]string, used map[string]bool) (projection, error) {
	if strings.TrimSpace(expr) == "" {
		return nil, apiErr(ErrValidation, "Invalid ProjectionExpression: The expression can not be empty;")
	}
	var out projection
	seen := map[string]bool{}
	for _, raw := range strings.Split(expr, ",") {
		tok := strings.TrimSpace(raw)
		switch {
		case tok == "":
			return nil, apiErr(ErrValidation, `Invalid ProjectionExpression: Syntax error; token: ",", near: ","`)
		case strings.ContainsAny(tok, ".["):
			return nil, apiErr(ErrValidation, "awssim: ProjectionExpression paths into maps or lists (. or [n]) are not simulated; use top-level attribute names")
		}
		var name string
		switch {
		case strings.HasPrefix(tok, "#"):
			if !placeholderRE.MatchString(tok) {
				return nil, apiErr(ErrValidation, fmt.Sprintf("Invalid ProjectionExpression: Syntax error; token: %q", tok))
			}
			n, ok := names[tok]
			if !ok {
				return nil, apiErr(ErrValidation, "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; attribute name: "+tok)
			}
			used[tok] = true
			name = n
		case plainNameRE.MatchString(tok):
			if isReservedWord(tok) {
				return nil, apiErr(ErrValidation, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: "+tok)
			}
			name = tok
		default:
			return nil, apiErr(ErrValidation, fmt.Sprintf("Invalid ProjectionExpression: Syntax error; token: %q", tok))
		}
		if seen[name] {
			return nil, apiErr(ErrValidation, fmt.Sprintf("Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; path one: [%s], path two: [%s]", name, name))
		}
		seen[name] = true
		out = append(out, name)
	}
	return out, nil
}

// apply returns the projected attributes of it (all of them for a nil
// projection). Values are shared: stored values are never mutated.
func (p projection) apply(it item) item {
	if p == nil {
		return it
	}
	out := make(item, len(p))
	for _, name := range p {
		if v, ok := it[name]; ok {
			out[name] = v
		}
	}
	return out
}
