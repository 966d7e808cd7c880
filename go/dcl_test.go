package dcl

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func box(t *testing.T) (string, Options) {
	t.Helper()
	root := t.TempDir()
	cwd := filepath.Join(root, "work")
	home := filepath.Join(root, "home")
	for _, d := range []string{cwd, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	off := false
	return cwd, Options{
		Model:          "mock-model",
		Cwd:            cwd,
		Env:            map[string]string{"HOME": home, "PATH": os.Getenv("PATH")},
		PersistSession: &off,
		CLIPath:        os.Getenv("DCL_CLI_PATH"), // set: the same tests through a dcl child
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func result(t *testing.T, msgs []Message) Message {
	t.Helper()
	if len(msgs) == 0 || msgs[len(msgs)-1].Type != "result" {
		t.Fatalf("no result in %d messages", len(msgs))
	}
	return msgs[len(msgs)-1]
}

func TestOneShotQuery(t *testing.T) {
	_, o := box(t)
	msgs, err := Query(ctx(t), "hello", o)
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, msgs)
	if r.IsError || r.Result != "Hello from the fake model." {
		t.Fatalf("result %+v", r)
	}
	if msgs[0].Type != "system" || msgs[0].Subtype != "init" {
		t.Fatalf("first message %s/%s", msgs[0].Type, msgs[0].Subtype)
	}
}

func TestMultiTurnKeepsTheSessionID(t *testing.T) {
	_, o := box(t)
	c := ctx(t)
	s, err := Open(c, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []string
	for i := 0; i < 2; i++ {
		if err := s.Query(c, fmt.Sprintf("turn %d", i)); err != nil {
			t.Fatal(err)
		}
		msgs, err := s.ReceiveResponse(c)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, result(t, msgs).SessionID)
	}
	if ids[0] == "" || ids[0] != ids[1] || ids[0] != s.SessionID() {
		t.Fatalf("session ids %v vs %s", ids, s.SessionID())
	}
}

func TestPermissionAllowAndDenyWithTheirFiles(t *testing.T) {
	cwd, o := box(t)
	var asked []string
	var mu sync.Mutex
	o.CanUseTool = func(_ context.Context, tool string, input map[string]any) (PermissionResult, error) {
		mu.Lock()
		asked = append(asked, tool)
		mu.Unlock()
		if strings.HasSuffix(fmt.Sprint(input["file_path"]), "denied.txt") {
			return Deny("not here"), nil
		}
		return Allow(), nil
	}
	c := ctx(t)
	s, err := Open(c, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, f := range []string{"allowed.txt", "denied.txt"} {
		if err := s.Query(c, "FAKE_WRITE "+f); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReceiveResponse(c); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(cwd, "allowed.txt")); err != nil || string(got) != "hello\n" {
		t.Fatalf("allowed.txt: %q %v", got, err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "denied.txt")); !os.IsNotExist(err) {
		t.Fatalf("denied.txt exists: %v", err)
	}
	if len(asked) != 2 || asked[0] != "Write" {
		t.Fatalf("asked %v", asked)
	}
}

func TestAHookCallbackBlocksBashAndItsTwinRunsIt(t *testing.T) {
	for _, block := range []bool{true, false} {
		cwd, o := box(t)
		o.AllowedTools = []string{"Bash"}
		var calls atomic.Int32
		o.Hooks = map[string][]HookMatcher{"PreToolUse": {{Matcher: "Bash", Hooks: []HookCallback{
			func(_ context.Context, input map[string]any) (map[string]any, error) {
				calls.Add(1)
				if input["tool_name"] != "Bash" {
					return nil, fmt.Errorf("hook input %v", input)
				}
				if block {
					return map[string]any{"decision": "block", "reason": "no shells today"}, nil
				}
				return map[string]any{}, nil
			},
		}}}}
		msgs, err := Query(ctx(t), "FAKE_BASH", o)
		if err != nil {
			t.Fatal(err)
		}
		raw := string(mustJSON(msgs))
		if calls.Load() != 1 {
			t.Fatalf("hook called %d times", calls.Load())
		}
		if block != strings.Contains(raw, "no shells today") {
			t.Fatalf("block=%v but the tool result is %s", block, raw)
		}
		_ = cwd
	}
}

func mustJSON(msgs []Message) []byte {
	var all []json.RawMessage
	for _, m := range msgs {
		all = append(all, m.Raw)
	}
	b, _ := json.Marshal(all)
	return b
}

func TestAnInProcessMcpToolIsCalledByTheModel(t *testing.T) {
	_, o := box(t)
	var got map[string]any
	o.McpServers = []*McpServer{{Name: "calc", Tools: []Tool{{
		Name:        "add",
		Description: "Add two integers",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"a": map[string]any{"type": "integer"}, "b": map[string]any{"type": "integer"}},
			"required":   []string{"a", "b"},
		},
		Handler: func(_ context.Context, args map[string]any) (ToolResult, error) {
			got = args
			return ToolResult{Text: fmt.Sprintf("sum=%v", args["a"].(float64)+args["b"].(float64))}, nil
		},
	}}}}
	o.AllowedTools = []string{"mcp__calc__add"}
	msgs, err := Query(ctx(t), `FAKE_TOOL mcp__calc__add {"a": 20, "b": 22}`, o)
	if err != nil {
		t.Fatal(err)
	}
	if got == nil || !strings.Contains(string(mustJSON(msgs)), "sum=42") {
		t.Fatalf("tool args %v, messages %s", got, mustJSON(msgs))
	}
	// Its twin: arguments that do not fit the schema never reach the handler.
	got = nil
	msgs, err = Query(ctx(t), `FAKE_TOOL mcp__calc__add {"a": "twenty"}`, o)
	if err != nil {
		t.Fatal(err)
	}
	if got != nil || !strings.Contains(strings.ToLower(string(mustJSON(msgs))), "validation") {
		t.Fatalf("bad input reached the handler (%v) or no error: %s", got, mustJSON(msgs))
	}
}

func TestInterruptEndsTheTurn(t *testing.T) {
	_, o := box(t)
	c := ctx(t)
	s, err := Open(c, o)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Query(c, "FAKE_SLOW"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if err := s.Interrupt(c); err != nil {
		t.Fatal(err)
	}
	msgs, err := s.ReceiveResponse(c)
	if err != nil {
		t.Fatal(err)
	}
	r := result(t, msgs)
	if !r.IsError || r.Subtype != "error_during_execution" {
		t.Fatalf("result %s", r.Raw)
	}
	if strings.Contains(string(mustJSON(msgs)), "w39") {
		t.Fatal("the slow answer ran to its end")
	}
}

func TestAHundredSessionsAndOneSlowCallbackStallsNone(t *testing.T) {
	const n = 100
	gate := make(chan struct{})
	var finished []int
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		cwd, o := box(t)
		i := i
		o.CanUseTool = func(ctx context.Context, _ string, _ map[string]any) (PermissionResult, error) {
			if i == 0 {
				select {
				case <-gate:
				case <-ctx.Done():
					return PermissionResult{}, ctx.Err()
				}
			}
			return Allow(), nil
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Query(ctx(t), "FAKE_WRITE out.txt", o); err != nil {
				errs <- err
				return
			}
			if b, err := os.ReadFile(filepath.Join(cwd, "out.txt")); err != nil || string(b) != "hello\n" {
				errs <- fmt.Errorf("session %d: out.txt %q %v", i, b, err)
				return
			}
			mu.Lock()
			finished = append(finished, i)
			if len(finished) == n-1 {
				close(gate)
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if len(finished) != n || finished[n-1] != 0 {
		t.Fatalf("the stalled session was not last: %v", finished)
	}
}

func TestBadOptionsNameTheOption(t *testing.T) {
	_, o := box(t)
	o.Extra = map[string]any{"maxTurns": -1}
	_, err := Open(ctx(t), o)
	e, ok := err.(*Error)
	if !ok || e.Code != "DCL_INVALID_OPTIONS" || e.Option != "maxTurns" {
		t.Fatalf("err %#v", err)
	}
}

func TestMessagesDecodeIntoTheGeneratedTypes(t *testing.T) {
	_, o := box(t)
	o.Extra = map[string]any{OptionMaxTurns: 3}
	msgs, err := Query(ctx(t), "hello", o)
	if err != nil {
		t.Fatal(err)
	}
	var init SystemInit
	if err := msgs[0].Decode(&init); err != nil || init.Model != "mock-model" || init.SessionId == "" {
		t.Fatalf("system/init %+v %v", init, err)
	}
	var r ResultMessage
	if err := result(t, msgs).Decode(&r); err != nil || r.NumTurns != 1 || r.Result == nil {
		t.Fatalf("result %+v %v", r, err)
	}
	found := false
	for _, k := range OptionKeys {
		found = found || k == "maxTurns"
	}
	if !found {
		t.Fatal("OptionKeys has no maxTurns")
	}
}
