package main

// From a frame header to a typed request (the generated structs), through the generated descriptors:
// the twin of parseRequest in protocol-check.ts. The executor trusts the server, but a bug there must
// produce an EBADREQ answer (hence the id, when there is a usable one) rather than a crash.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// decodeJSON decodes a header as the checker reads it: numbers kept as written.
func decodeJSON(text []byte) (any, error) {
	decoder := json.NewDecoder(bytes.NewReader(text))
	decoder.UseNumber()
	var value any
	if err := decoder.Decode(&value); err != nil {
		return nil, err
	}
	if decoder.More() {
		return nil, &json.SyntaxError{}
	}
	return value, nil
}

// parseRequest returns the request, or the id to answer the problem to (-1: none usable).
func parseRequest(header any) (request any, id int64, problem string) {
	object, ok := header.(map[string]any)
	if !ok {
		return nil, -1, "frame header is not a JSON object"
	}
	id, ok = safeInteger(object["id"])
	if !ok || id < 0 {
		return nil, -1, "frame header has no valid id"
	}
	clean, problem := checkValue(requestHeaderDescriptor, header, "frame header")
	if problem != "" {
		return nil, id, problem
	}
	// Only checked, declared fields reach the struct, each looked up by its exact name (Go's decoder
	// would match keys case-insensitively).
	request = newRequest[clean.(map[string]any)["op"].(string)]()
	if err := fillValue(reflect.ValueOf(request).Elem(), clean); err != nil {
		return nil, id, err.Error()
	}
	return request, id, ""
}

// fillValue sets target from a value the checker returned (strings, int64, float64, bools, nil, []any,
// map[string]any, with `absent` for an optional field not given), a struct's fields by their JSON names.
// What the checker returns is what the descriptors say, and the structs are generated from the same
// tables, so no JSON pass is needed: encoding the checked value and decoding it into the struct took 9 µs
// of an exec request's 14 in a Go benchmark, this 2. A value of another type than the field's is an
// error, never a panic.
func fillValue(target reflect.Value, value any) error {
	mismatch := func() error { return fmt.Errorf("cannot set a %s from a %T", target.Type(), value) }
	switch target.Kind() {
	case reflect.Pointer:
		if value == nil {
			return nil
		}
		element := reflect.New(target.Type().Elem())
		if err := fillValue(element.Elem(), value); err != nil {
			return err
		}
		target.Set(element)
	case reflect.String, reflect.Int64, reflect.Float64, reflect.Bool:
		// The checker gives these kinds exactly (string, int64, float64, bool), never another width.
		given := reflect.ValueOf(value)
		if !given.IsValid() || given.Kind() != target.Kind() {
			return mismatch()
		}
		target.Set(given.Convert(target.Type()))
	case reflect.Slice:
		items, ok := value.([]any)
		if !ok {
			return mismatch()
		}
		slice := reflect.MakeSlice(target.Type(), len(items), len(items))
		for index, item := range items {
			if err := fillValue(slice.Index(index), item); err != nil {
				return err
			}
		}
		target.Set(slice)
	case reflect.Map:
		object, ok := value.(map[string]any)
		if !ok || target.Type().Key().Kind() != reflect.String {
			return mismatch()
		}
		entries := reflect.MakeMapWithSize(target.Type(), len(object))
		for key, item := range object {
			entry := reflect.New(target.Type().Elem()).Elem()
			if err := fillValue(entry, item); err != nil {
				return err
			}
			entries.SetMapIndex(reflect.ValueOf(key).Convert(target.Type().Key()), entry)
		}
		target.Set(entries)
	case reflect.Struct:
		object, ok := value.(map[string]any)
		if !ok {
			return mismatch()
		}
		for index, name := range jsonNames(target.Type()) {
			if item, given := object[name]; given && item != absent {
				if err := fillValue(target.Field(index), item); err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
			}
		}
	case reflect.Interface:
		if value != nil {
			target.Set(reflect.ValueOf(value))
		}
	default:
		return mismatch()
	}
	return nil
}

var jsonNamesOf sync.Map

// jsonNames is each field's JSON name, by the field's index.
func jsonNames(structType reflect.Type) []string {
	if names, ok := jsonNamesOf.Load(structType); ok {
		return names.([]string)
	}
	names := make([]string, structType.NumField())
	for index := range names {
		field := structType.Field(index)
		names[index], _, _ = strings.Cut(field.Tag.Get("json"), ",")
		if names[index] == "" {
			names[index] = field.Name
		}
	}
	jsonNamesOf.Store(structType, names)
	return names
}

// requestOp is the op of a typed request: the Op field every generated request struct has (read in
// place: encoding the request again to find it cost two JSON passes per file request, here and in the
// file worker).
func requestOp(request any) string {
	value := reflect.ValueOf(request)
	if value.Kind() == reflect.Pointer {
		value = value.Elem()
	}
	if value.Kind() != reflect.Struct {
		return ""
	}
	if op := value.FieldByName("Op"); op.IsValid() && op.Kind() == reflect.String {
		return op.String()
	}
	return ""
}
