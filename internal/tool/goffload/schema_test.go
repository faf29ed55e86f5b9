package goffloadcmd

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// validate checks a decoded JSON value against the subset of JSON Schema
// (2020-12) that testdata/goffload-list.schema.json uses: type, properties,
// required, additionalProperties, items, enum, minimum, minLength and local
// $ref. It returns every violation, with its JSON path.
func validate(schema map[string]any, v any) []string {
	s := &schemaValidator{root: schema}
	s.check(schema, v, "$")
	return s.errs
}

type schemaValidator struct {
	root map[string]any
	errs []string
}

func (s *schemaValidator) fail(path, format string, a ...any) {
	s.errs = append(s.errs, path+": "+fmt.Sprintf(format, a...))
}

func (s *schemaValidator) resolve(ref string) map[string]any {
	node := any(s.root)
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		node = node.(map[string]any)[part]
	}
	return node.(map[string]any)
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if f, err := x.Float64(); err == nil && f == math.Trunc(f) && !strings.ContainsAny(string(x), ".eE") {
			return "integer"
		}
		return "number"
	}
	return "unknown"
}

func (s *schemaValidator) check(schema map[string]any, v any, path string) {
	if ref, ok := schema["$ref"].(string); ok {
		s.check(s.resolve(ref), v, path)
		return
	}
	if t, ok := schema["type"]; ok {
		var allowed []string
		switch t := t.(type) {
		case string:
			allowed = []string{t}
		case []any:
			for _, x := range t {
				allowed = append(allowed, x.(string))
			}
		}
		got := jsonType(v)
		if !slices.Contains(allowed, got) && !(got == "integer" && slices.Contains(allowed, "number")) {
			s.fail(path, "type %s, want %v", got, allowed)
			return
		}
	}
	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if fmt.Sprint(e) == fmt.Sprint(v) {
				found = true
			}
		}
		if !found {
			s.fail(path, "%v not in %v", v, enum)
		}
	}
	if min, ok := schema["minimum"].(json.Number); ok {
		if n, isNum := v.(json.Number); isNum {
			a, _ := n.Float64()
			b, _ := min.Float64()
			if a < b {
				s.fail(path, "%v below minimum %v", n, min)
			}
		}
	}
	if ml, ok := schema["minLength"].(json.Number); ok {
		n, _ := ml.Int64()
		if str, isStr := v.(string); isStr && int64(len(str)) < n {
			s.fail(path, "shorter than %d", n)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		for _, r := range asStrings(schema["required"]) {
			if _, ok := x[r]; !ok {
				s.fail(path, "missing %q", r)
			}
		}
		for k, val := range x {
			if p, ok := props[k]; ok {
				s.check(p.(map[string]any), val, path+"."+k)
				continue
			}
			switch ap := schema["additionalProperties"].(type) {
			case bool:
				if !ap {
					s.fail(path, "unexpected property %q", k)
				}
			case map[string]any:
				s.check(ap, val, path+"."+k)
			}
		}
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i, e := range x {
				s.check(items, e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
}

func asStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, x := range a {
			out = append(out, x.(string))
		}
	}
	return out
}
