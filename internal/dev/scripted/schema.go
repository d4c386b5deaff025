package scripted

import (
	"encoding/json"
	"fmt"
	"strings"
)

// fillSchema makes a value that schema accepts, for a side request's
// answer (Gemini): every property of an object (required or not), the
// first of an enum or of anyOf/oneOf, the default where one is given, a
// string's "scripted", a number's minimum (else 1 for an integer, 0 for
// a fraction, kept under a maximum), false, and as few array items as
// minItems asks. Types may be written as the
// Gemini API's OpenAPI subset writes them (OBJECT, STRING) or as JSON
// Schema does (object, string); a list of types takes the first that is
// not null.
func fillSchema(schema json.RawMessage) (any, error) {
	var s map[string]any
	if err := json.Unmarshal(schema, &s); err != nil {
		return nil, fmt.Errorf("response schema: %v", err)
	}
	return fill(s)
}

func fill(s map[string]any) (any, error) {
	if d, ok := s["default"]; ok {
		return d, nil
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[0], nil
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			alt, _ := alts[0].(map[string]any)
			return fill(alt)
		}
	}
	switch schemaType(s) {
	case "object":
		out := map[string]any{}
		props, _ := s["properties"].(map[string]any)
		for name, p := range props {
			ps, _ := p.(map[string]any)
			v, err := fill(ps)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
			out[name] = v
		}
		return out, nil
	case "array":
		n, _ := s["minItems"].(float64)
		item, _ := s["items"].(map[string]any)
		out := []any{}
		for range int(n) {
			v, err := fill(item)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case "string":
		return "scripted", nil
	case "integer", "number":
		// An integer 1 (the routing classifier's complexity score of 1
		// routes a turn to the flash model); a fraction 0 (the loop
		// check's unproductive_state_confidence of 1 would stop the
		// session as a loop).
		n := 1.0
		if schemaType(s) == "number" {
			n = 0
		}
		if min, ok := s["minimum"].(float64); ok {
			n = min
		} else if max, ok := s["maximum"].(float64); ok && max < n {
			n = max
		}
		return n, nil
	case "boolean":
		return false, nil
	case "null":
		return nil, nil
	}
	return nil, fmt.Errorf("no value for the schema %v", s)
}

// schemaType is a schema's type, lower case: "type" as a string or the first
// of a list that is not null; an object when only properties say so.
func schemaType(s map[string]any) string {
	switch t := s["type"].(type) {
	case string:
		return strings.ToLower(t)
	case []any:
		for _, x := range t {
			if x, ok := x.(string); ok && strings.ToLower(x) != "null" {
				return strings.ToLower(x)
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}
