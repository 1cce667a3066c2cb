package main

// The executor's side of the separation of identities that can be checked without root: how it reads
// the identities it is given, how the protocol carries who runs an exec. What the kernel then does with
// them is shown in test/docker/isolation.test.ts.

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
)

const (
	sandboxArgument = "sandbox=1000:1000:/home/sandbox"
	hooksArgument   = "hooks=1001:1001:/home/hooks"
)

func mustParse(t *testing.T, argv ...string) *ExecutorArguments {
	t.Helper()
	parsed, err := parseExecutorArguments(argv)
	if err != nil {
		t.Fatalf("%s: %v", strings.Join(argv, " "), err)
	}
	return parsed
}

func TestReadsBothIdentitiesOrNone(t *testing.T) {
	parsed := mustParse(t, "--identity", sandboxArgument, "--identity", hooksArgument)
	want := map[string]*Identity{
		"sandbox": {Name: "sandbox", UID: 1000, GID: 1000, Home: "/home/sandbox"},
		"hooks":   {Name: "hooks", UID: 1001, GID: 1001, Home: "/home/hooks"},
	}
	if !reflect.DeepEqual(parsed.Identities, want) {
		t.Errorf("identities: got %+v, want %+v", parsed.Identities, want)
	}
	if parsed.FileWorkerFor != "" {
		t.Errorf("file worker: got %q, want none", parsed.FileWorkerFor)
	}
	// An executor that runs everything as itself (the local executor) is given none.
	if none := mustParse(t); len(none.Identities) != 0 {
		t.Errorf("no arguments: got identities %+v", none.Identities)
	}
}

func TestReadsTheDiskLimitWhenGiven(t *testing.T) {
	cases := []struct {
		argv []string
		want int64
	}{
		{[]string{"--identity", sandboxArgument, "--identity", hooksArgument, "--disk-limit-mb", "64"}, 64},
		{[]string{"--identity", sandboxArgument, "--identity", hooksArgument}, 0},
	}
	for _, c := range cases {
		if got := mustParse(t, c.argv...).DiskLimitMb; got != c.want {
			t.Errorf("%s: disk limit %d, want %d", strings.Join(c.argv, " "), got, c.want)
		}
	}
}

func TestFileWorkerGetsTheSameIdentities(t *testing.T) {
	identities := mustParse(t, "--identity", sandboxArgument, "--identity", hooksArgument).Identities
	worker := mustParse(t, append([]string{"--file-worker", "sandbox"}, identityArguments(identities)...)...)
	if worker.FileWorkerFor != "sandbox" {
		t.Errorf("file worker for %q, want sandbox", worker.FileWorkerFor)
	}
	if !reflect.DeepEqual(worker.Identities, identities) {
		t.Errorf("worker identities %+v, want %+v", worker.Identities, identities)
	}
}

func TestRefusesRootAndNobodyInParticular(t *testing.T) {
	cases := []struct {
		argv   []string
		reason string
	}{
		{[]string{"--identity", "sandbox=0:1000:/root", "--identity", hooksArgument}, `must not be root`},
		{[]string{"--identity", "sandbox=1000:0:/home/sandbox", "--identity", hooksArgument}, `must not be root`},
		{[]string{"--identity", sandboxArgument}, `missing for hooks`},
		{[]string{"--identity", "intruder=5:5:/x", "--identity", sandboxArgument, "--identity", hooksArgument}, `unknown identity "intruder"`},
		{[]string{"--identity", "sandbox=1000:1000:relative", "--identity", hooksArgument}, `expected name=uid:gid:/home`},
		{[]string{"--identity"}, `needs a value`},
		{[]string{"--as-root", "yes"}, `unknown argument --as-root`},
		{[]string{"--file-worker", "sandbox"}, `has no --identity`},
		{[]string{"--disk-limit-mb", "64"}, `--disk-limit-mb needs identities`},
		{[]string{"--identity", sandboxArgument, "--identity", hooksArgument, "--disk-limit-mb", "0"}, `expected a whole number of MiB`},
		{[]string{"--identity", sandboxArgument, "--identity", hooksArgument, "--disk-limit-mb", "1e3"}, `expected a whole number of MiB`},
	}
	for _, c := range cases {
		parsed, err := parseExecutorArguments(c.argv)
		if err == nil {
			t.Errorf("%s: accepted as %+v, want refused (%s)", strings.Join(c.argv, " "), parsed, c.reason)
		} else if !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%s: refused with %q, want %q", strings.Join(c.argv, " "), err, c.reason)
		}
	}
}

func TestRequestCarriesWhoRunsAnExec(t *testing.T) {
	const exec = `"op":"exec","id":1,"argv":["true"],"timeoutMs":10,"maxOutputBytes":10`
	parse := func(header string) (*ExecRequest, string) {
		t.Helper()
		value, err := decodeJSON([]byte("{" + header + "}"))
		if err != nil {
			t.Fatalf("%s: %v", header, err)
		}
		request, _, problem := parseRequest(value)
		if problem != "" {
			return nil, problem
		}
		return request.(*ExecRequest), ""
	}
	cases := []struct {
		header string
		runAs  *string // nil: none
	}{
		{exec + `,"runAs":"hooks"`, stringPointer("hooks")},
		{exec + `,"runAs":"sandbox"`, stringPointer("sandbox")},
		{exec, nil},
	}
	for _, c := range cases {
		request, problem := parse(c.header)
		if problem != "" {
			t.Errorf("%s: refused: %s", c.header, problem)
			continue
		}
		if !reflect.DeepEqual(request.RunAs, c.runAs) || request.Id != 1 || !reflect.DeepEqual(request.Argv, []string{"true"}) {
			t.Errorf("%s: got %+v", c.header, request)
		}
	}
	// Nothing but the two identities: root, or anyone else, is refused by the protocol itself.
	for _, runAs := range []string{"root", "nobody", ""} {
		header := exec + `,"runAs":"` + runAs + `"`
		if request, problem := parse(header); problem == "" {
			t.Errorf("%s: accepted as %+v", header, request)
		} else if !regexp.MustCompile(`runAs`).MatchString(problem) {
			t.Errorf("%s: problem %q does not name runAs", header, problem)
		}
	}
}

func stringPointer(text string) *string { return &text }
