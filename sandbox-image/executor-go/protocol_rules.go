package main

// The rules spanning several fields, which the generated descriptors name (protocol_gen.go shows each
// one's TypeScript source beside its name). A rule named there and missing here stops the executor
// from starting (checkRulesImplemented), so the two cannot drift apart unnoticed.

import "fmt"

var protocolRules = map[string]func(map[string]any) string{
	"exec": func(request map[string]any) string {
		if argv, _ := request["argv"].([]any); len(argv) > 0 && argv[0] == "" {
			return "argv[0] must be a program name, not empty"
		}
		return ""
	},
	"exec.readBefore": sinceMatchesPaths,
	"exec.readAfter":  sinceMatchesPaths,
	"readFiles":       sinceMatchesPaths,
	"appendFile": func(request map[string]any) string {
		if request["create"] == true && request["offset"] != int64(0) {
			return "create needs offset 0"
		}
		return ""
	},
	"exit": func(exit map[string]any) string {
		if (exit["exitCode"] == nil) == (exit["signal"] == nil) {
			return "exactly one of exitCode and signal must be null"
		}
		return ""
	},
	"found": func(entry map[string]any) string {
		if (entry["unchanged"] == true || entry["truncated"] == true) && entry["bytes"] != int64(0) {
			return "bytes must be 0 when unchanged or truncated"
		}
		return ""
	},
}

func sinceMatchesPaths(reads map[string]any) string {
	since, _ := reads["since"].([]any)
	paths, _ := reads["paths"].([]any)
	if len(since) == len(paths) {
		return ""
	}
	return "since must hold one entry per path"
}

// checkRulesImplemented finds the rules the generated descriptors name that have no Go implementation.
func checkRulesImplemented() error {
	seen := map[*Field]bool{}
	var missing []string
	var walk func(field *Field)
	walk = func(field *Field) {
		if field == nil || seen[field] {
			return
		}
		seen[field] = true
		if field.Rule != "" && protocolRules[field.Rule] == nil {
			missing = append(missing, field.Rule)
		}
		walk(field.Of)
		walk(field.Keys)
		for _, named := range append(append([]NamedField{}, field.Shape...), field.Common...) {
			walk(named.Field)
		}
		for _, member := range field.Members {
			walk(member.Object)
		}
	}
	for _, root := range []*Field{requestHeaderDescriptor, responseMessageDescriptor, egressFrameDescriptor} {
		walk(root)
	}
	if len(missing) > 0 {
		return fmt.Errorf("the protocol's rules %v have no Go implementation (protocol_rules.go)", missing)
	}
	return nil
}
