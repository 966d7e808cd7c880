// Command bench measures the Go package in process against the dcl subprocess (the same
// package with Options.CLIPath): time to first message, per-turn overhead, and the memory of
// N open sessions (PSS of this process plus its dcl children), on the mock model.
//
//	CGO_LDFLAGS="-L$T/debug -Wl,-rpath,$T/debug" go run ./bench -cli $T/debug/dcl -sessions 1000 -cli-sessions 100
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	dcl "github.com/dcl-run/dcl/go"
)

func main() {
	cli := flag.String("cli", "", "the dcl executable for the subprocess transport")
	iterations := flag.Int("n", 20, "iterations of the timed steps")
	sessions := flag.Int("sessions", 1000, "open sessions in process")
	cliSessions := flag.Int("cli-sessions", 100, "open sessions as dcl children")
	flag.Parse()
	if *cli == "" {
		fmt.Fprintln(os.Stderr, "-cli is required")
		os.Exit(2)
	}
	root, err := os.MkdirTemp("", "dcl-go-bench")
	check(err)
	defer os.RemoveAll(root)
	for _, t := range []struct {
		name string
		path string
		n    int
	}{{"in-process", "", *sessions}, {"subprocess", *cli, *cliSessions}} {
		first, turns := timings(root, t.path, *iterations)
		mem := memory(root, t.path, t.n)
		fmt.Printf("go %-10s first message ms median %.2f p90 %.2f | turn ms median %.2f p90 %.2f | %d sessions: PSS +%.0f MiB (%.0f KiB each)\n",
			t.name, median(first), p90(first), median(turns), p90(turns), t.n, mem/1024, mem/float64(t.n))
	}
}

func options(root, cli string) dcl.Options {
	dir, err := os.MkdirTemp(root, "s")
	check(err)
	off := false
	return dcl.Options{Model: "mock-model", Cwd: dir, PersistSession: &off, CLIPath: cli,
		Env: map[string]string{"HOME": dir, "PATH": os.Getenv("PATH")}}
}

// timings: open + initialize + the first message of a one-shot query; then turns on one session.
func timings(root, cli string, n int) (first, turns []float64) {
	ctx := context.Background()
	for i := 0; i < n+2; i++ {
		t0 := time.Now()
		s, err := dcl.Open(ctx, options(root, cli))
		check(err)
		check(s.Query(ctx, "hi"))
		_, err = s.Receive(ctx)
		check(err)
		if i >= 2 { // two warm-ups
			first = append(first, ms(t0))
		}
		_, err = s.ReceiveResponse(ctx)
		check(err)
		s.Close()
	}
	s, err := dcl.Open(ctx, options(root, cli))
	check(err)
	defer s.Close()
	for i := 0; i < n*3+2; i++ {
		t0 := time.Now()
		check(s.Query(ctx, "hi"))
		_, err := s.ReceiveResponse(ctx)
		check(err)
		if i >= 2 {
			turns = append(turns, ms(t0))
		}
	}
	return first, turns
}

// memory: PSS growth (KiB) of this process and its children with n sessions open, each
// after one turn.
func memory(root, cli string, n int) float64 {
	ctx := context.Background()
	before := pss()
	open := make([]*dcl.Session, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range open {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			s, err := dcl.Open(ctx, options(root, cli))
			check(err)
			check(s.Query(ctx, "hi"))
			_, err = s.ReceiveResponse(ctx)
			check(err)
			open[i] = s
		}(i)
	}
	wg.Wait()
	grown := pss() - before
	for _, s := range open {
		s.Close()
	}
	return grown
}

// pss sums Pss (KiB) over this process and its direct children.
func pss() float64 {
	self := os.Getpid()
	total := pssOf(self)
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so split after its ')'.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		fields := strings.Fields(rest)
		if len(fields) > 1 && fields[1] == strconv.Itoa(self) {
			pid, _ := strconv.Atoi(strings.Fields(string(b))[0])
			total += pssOf(pid)
		}
	}
	return total
}

func pssOf(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "Pss:") {
			v, _ := strconv.ParseFloat(strings.Fields(line)[1], 64)
			return v
		}
	}
	return 0
}

func ms(t0 time.Time) float64 { return float64(time.Since(t0).Microseconds()) / 1000 }

func median(xs []float64) float64 { return quantile(xs, 0.5) }
func p90(xs []float64) float64    { return quantile(xs, 0.9) }

func quantile(xs []float64, q float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}
