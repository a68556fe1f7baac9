package main

import (
	"context"
	"io"
	"os"
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

// openFile opens name as os.OpenFile does, but returns ctx's error as soon
// as ctx ends: opening a FIFO waits in open(2) until something opens its
// other end, and nothing can cut that wait short. The abandoned open is
// left to finish in the background, and the file it may yet open is closed.
func openFile(ctx context.Context, name string, flag int) (*os.File, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type result struct {
		f   *os.File
		err error
	}
	done := make(chan result, 1)
	go func() {
		f, err := os.OpenFile(name, flag, 0)
		done <- result{f, err}
	}()
	select {
	case r := <-done:
		return r.f, r.err
	case <-ctx.Done():
		go func() {
			if r := <-done; r.f != nil {
				r.f.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// inputFile is a file a command reads: opening it and reading it both end
// when the command's context does.
type inputFile struct {
	interruptible
	file *os.File
}

// openInput opens the file name to read, as os.Open does.
func openInput(ctx context.Context, name string) (*inputFile, error) {
	f, err := openFile(ctx, name, os.O_RDONLY)
	if err != nil {
		return nil, err
	}
	return &inputFile{interruptible{ctx, f}, f}, nil
}

func (f *inputFile) Close() error { return f.file.Close() }

// readInput reads the file name, as os.ReadFile does, up to one byte past
// limit: the caller refuses a file that long.
func readInput(ctx context.Context, name string, limit int64) ([]byte, error) {
	f, err := openInput(ctx, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One byte more than the limit, so that a file past it can be told
	// from one that fills it.
	return io.ReadAll(io.LimitReader(f, limit+1))
}
