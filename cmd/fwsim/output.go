package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// outputs are the files one command writes. A regular file is written to a
// temporary file beside it and renamed into place by commit, once every
// output is complete: a command that fails or is interrupted leaves each
// existing file as it was, never a partial or empty one, and a report never
// links a file that is not there. A symbolic link keeps pointing where it
// did: the file it names is replaced. Special files (a terminal, a pipe,
// /dev/null, /dev/full) are written in place and never removed, and "-" is
// standard output where the command allows it.
type outputs struct {
	files []*outputFile
	// stdout is where "-" writes; nil when standard output carries the
	// command's own report, so "-" is refused.
	stdout io.Writer
}

// outputFile is one output: an io.Writer that commit puts in place.
type outputFile struct {
	flag, path string    // the flag and the path the user gave, for messages
	w          io.Writer // where writes go
	file       *os.File  // nil for "-"
	temp       string    // the temporary file renamed onto target; "" when written in place
	target     string    // the regular file temp replaces
	mode       fs.FileMode
}

// Write writes to the output; an error is a *writeError naming it.
func (f *outputFile) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		err = &writeError{fmt.Errorf("--%s %s: %w", f.flag, f.path, err)}
	}
	return n, err
}

// writeError is a failure to write an output, as opposed to bad input: the
// command exits with exitOutput.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// create opens the output the flag names at path. The path is checked now,
// before any long run, so that a typo fails at once.
func (o *outputs) create(flag, path string) (*outputFile, error) {
	for _, f := range o.files {
		if f.path != "-" && filepath.Clean(f.path) == filepath.Clean(path) {
			return nil, fmt.Errorf("--%s and --%s both name %s", f.flag, flag, path)
		}
	}
	out, err := o.open(flag, path)
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	o.files = append(o.files, out)
	return out, nil
}

func (o *outputs) open(flag, path string) (*outputFile, error) {
	out := &outputFile{flag: flag, path: path, mode: 0o644}
	if path == "-" {
		if o.stdout == nil {
			return nil, errors.New(`standard output carries the command's report, so "-" cannot name this file as well: name a file`)
		}
		out.w = o.stdout
		return out, nil
	}
	info, err := os.Stat(path) // through symbolic links
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(path); lerr == nil {
			return nil, errors.New("a symbolic link to a file that does not exist: name the file itself")
		}
		out.target = path
	case err != nil:
		return nil, err
	case info.IsDir():
		return nil, errors.New("is a directory: name a file")
	case !info.Mode().IsRegular():
		// A device or a pipe cannot be replaced, and must not be removed.
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		out.file, out.w = f, f
		return out, nil
	default:
		if out.target, err = filepath.EvalSymlinks(path); err != nil {
			return nil, err
		}
		out.mode = info.Mode().Perm()
	}
	dir := filepath.Dir(out.target)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("the directory %s does not exist", dir)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(out.target)+".*.tmp")
	if err != nil {
		return nil, err
	}
	out.file, out.w, out.temp = f, f, f.Name()
	return out, nil
}

// commit closes every output and renames each temporary file into place.
// It stops at the first error, removing the temporary files left.
func (o *outputs) commit() error {
	for i, f := range o.files {
		if err := f.finish(); err != nil {
			o.files = o.files[i+1:]
			o.abort()
			return &writeError{fmt.Errorf("--%s %s: %w", f.flag, f.path, err)}
		}
	}
	o.files = nil
	return nil
}

// finish closes f and puts it in place.
func (f *outputFile) finish() error {
	if f.file == nil {
		return nil
	}
	err := f.file.Close()
	if f.temp == "" {
		return err
	}
	if err == nil {
		err = os.Chmod(f.temp, f.mode)
	}
	if err == nil {
		err = os.Rename(f.temp, f.target)
	}
	if err != nil {
		os.Remove(f.temp)
	}
	return err
}

// abort closes every output without putting any in place: existing files
// keep their contents. It is safe to call after commit, and more than once.
func (o *outputs) abort() {
	for _, f := range o.files {
		if f.file != nil {
			f.file.Close()
		}
		if f.temp != "" {
			os.Remove(f.temp)
		}
	}
	o.files = nil
}
