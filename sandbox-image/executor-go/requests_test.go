package main

import (
	"encoding/json"
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
