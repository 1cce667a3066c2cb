package main

// From a frame header to a typed request (the generated structs), through the generated descriptors:
// the twin of parseRequest in protocol-check.ts. The executor trusts the server, but a bug there must
// produce an EBADREQ answer (hence the id, when there is a usable one) rather than a crash.

import (
	"bytes"
	"encoding/json"
	"reflect"
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
	// Only checked, declared fields reach the struct: Go's decoder would otherwise match keys case-insensitively.
	encoded, err := json.Marshal(clean)
	if err != nil {
		return nil, id, err.Error()
	}
	request = newRequest[clean.(map[string]any)["op"].(string)]()
	if err := json.Unmarshal(encoded, request); err != nil {
		return nil, id, err.Error()
	}
	return request, id, ""
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
