package main

import (
	"context"
	"io"
)

// interruptible is a reader whose reads end as soon as ctx does, even one
// that waits for input which never comes (a terminal on stdin, a stalled
// pipe), so that Ctrl-C stops any command within moments, whatever it is
// reading. Each read runs in a goroutine, into a buffer of its own: a read
// abandoned on Ctrl-C never writes into the caller's.
type interruptible struct {
	ctx context.Context
	r   io.Reader
}

type readResult struct {
	n   int
	err error
}

func (in interruptible) Read(p []byte) (int, error) {
	if err := in.ctx.Err(); err != nil {
		return 0, err
	}
	buf := make([]byte, len(p))
	done := make(chan readResult, 1)
	go func() {
		n, err := in.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case <-in.ctx.Done():
		return 0, in.ctx.Err()
	case res := <-done:
		return copy(p, buf[:res.n]), res.err
	}
}
