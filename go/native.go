package dcl

/*
#cgo CFLAGS: -I${SRCDIR}/../bindings/c/include
#cgo LDFLAGS: -ldcl
#include <stdlib.h>
#include "dcl.h"
*/
import "C"

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unsafe"
)

// The cgo layer: every call into libdcl (bindings/c) is here. Strings cross as UTF-8 JSON;
// what libdcl returns is copied into Go memory and freed at once with dcl_string_free.

// Error is a failure dcl reports: Code is one of DCL_INVALID_OPTIONS, DCL_BAD_INPUT,
// DCL_CLOSED, DCL_NOT_PENDING, DCL_TIMEOUT, DCL_REFUSED, DCL_INTERNAL; Option names the
// option to blame when one is.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Option  string `json:"option"`
}

func (e *Error) Error() string { return e.Message }

// ErrNotPending: the request was answered, timed out or withdrawn already.
var ErrNotPending = errors.New("dcl: the request is not waiting for an answer")

func takeString(p *C.char) string {
	if p == nil {
		return ""
	}
	s := C.GoString(p)
	C.dcl_string_free(p)
	return s
}

func takeError(p *C.char) error {
	text := takeString(p)
	if text == "" {
		return &Error{Code: "DCL_INTERNAL", Message: "dcl failed without saying why"}
	}
	e := &Error{}
	if err := json.Unmarshal([]byte(text), e); err != nil {
		return &Error{Code: "DCL_INTERNAL", Message: text}
	}
	if e.Code == "DCL_NOT_PENDING" {
		return fmt.Errorf("%w: %s", ErrNotPending, e.Message)
	}
	return e
}

// cstr is a C copy of s, freed by the returned function.
func cstr(s string) (*C.char, func()) {
	p := C.CString(s)
	return p, func() { C.free(unsafe.Pointer(p)) }
}

type handle struct {
	mu     sync.RWMutex // close excludes every other call
	ptr    *C.DclSession
	closed bool
}

func openHandle(optionsJSON string, cliPath string, callbackTimeoutMs int64) (*handle, error) {
	opts, free := cstr(optionsJSON)
	defer free()
	var out *C.DclSession
	var cerr *C.char
	var rc C.int
	if cliPath != "" {
		path, freePath := cstr(cliPath)
		defer freePath()
		rc = C.dcl_open_cli(path, opts, C.int64_t(callbackTimeoutMs), &out, &cerr)
	} else {
		rc = C.dcl_open(opts, C.int64_t(callbackTimeoutMs), &out, &cerr)
	}
	if rc != C.DCL_OK {
		return nil, takeError(cerr)
	}
	return &handle{ptr: out}, nil
}

func (h *handle) use(f func(*C.DclSession) error) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.closed {
		return &Error{Code: "DCL_CLOSED", Message: "the session is closed"}
	}
	return f(h.ptr)
}

func (h *handle) sessionID() string {
	var id string
	_ = h.use(func(s *C.DclSession) error {
		id = takeString(C.dcl_session_id(s))
		return nil
	})
	return id
}

func (h *handle) addMcpServer(specJSON string) error {
	return h.use(func(s *C.DclSession) error {
		spec, free := cstr(specJSON)
		defer free()
		var cerr *C.char
		if C.dcl_add_mcp_server(s, spec, &cerr) != C.DCL_OK {
			return takeError(cerr)
		}
		return nil
	})
}

func (h *handle) initialize(specJSON string, timeoutMs int64) (string, error) {
	var id string
	err := h.use(func(s *C.DclSession) error {
		spec, free := cstr(specJSON)
		defer free()
		var cid, cerr *C.char
		if C.dcl_initialize(s, spec, C.int64_t(timeoutMs), &cid, &cerr) != C.DCL_OK {
			return takeError(cerr)
		}
		id = takeString(cid)
		return nil
	})
	return id, err
}

func (h *handle) call(requestJSON string, timeoutMs int64) (string, error) {
	var id string
	err := h.use(func(s *C.DclSession) error {
		req, free := cstr(requestJSON)
		defer free()
		var cid, cerr *C.char
		if C.dcl_call(s, req, C.int64_t(timeoutMs), &cid, &cerr) != C.DCL_OK {
			return takeError(cerr)
		}
		id = takeString(cid)
		return nil
	})
	return id, err
}

// send returns busy=true when the input queue is full.
func (h *handle) send(line string) (busy bool, err error) {
	err = h.use(func(s *C.DclSession) error {
		l, free := cstr(line)
		defer free()
		var cerr *C.char
		switch C.dcl_send(s, l, &cerr) {
		case C.DCL_OK:
			return nil
		case C.DCL_BUSY:
			busy = true
			return nil
		default:
			return takeError(cerr)
		}
	})
	return busy, err
}

type rawEvent struct {
	ID      string          `json:"id"`
	Kind    string          `json:"kind"`
	Payload json.RawMessage `json:"payload"`
}

// tryEvents: events (nil, false) when none is ready, ended=true once over.
func (h *handle) tryEvents(max int) (events []rawEvent, ended bool, err error) {
	err = h.use(func(s *C.DclSession) error {
		var out *C.char
		switch C.dcl_try_events(s, C.uint32_t(max), &out) {
		case C.DCL_OK:
			return json.Unmarshal([]byte(takeString(out)), &events)
		case C.DCL_ENDED:
			ended = true
			return nil
		case C.DCL_NONE:
			return nil
		default:
			return &Error{Code: "DCL_INTERNAL", Message: "dcl_try_events failed"}
		}
	})
	if err != nil {
		if e, ok := err.(*Error); ok && e.Code == "DCL_CLOSED" {
			return nil, true, nil
		}
	}
	return events, ended, err
}

func (h *handle) respond(id string, resultJSON string) error {
	return h.use(func(s *C.DclSession) error {
		cid, freeID := cstr(id)
		defer freeID()
		res, free := cstr(resultJSON)
		defer free()
		var cerr *C.char
		if C.dcl_respond(s, cid, res, &cerr) != C.DCL_OK {
			return takeError(cerr)
		}
		return nil
	})
}

func (h *handle) respondError(id string, message string) error {
	return h.use(func(s *C.DclSession) error {
		cid, freeID := cstr(id)
		defer freeID()
		msg, free := cstr(message)
		defer free()
		var cerr *C.char
		if C.dcl_respond_error(s, cid, msg, &cerr) != C.DCL_OK {
			return takeError(cerr)
		}
		return nil
	})
}

func (h *handle) arm(w *C.DclWaker, key uint64) {
	_ = h.use(func(s *C.DclSession) error {
		C.dcl_arm(s, w, C.uint64_t(key))
		return nil
	})
}

func (h *handle) interrupt() {
	_ = h.use(func(s *C.DclSession) error { C.dcl_interrupt(s); return nil })
}

func (h *handle) endInput() {
	_ = h.use(func(s *C.DclSession) error { C.dcl_end_input(s); return nil })
}

func (h *handle) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed = true
	C.dcl_close(h.ptr)
	h.ptr = nil
}

// ---------------------------------------------------------------------------- the poller

// One goroutine per process waits on one libdcl waker for every session, so a waiting
// session costs no thread: it is woken by key and its events are taken without blocking.
type poller struct {
	once     sync.Once
	waker    *C.DclWaker
	mu       sync.Mutex
	sessions map[uint64]*Session
	next     uint64
}

var thePoller poller

func (p *poller) start() {
	p.once.Do(func() {
		p.waker = C.dcl_waker_new()
		p.sessions = map[uint64]*Session{}
		go p.run()
	})
}

func (p *poller) register(s *Session) uint64 {
	p.start()
	p.mu.Lock()
	p.next++
	key := p.next
	p.sessions[key] = s
	p.mu.Unlock()
	s.h.arm(p.waker, key)
	return key
}

func (p *poller) forget(key uint64) {
	p.mu.Lock()
	delete(p.sessions, key)
	p.mu.Unlock()
}

func (p *poller) run() {
	keys := make([]C.uint64_t, 256)
	for {
		n := C.dcl_waker_wait(p.waker, 1000, &keys[0], C.size_t(len(keys)))
		for i := 0; i < int(n); i++ {
			key := uint64(keys[i])
			p.mu.Lock()
			s := p.sessions[key]
			p.mu.Unlock()
			if s != nil {
				s.wake(func() { s.h.arm(p.waker, key) })
			}
		}
	}
}

// request sends a control request and waits for dcl's answer (blocking this goroutine's
// thread in libdcl; control calls are rare).
func (h *handle) request(requestJSON string, timeoutMs int64) (string, error) {
	var out string
	err := h.use(func(s *C.DclSession) error {
		req, free := cstr(requestJSON)
		defer free()
		var cout, cerr *C.char
		if C.dcl_request(s, req, C.int64_t(timeoutMs), &cout, &cerr) != C.DCL_OK {
			return takeError(cerr)
		}
		out = takeString(cout)
		return nil
	})
	return out, err
}

func (h *handle) initializeRequest(specJSON string) (string, error) {
	var out string
	err := h.use(func(s *C.DclSession) error {
		spec, free := cstr(specJSON)
		defer free()
		var cerr *C.char
		p := C.dcl_initialize_request(s, spec, &cerr)
		if p == nil {
			return takeError(cerr)
		}
		out = takeString(p)
		return nil
	})
	return out, err
}
