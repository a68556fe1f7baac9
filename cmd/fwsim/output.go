package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// made is every temporary file and directory the process's commands have
// made and neither put in place nor removed yet: what abandonOutputs
// removes when a command does not stop of itself after a signal. Its lock
// is held while files are made, renamed into place or removed, so that an
// abandon sees all of a commit or none of it.
var made struct {
	sync.Mutex
	temps     map[string]bool
	dirs      map[string]bool
	committed bool // a commit has put files in place
}

// abandonOutputs removes every temporary file and directory made and not
// yet committed, and keeps any more from being made or committed: the
// process is about to exit without the command. It reports false, making
// nothing, when a command has already committed its outputs: that command
// has done its work and should be let finish.
func abandonOutputs() bool {
	made.Lock()
	if made.committed {
		made.Unlock()
		return false
	}
	for path := range made.temps {
		os.Remove(path)
	}
	dirs := slices.Collect(maps.Keys(made.dirs))
	slices.SortFunc(dirs, func(a, b string) int {
		return strings.Count(b, string(filepath.Separator)) - strings.Count(a, string(filepath.Separator))
	})
	for _, d := range dirs {
		os.Remove(d) // deepest first, and only an empty one
	}
	return true // and the lock stays held
}

// outputs are the files one command writes. A regular file is written to a
// temporary file beside it and renamed into place by commit, once every
// output is complete and standard output has been written: a command that
// fails or is interrupted, or whose report did not reach standard output,
// leaves each existing file as it was, never a partial or empty one, and a
// report never links a file that is not there. A symbolic link keeps
// pointing where it did: the file it names is replaced. Special files (a
// terminal, a pipe, /dev/null, /dev/full) are written in place and never
// removed, and "-" is standard output where the command allows it.
type outputs struct {
	// env holds the context that ends a wait to open a FIFO, and standard
	// output, whose errors commit checks.
	env *env
	// dash says whether "-" names standard output: not when standard
	// output carries the command's own report.
	dash  bool
	files []*outputFile
	// dirs are the directories mkdirAll made, parents first: abort
	// removes them.
	dirs []string
}

// outputFile is one output: an io.Writer that commit puts in place.
type outputFile struct {
	flag, path string    // the flag and the path the user gave, for messages
	w          io.Writer // where writes go
	file       *os.File  // nil for "-"
	temp       string    // the temporary file renamed onto target; "" when written in place
	target     string    // the regular file temp replaces; "" for a special file
	id         fileID
}

// fileID says which file an output is, however its path is spelled: two
// outputs that are one file would lose one of them.
type fileID struct {
	info fs.FileInfo // the file as it exists; nil for a new one
	path string      // a new file: its directory's absolute path, symbolic links resolved, and its name
}

func (a fileID) same(b fileID) bool {
	if a.info != nil && b.info != nil {
		return os.SameFile(a.info, b.info)
	}
	return a.path != "" && a.path == b.path
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
	if strings.HasPrefix(path, "-") && path != "-" {
		// The flag package takes the next word as the file, even a flag:
		// --trace --json would write a file named --json.
		return nil, fmt.Errorf("--%s %s: that is a flag, not a file name: give --%s its FILE (./%s for a file whose name starts with -)", flag, path, flag, path)
	}
	out := &outputFile{flag: flag, path: path}
	err := o.locate(out)
	if err == nil {
		for _, f := range o.files {
			if f.id.same(out.id) {
				return nil, fmt.Errorf("--%s %s and --%s %s name the same file", f.flag, f.path, flag, path)
			}
		}
		err = o.open(out)
	}
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, path, err)
	}
	o.files = append(o.files, out)
	return out, nil
}

// locate finds the file out.path names and how to write it; "-" is
// standard output, at once.
func (o *outputs) locate(out *outputFile) error {
	if out.path == "-" {
		if !o.dash {
			return errors.New(`standard output carries the command's report, so "-" cannot name this file as well: name a file`)
		}
		out.w = o.env.stdout
		return nil
	}
	info, err := os.Stat(out.path) // through symbolic links
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if _, lerr := os.Lstat(out.path); lerr == nil {
			return errors.New("a symbolic link to a file that does not exist: name the file itself")
		}
		out.target = out.path
	case err != nil:
		return err
	case info.IsDir():
		return errors.New("is a directory: name a file")
	case !info.Mode().IsRegular():
		out.id.info = info // a device or a pipe, written in place
		return nil
	default:
		if out.target, err = filepath.EvalSymlinks(out.path); err != nil {
			return err
		}
		out.id.info = info
	}
	dir := filepath.Dir(out.target)
	if info, err := os.Stat(dir); err != nil || !info.IsDir() {
		return fmt.Errorf("the directory %s does not exist", dir)
	}
	if out.id.info == nil {
		abs, err := filepath.Abs(dir)
		if err == nil {
			abs, err = filepath.EvalSymlinks(abs)
		}
		if err != nil {
			return err
		}
		out.id.path = filepath.Join(abs, filepath.Base(out.target))
	}
	return nil
}

// open opens out, located, for writing: a special file in place, waiting
// for a FIFO's reader until the command's context ends; a regular file as
// a temporary file beside it, private while it replaces an existing file
// (commit gives it that file's permissions), and with the umask's
// permissions, as any new file, when it is new.
func (o *outputs) open(out *outputFile) error {
	var err error
	switch {
	case out.w != nil: // standard output
	case out.target == "":
		// A device or a pipe cannot be replaced, and must not be removed.
		out.file, err = openFile(o.env.ctx, out.path, os.O_WRONLY)
		out.w = out.file
	default:
		perm := fs.FileMode(0o666)
		if out.id.info != nil {
			perm = 0o600
		}
		made.Lock()
		out.file, err = createTemp(out.target, perm)
		if err == nil {
			out.w, out.temp = out.file, out.file.Name()
			if made.temps == nil {
				made.temps = map[string]bool{}
			}
			made.temps[out.temp] = true
		}
		made.Unlock()
	}
	return err
}

// createTemp creates a new file beside target to replace it, as
// os.CreateTemp does with the pattern ".NAME.*.tmp", but with perm less the
// umask where os.CreateTemp gives 0600 whatever the umask.
func createTemp(target string, perm fs.FileMode) (*os.File, error) {
	dir, name := filepath.Split(target)
	for range 10000 {
		path := filepath.Join(dir, "."+name+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+".tmp")
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, &fs.PathError{Op: "createtemp", Path: filepath.Join(dir, "."+name+".*.tmp"), Err: fs.ErrExist}
}

// mkdirAll makes the directory dir and its missing parents for the
// outputs, as os.MkdirAll does, with 0777 less the umask as any new
// directory. abort removes them again, so that a command that fails or is
// interrupted leaves no directory either.
func (o *outputs) mkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) || filepath.Dir(d) == d {
			break
		}
		missing = append(missing, d)
	}
	slices.Reverse(missing)
	o.dirs = append(o.dirs, missing...)
	made.Lock()
	defer made.Unlock()
	if made.dirs == nil {
		made.dirs = map[string]bool{}
	}
	for _, d := range missing {
		made.dirs[d] = true
	}
	return os.MkdirAll(dir, 0o777)
}

// commit closes every output and renames each temporary file into place,
// once standard output has been written whole: the command's report is
// the last thing it writes. It stops at the first error, removing the
// temporary files left.
func (o *outputs) commit() error {
	made.Lock()
	defer made.Unlock()
	if err := o.env.stdout.err; err != nil {
		o.abortMade()
		return err
	}
	// Every file is closed before any is renamed: a file that fails to
	// close leaves the others as they were too.
	for _, f := range o.files {
		if err := f.close(); err != nil {
			o.abortMade()
			return &writeError{fmt.Errorf("--%s %s: %w", f.flag, f.path, err)}
		}
	}
	for i, f := range o.files {
		if f.temp == "" {
			continue
		}
		if err := os.Rename(f.temp, f.target); err != nil {
			o.files = o.files[i:]
			o.abortMade()
			return &writeError{fmt.Errorf("--%s %s: %w", f.flag, f.path, err)}
		}
		delete(made.temps, f.temp)
		made.committed = true
	}
	for _, d := range o.dirs {
		delete(made.dirs, d)
	}
	o.files, o.dirs = nil, nil
	return nil
}

// close closes f, giving a temporary file that replaces an existing one
// that file's permissions.
func (f *outputFile) close() error {
	if f.file == nil {
		return nil
	}
	err := f.file.Close()
	if err == nil && f.temp != "" && f.id.info != nil {
		err = os.Chmod(f.temp, f.id.info.Mode().Perm())
	}
	return err
}

// abort closes every output without putting any in place, and removes the
// directories mkdirAll made: existing files keep their contents. It is
// safe to call after commit, and more than once.
func (o *outputs) abort() {
	made.Lock()
	defer made.Unlock()
	o.abortMade()
}

// abortMade is abort with made locked.
func (o *outputs) abortMade() {
	for _, f := range o.files {
		if f.file != nil {
			f.file.Close()
		}
		if f.temp != "" {
			os.Remove(f.temp)
			delete(made.temps, f.temp)
		}
	}
	for _, d := range slices.Backward(o.dirs) {
		os.Remove(d) // only an empty directory: never what another put there
		delete(made.dirs, d)
	}
	o.files, o.dirs = nil, nil
}
