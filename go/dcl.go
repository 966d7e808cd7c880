// Package dcl runs dcl — a coding-agent runtime speaking the Claude / Qoder agent SDKs'
// protocol — inside a Go process, through libdcl's C ABI (bindings/c): no subprocess, the
// same Rust host every binding uses. Callbacks (permissions, hooks, in-process MCP tools)
// are Go functions; each runs in its own goroutine, so a slow one stalls no other session.
//
//	s, err := dcl.Open(ctx, dcl.Options{Model: "mock-model", Cwd: dir, CanUseTool: approve})
//	defer s.Close()
//	s.Query(ctx, "FAKE_WRITE notes.txt")
//	msgs, err := s.ReceiveResponse(ctx)
//
// Build: libdcl must be found by the linker (CGO_LDFLAGS="-L<target>/debug
// -Wl,-rpath,<target>/debug" after `cargo build -p dcl-c`).
package dcl

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Message is one line dcl emits (system, assistant, user, result, stream_event…): the
// common fields decoded, the whole line in Raw.
type Message struct {
	Type      string          `json:"type"`
	Subtype   string          `json:"subtype,omitempty"`
	SessionID string          `json:"session_id,omitempty"`
	Result    string          `json:"result,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	Raw       json.RawMessage `json:"-"`
}

// Decode reads the whole line into v (a struct or map of your choosing).
func (m Message) Decode(v any) error { return json.Unmarshal(m.Raw, v) }

// PermissionResult answers CanUseTool: Behavior "allow" (with UpdatedInput, or the input as
// asked when nil) or "deny" (with Message).
type PermissionResult struct {
	Behavior     string
	UpdatedInput map[string]any
	Message      string
}

// Allow runs the tool with its input as asked.
func Allow() PermissionResult { return PermissionResult{Behavior: "allow"} }

// Deny refuses the tool call; the model reads message.
func Deny(message string) PermissionResult {
	return PermissionResult{Behavior: "deny", Message: message}
}

// CanUseTool decides a tool call dcl's rules left to the host. ctx is cancelled when dcl
// withdraws the request (its host timeout) or the session closes.
type CanUseTool func(ctx context.Context, tool string, input map[string]any) (PermissionResult, error)

// HookCallback runs for a hook event; its output (`{"decision": "block", "reason": …}`,
// `{"hookSpecificOutput": …}`…) is the SDKs' hook output.
type HookCallback func(ctx context.Context, input map[string]any) (map[string]any, error)

// HookMatcher registers callbacks for one event ("PreToolUse"…) where Matcher applies
// (a tool name or pattern; empty: every tool).
type HookMatcher struct {
	Matcher string
	Hooks   []HookCallback
	Timeout float64
}

// ToolResult is what an in-process MCP tool returns: text content, or an error the model
// reads.
type ToolResult struct {
	Text    string
	IsError bool
}

// Tool is one in-process MCP tool: InputSchema is its JSON Schema (checked by dcl before
// Handler runs).
type Tool struct {
	Name        string
	Description string
	InputSchema map[string]any
	Handler     func(ctx context.Context, args map[string]any) (ToolResult, error)
}

// McpServer is an in-process MCP server; the model sees tool t as mcp__<Name>__<t.Name>.
type McpServer struct {
	Name    string
	Version string
	Tools   []Tool
}

// Options open a session. The fields map to dcl's options JSON (the schema is
// core/bridge/schema/session-options.schema.json); Extra sets any other key of it.
type Options struct {
	Model           string
	Cwd             string
	PermissionMode  string
	SystemPrompt    *string
	MaxTurns        int
	AllowedTools    []string
	DisallowedTools []string
	Env             map[string]string
	PersistSession  *bool
	// HostTimeout: seconds dcl waits for a callback before withdrawing it (default 300).
	HostTimeout float64
	CanUseTool  CanUseTool
	Hooks       map[string][]HookMatcher
	McpServers  []*McpServer
	// CLIPath runs the session in that dcl executable as a child process, driven by the
	// same host (the subprocess transport).
	CLIPath string
	Extra   map[string]any
}

func (o Options) json() (string, error) {
	out := map[string]any{"outputFormat": "stream-json", "legacyEvents": false}
	set := func(k string, v any, ok bool) {
		if ok {
			out[k] = v
		}
	}
	set("model", o.Model, o.Model != "")
	set("cwd", o.Cwd, o.Cwd != "")
	set("permissionMode", o.PermissionMode, o.PermissionMode != "")
	set("systemPrompt", o.SystemPrompt, o.SystemPrompt != nil)
	set("maxTurns", o.MaxTurns, o.MaxTurns > 0)
	set("allowedTools", o.AllowedTools, len(o.AllowedTools) > 0)
	set("disallowedTools", o.DisallowedTools, len(o.DisallowedTools) > 0)
	set("env", o.Env, o.Env != nil)
	set("persistSession", o.PersistSession, o.PersistSession != nil)
	set("hostTimeoutSecs", o.HostTimeout, o.HostTimeout > 0)
	set("permissionPromptTool", "stdio", o.CanUseTool != nil)
	for k, v := range o.Extra {
		out[k] = v
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// Session is one dcl session in this process.
type Session struct {
	h     *handle
	key   uint64
	opts  Options
	hooks []HookCallback
	tools map[string]map[string]Tool

	mu      sync.Mutex
	queue   []Message
	ended   bool
	failure error
	notify  chan struct{}
	running map[string]context.CancelFunc
	wg      sync.WaitGroup
}

// Open starts a session and sends `initialize` (hooks, MCP servers).
func Open(ctx context.Context, opts Options) (*Session, error) {
	text, err := opts.json()
	if err != nil {
		return nil, err
	}
	h, err := openHandle(text, opts.CLIPath, -1)
	if err != nil {
		return nil, err
	}
	s := &Session{
		h:       h,
		opts:    opts,
		tools:   map[string]map[string]Tool{},
		notify:  make(chan struct{}, 1),
		running: map[string]context.CancelFunc{},
	}
	for _, srv := range opts.McpServers {
		spec := map[string]any{"name": srv.Name, "version": firstNonEmpty(srv.Version, "1.0.0")}
		tools := []map[string]any{}
		s.tools[srv.Name] = map[string]Tool{}
		for _, t := range srv.Tools {
			schema := t.InputSchema
			if schema == nil {
				schema = map[string]any{"type": "object"}
			}
			tools = append(tools, map[string]any{"name": t.Name, "description": t.Description, "inputSchema": schema})
			s.tools[srv.Name][t.Name] = t
		}
		spec["tools"] = tools
		b, _ := json.Marshal(spec)
		if err := h.addMcpServer(string(b)); err != nil {
			h.close()
			return nil, err
		}
	}
	hooks := []map[string]any{}
	for event, matchers := range opts.Hooks {
		for _, m := range matchers {
			entry := map[string]any{"event": event, "callbacks": len(m.Hooks)}
			if m.Matcher != "" {
				entry["matcher"] = m.Matcher
			}
			if m.Timeout > 0 {
				entry["timeout"] = m.Timeout
			}
			hooks = append(hooks, entry)
			s.hooks = append(s.hooks, m.Hooks...)
		}
	}
	s.key = thePoller.register(s)
	spec, _ := json.Marshal(map[string]any{"hooks": hooks})
	init, err := h.initializeRequest(string(spec))
	if err != nil {
		s.Close()
		return nil, err
	}
	if _, err := s.Request(ctx, json.RawMessage(init)); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// SessionID is the session's id.
func (s *Session) SessionID() string { return s.h.sessionID() }

// Query sends a prompt (one user turn); read its messages with Receive / ReceiveResponse.
func (s *Session) Query(ctx context.Context, prompt string) error {
	line, _ := json.Marshal(map[string]any{
		"type":    "user",
		"message": map[string]any{"role": "user", "content": prompt},
	})
	for {
		busy, err := s.h.send(string(line))
		if err != nil || !busy {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}

// Receive returns the next message; io.EOF once the session has ended.
func (s *Session) Receive(ctx context.Context) (Message, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			m := s.queue[0]
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return m, nil
		}
		if s.ended {
			err := s.failure
			s.mu.Unlock()
			if err == nil {
				err = io.EOF
			}
			return Message{}, err
		}
		s.mu.Unlock()
		select {
		case <-ctx.Done():
			return Message{}, ctx.Err()
		case <-s.notify:
		}
	}
}

// ReceiveResponse returns the messages up to and including the next result.
func (s *Session) ReceiveResponse(ctx context.Context) ([]Message, error) {
	var out []Message
	for {
		m, err := s.Receive(ctx)
		if err != nil {
			return out, err
		}
		out = append(out, m)
		if m.Type == "result" {
			return out, nil
		}
	}
}

// Request sends a control request ({"subtype": "set_model", …}) and returns dcl's answer.
func (s *Session) Request(ctx context.Context, request json.RawMessage) (map[string]any, error) {
	timeout := int64(60_000)
	if d, ok := ctx.Deadline(); ok {
		timeout = time.Until(d).Milliseconds()
		if timeout < 0 {
			return nil, context.DeadlineExceeded
		}
	}
	out, err := s.h.request(string(request), timeout)
	if err != nil {
		return nil, err
	}
	answer := map[string]any{}
	if err := json.Unmarshal([]byte(out), &answer); err != nil {
		return nil, err
	}
	return answer, nil
}

// Interrupt stops the running turn; its result follows.
func (s *Session) Interrupt(ctx context.Context) error {
	_, err := s.Request(ctx, json.RawMessage(`{"subtype":"interrupt"}`))
	return err
}

// EndInput: no more prompts; the session ends once queued turns finish.
func (s *Session) EndInput() { s.h.endInput() }

// Close stops the session (a running turn is cancelled) and frees it.
func (s *Session) Close() error {
	s.mu.Lock()
	for _, cancel := range s.running {
		cancel()
	}
	s.mu.Unlock()
	thePoller.forget(s.key)
	s.h.close()
	s.wg.Wait()
	s.mu.Lock()
	s.ended = true
	s.mu.Unlock()
	s.signal()
	return nil
}

func (s *Session) signal() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

// wake is called by the poller: take every ready event, then re-arm.
func (s *Session) wake(rearm func()) {
	for {
		events, ended, err := s.h.tryEvents(256)
		if err != nil || ended {
			s.mu.Lock()
			s.ended = true
			if err != nil {
				s.failure = err
			}
			s.mu.Unlock()
			s.signal()
			return
		}
		if len(events) == 0 {
			rearm()
			return
		}
		for _, e := range events {
			s.route(e)
		}
	}
}

func (s *Session) route(e rawEvent) {
	switch e.Kind {
	case "message":
		m := Message{Raw: append(json.RawMessage(nil), e.Payload...)}
		_ = json.Unmarshal(e.Payload, &m)
		s.mu.Lock()
		s.queue = append(s.queue, m)
		s.mu.Unlock()
		s.signal()
	case "cancel":
		s.mu.Lock()
		if cancel := s.running[e.ID]; cancel != nil {
			cancel()
		}
		s.mu.Unlock()
	case "control_response":
		// Answers to calls made with dcl_call; this package uses dcl_request instead.
	default:
		ctx, cancel := context.WithCancel(context.Background())
		s.mu.Lock()
		s.running[e.ID] = cancel
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer func() {
				s.mu.Lock()
				delete(s.running, e.ID)
				s.mu.Unlock()
				cancel()
			}()
			s.handle(ctx, e)
		}()
	}
}

func (s *Session) handle(ctx context.Context, e rawEvent) {
	var payload map[string]any
	_ = json.Unmarshal(e.Payload, &payload)
	result, err := s.callback(ctx, e.Kind, payload)
	if ctx.Err() != nil {
		return // withdrawn: nobody waits for the answer
	}
	if err != nil {
		_ = s.h.respondError(e.ID, err.Error())
		return
	}
	b, merr := json.Marshal(result)
	if merr != nil {
		_ = s.h.respondError(e.ID, merr.Error())
		return
	}
	if err := s.h.respond(e.ID, string(b)); err != nil && !errors.Is(err, ErrNotPending) {
		_ = err // the session ended meanwhile
	}
}

func (s *Session) callback(ctx context.Context, kind string, p map[string]any) (any, error) {
	switch kind {
	case "can_use_tool":
		if s.opts.CanUseTool == nil {
			return nil, errors.New("canUseTool callback is not provided")
		}
		input, _ := p["input"].(map[string]any)
		tool, _ := p["tool_name"].(string)
		r, err := s.opts.CanUseTool(ctx, tool, input)
		if err != nil {
			return nil, err
		}
		switch r.Behavior {
		case "allow":
			updated := r.UpdatedInput
			if updated == nil {
				updated = input
			}
			return map[string]any{"behavior": "allow", "updatedInput": updated}, nil
		case "deny":
			return map[string]any{"behavior": "deny", "message": r.Message}, nil
		default:
			return nil, fmt.Errorf("permission answer needs Behavior allow or deny, not %q", r.Behavior)
		}
	case "hook_callback":
		index, ok := p["callback_index"].(float64)
		if !ok || int(index) < 0 || int(index) >= len(s.hooks) {
			return nil, fmt.Errorf("no hook callback for %v", p["callback_id"])
		}
		input, _ := p["input"].(map[string]any)
		out, err := s.hooks[int(index)](ctx, input)
		if out == nil {
			out = map[string]any{}
		}
		return out, err
	case "tool_call":
		server, _ := p["server"].(string)
		name, _ := p["tool"].(string)
		t, ok := s.tools[server][name]
		if !ok {
			return nil, fmt.Errorf("tool %s of server %s not found", name, server)
		}
		args, _ := p["arguments"].(map[string]any)
		r, err := t.Handler(ctx, args)
		if err != nil {
			return nil, err
		}
		return map[string]any{
			"content":  []map[string]any{{"type": "text", "text": r.Text}},
			"is_error": r.IsError,
		}, nil
	default:
		return nil, fmt.Errorf("unsupported request %s", kind)
	}
}

// Query runs one prompt in a new session and returns every message; the session is
// closed after its result.
func Query(ctx context.Context, prompt string, opts Options) ([]Message, error) {
	s, err := Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.Query(ctx, prompt); err != nil {
		return nil, err
	}
	return s.ReceiveResponse(ctx)
}
