package main

// The checker behind every generated descriptor (protocol_gen.go), the twin of protocol-check.ts: it
// reads a decoded JSON value against a descriptor, builds a fresh value holding only the declared
// fields (so nothing undeclared gets through to the typed request), and names the first problem
// exactly as the TypeScript checker does ("walk: limit must be an integer between 1 and 10000").

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Field is one descriptor of protocol-fields.ts, as generated.
type Field struct {
	Kind      string
	NonEmpty  bool
	Forbidden []string
	Min, Max  int64
	Values    []string
	Of        *Field
	Keys      *Field
	MinItems  int64
	MaxItems  int64
	Shape     []NamedField
	Rule      string
	Tag       string
	Common    []NamedField
	Members   []Member
}

// NamedField is one field of a shape, in the table's order.
type NamedField struct {
	Name  string
	Field *Field
}

// Member is one member of a tagged union.
type Member struct {
	Value  string
	Label  string
	Object *Field
}

const maxSafeInteger = 9007199254740991

type shapeProblem struct{ message string }

type position struct {
	name  string
	label string
	path  string
}

func (at position) fail(problem string) {
	where := at.path
	if where == "" {
		where = at.name
	}
	if at.label == "" {
		panic(shapeProblem{where + " " + problem})
	}
	panic(shapeProblem{at.label + ": " + where + " " + problem})
}

func (at position) child(name string) position {
	if at.path == "" {
		return position{at.name, at.label, name}
	}
	return position{at.name, at.label, at.path + "." + name}
}

func (at position) element(key string) position {
	base := at.path
	if base == "" {
		base = at.name
	}
	return position{at.name, at.label, base + "[" + key + "]"}
}

// absent stands for a key the object does not have (JSON null is nil).
type absentValue struct{}

var absent = absentValue{}

// checkValue checks a value decoded with UseNumber; it returns the clean value or the problem.
func checkValue(field *Field, value any, name string) (clean any, problem string) {
	defer func() {
		if recovered := recover(); recovered != nil {
			shape, ok := recovered.(shapeProblem)
			if !ok {
				panic(recovered)
			}
			clean, problem = nil, shape.message
		}
	}()
	return readField(field, value, position{name: name}, field), ""
}

func readField(field *Field, value any, at position, described *Field) any {
	switch field.Kind {
	case "string":
		text, ok := value.(string)
		if !ok || !validString(field, text) {
			at.fail("must be " + describe(described))
		}
		return text
	case "integer":
		number, ok := safeInteger(value)
		if !ok || number < field.Min || number > field.Max {
			at.fail("must be " + describe(described))
		}
		return number
	case "number":
		number, ok := value.(json.Number)
		if !ok {
			at.fail("must be " + describe(described))
		}
		parsed, err := number.Float64()
		if err != nil || math.IsInf(parsed, 0) || math.IsNaN(parsed) {
			at.fail("must be " + describe(described))
		}
		return parsed
	case "boolean":
		flag, ok := value.(bool)
		if !ok {
			at.fail("must be " + describe(described))
		}
		return flag
	case "oneOf":
		text, ok := value.(string)
		if !ok || !contains(field.Values, text) {
			at.fail("must be " + describe(described))
		}
		return text
	case "nullable":
		if value == nil {
			return nil
		}
		return readField(field.Of, value, at, field)
	case "optional":
		if value == absent {
			return absent
		}
		return readField(field.Of, value, at, described)
	case "array":
		items, ok := value.([]any)
		if !ok || int64(len(items)) < field.MinItems || int64(len(items)) > field.MaxItems {
			at.fail("must be " + describe(described))
		}
		out := make([]any, len(items))
		for index, item := range items {
			out[index] = readField(field.Of, item, at.element(fmt.Sprint(index)), field.Of)
		}
		return out
	case "record":
		object, ok := value.(map[string]any)
		if !ok {
			at.fail("must be " + describe(described))
		}
		out := make(map[string]any, len(object))
		for _, key := range sortedKeys(object) {
			quoted, _ := json.Marshal(key)
			if !validString(field.Keys, key) {
				at.fail("key " + string(quoted) + " must be " + describe(field.Keys))
			}
			out[key] = readField(field.Of, object[key], at.element(string(quoted)), field.Of)
		}
		return out
	case "object":
		object, ok := value.(map[string]any)
		if !ok {
			at.fail("must be " + describe(described))
		}
		return readObject(field, object, map[string]any{}, at)
	case "taggedUnion":
		return readMember(field, value, at, described)
	}
	panic(fmt.Sprintf("unknown descriptor kind %q", field.Kind))
}

func readMember(field *Field, value any, at position, described *Field) map[string]any {
	object, ok := value.(map[string]any)
	if !ok {
		at.fail("must be " + describe(described))
	}
	tagValue, present := object[field.Tag]
	tagText, isText := tagValue.(string)
	var member *Member
	if isText {
		for index := range field.Members {
			if field.Members[index].Value == tagText {
				member = &field.Members[index]
			}
		}
	}
	if member == nil {
		shown := "undefined"
		if present {
			shown = jsonText(tagValue)
		}
		unknown := "unknown " + field.Tag + " " + shown
		if at.label != "" {
			unknown = at.label + ": " + unknown
		}
		panic(shapeProblem{unknown})
	}
	memberAt := position{name: at.name, label: member.Label}
	into := map[string]any{field.Tag: tagText}
	readFields(field.Common, object, into, memberAt)
	return readObject(member.Object, object, into, memberAt)
}

func readObject(field *Field, object map[string]any, into map[string]any, at position) map[string]any {
	readFields(field.Shape, object, into, at)
	if field.Rule != "" {
		if problem := protocolRules[field.Rule](into); problem != "" {
			if at.label != "" {
				problem = at.label + ": " + problem
			}
			panic(shapeProblem{problem})
		}
	}
	return into
}

func readFields(shape []NamedField, object map[string]any, into map[string]any, at position) {
	for _, named := range shape {
		value, present := object[named.Name]
		if !present {
			value = absent
		}
		checked := readField(named.Field, value, at.child(named.Name), named.Field)
		if checked != absent {
			into[named.Name] = checked
		}
	}
}

// safeInteger: what Number.isSafeInteger accepts of a JSON number (1.0 is an integer to JavaScript).
func safeInteger(value any) (int64, bool) {
	number, ok := value.(json.Number)
	if !ok {
		return 0, false
	}
	parsed, err := number.Float64()
	if err != nil || parsed != math.Trunc(parsed) || math.Abs(parsed) > maxSafeInteger {
		return 0, false
	}
	return int64(parsed), true
}

func validString(field *Field, text string) bool {
	if field.NonEmpty && text == "" {
		return false
	}
	for _, part := range field.Forbidden {
		if strings.Contains(text, part) {
			return false
		}
	}
	return true
}

// describe says what a descriptor accepts: the end of "… must be …".
func describe(field *Field) string {
	switch field.Kind {
	case "string":
		base := "a string"
		if field.NonEmpty {
			base = "a non-empty string"
		}
		if len(field.Forbidden) == 0 {
			return base
		}
		parts := make([]string, len(field.Forbidden))
		for index, part := range field.Forbidden {
			if part == "\x00" {
				parts[index] = "NUL bytes"
			} else {
				parts[index] = jsonText(part)
			}
		}
		return base + " without " + strings.Join(parts, " or ")
	case "integer":
		if field.Max == maxSafeInteger {
			switch field.Min {
			case 0:
				return "a non-negative integer"
			case 1:
				return "a positive integer"
			}
			return fmt.Sprintf("an integer of at least %d", field.Min)
		}
		return fmt.Sprintf("an integer between %d and %d", field.Min, field.Max)
	case "number":
		return "a number"
	case "boolean":
		return "a boolean"
	case "oneOf":
		quoted := make([]string, len(field.Values))
		for index, value := range field.Values {
			quoted[index] = jsonText(value)
		}
		return "one of " + strings.Join(quoted, ", ")
	case "nullable":
		return "null or " + describe(field.Of)
	case "optional":
		return describe(field.Of)
	case "array":
		base := fmt.Sprintf("an array of at least %d items", field.MinItems)
		switch field.MinItems {
		case 0:
			base = "an array"
		case 1:
			base = "a non-empty array"
		}
		if field.MaxItems == maxSafeInteger {
			return base
		}
		return fmt.Sprintf("%s of at most %d items", base, field.MaxItems)
	}
	return "an object"
}

func jsonText(value any) string {
	encoded, err := json.Marshal(value)
	if err != nil {
		return fmt.Sprint(value)
	}
	return string(encoded)
}

func contains(values []string, value string) bool {
	for _, each := range values {
		if each == value {
			return true
		}
	}
	return false
}

func sortedKeys(object map[string]any) []string {
	keys := make([]string, 0, len(object))
	for key := range object {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}
