package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// Every request type the protocol declares gives its op back, as written in its header.
func TestRequestOpOfEveryRequest(t *testing.T) {
	if len(newRequest) == 0 {
		t.Fatal("no request types")
	}
	for op, create := range newRequest {
		request := create()
		if err := json.Unmarshal([]byte(`{"op":"`+op+`"}`), request); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
		if got := requestOp(request); got != op {
			t.Errorf("requestOp of a %s request: %q", op, got)
		}
	}
	if got := requestOp("exec"); got != "" {
		t.Errorf("requestOp of a string: %q", got)
	}
}

// Headers of every request type, with their optional fields given and not, nulls where allowed and
// fields the tables do not declare (or declare in another case).
var requestHeaders = []string{
	`{"op":"exec","id":1,"argv":["bash","-c","true"],"timeoutMs":1000,"maxOutputBytes":10}`,
	`{"op":"exec","id":2,"argv":["env"],"cwd":"/workspace","env":{"A":"b","__proto__":"x","a":""},"timeoutMs":0,"maxOutputBytes":9007199254740991,"runAs":"hooks","ARGV":["no"],"extra":{"x":1},
	  "readBefore":{"paths":["/a","/b"],"maxBytes":10,"since":["t1","t2"]},"readAfter":{"paths":["/a","/b"],"maxBytes":4194304,"since":[null,"t2"]}}`,
	`{"op":"cancel","id":3,"target":2}`,
	`{"op":"ping","id":4,"extra":true}`,
	`{"op":"readFile","id":5,"path":"/etc/hostname","maxBytes":100}`,
	`{"op":"readFile","id":6,"path":"/a","maxBytes":0,"readBefore":{"paths":["/h"],"maxBytes":1,"since":[""]},"readAfter":{"paths":["/h"],"maxBytes":1,"since":[null]}}`,
	`{"op":"readFiles","id":7,"paths":["/a","/b"],"maxBytes":10,"since":[null,"t"]}`,
	`{"op":"writeFile","id":8,"path":"/a","mode":420,"Mode":1}`,
	`{"op":"writeFile","id":9,"path":"/a","readAfter":{"paths":["/h"],"maxBytes":1,"since":["t"]}}`,
	`{"op":"listFiles","id":10,"path":"/workspace"}`,
	`{"op":"deleteFile","id":11,"path":"/a","recursive":true,"readBefore":{"paths":["/h"],"maxBytes":1,"since":["t"]}}`,
	`{"op":"stat","id":12,"path":"/"}`,
	`{"op":"walk","id":13,"path":"/w","recursive":true,"limit":3}`,
	`{"op":"walk","id":14,"path":"/w","recursive":false,"limit":3,"after":"b/c","exclude":["/w/x"]}`,
	`{"op":"usage","id":15,"paths":["/a"],"exclude":[]}`,
	`{"op":"readFileChunk","id":16,"path":"/a","offset":5,"length":8}`,
	`{"op":"appendFile","id":17,"path":"/a","offset":0,"create":true}`,
	`{"op":"moveFile","id":18,"from":"/a","to":"/b","overwrite":false}`,
	`{"op":"exportTree","id":19,"paths":["/workspace"],"maxBytes":1048576}`,
	`{"op":"extractTree","id":20}`,
	`{"op":"egressListen","id":21,"host":"127.0.0.1","port":0}`,
}

// The typed request is what decoding the checked header as JSON into the struct gave (the way
// parseRequest read requests before fillValue), field for field.
func TestParseRequestFillsWhatJSONWould(t *testing.T) {
	seen := map[string]bool{}
	for _, text := range requestHeaders {
		header, err := decodeJSON([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		request, _, problem := parseRequest(header)
		if problem != "" {
			t.Fatalf("%s: %s", text, problem)
		}
		clean, _ := checkValue(requestHeaderDescriptor, header, "frame header")
		op := clean.(map[string]any)["op"].(string)
		seen[op] = true
		encoded, err := json.Marshal(clean)
		if err != nil {
			t.Fatal(err)
		}
		expected := newRequest[op]()
		if err := json.Unmarshal(encoded, expected); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(request, expected) {
			got, _ := json.Marshal(request)
			want, _ := json.Marshal(expected)
			t.Errorf("%s:\n got  %s\n want %s", op, got, want)
		}
	}
	for op := range newRequest {
		if !seen[op] {
			t.Errorf("no header of a %s request here", op)
		}
	}
}

// A value of another type than its field's is an error, not a panic (a checker and structs that drifted apart).
func TestFillValueRefusesAMismatch(t *testing.T) {
	request := newRequest["exec"]()
	err := fillValue(reflect.ValueOf(request).Elem(), map[string]any{"op": "exec", "timeoutMs": "soon"})
	if err == nil || !strings.Contains(err.Error(), "timeoutMs") {
		t.Fatalf("expected an error naming timeoutMs, got %v", err)
	}
}
