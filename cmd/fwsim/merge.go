package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/fwsim/fwsim/analysis"
)

const mergeIntro = `Usage: fwsim merge [--json] FILE...

Combines the JSON outputs of fwsim analyze --shard K/N, every shard of one
analysis exactly once in any order, and reports the result the unsharded
analysis gives: the same text, or with --json the same bytes. Shards of
different analyses (seed, topology, options, deadlines) are refused, and so
is a file no analysis could have written (a count beyond its runs, a
statistic its histogram does not give): the error names the file and the
field. A shard of another schema_version (docs/schema), or of none (an
older fwsim), is refused too; shards of another fwsim release with the same
schema_version merge. Flags may follow the files; after -- every argument
is a file. A file over 64 MiB, or with a field given twice, is refused.
docs/timing.md shows how to run the shards as a Slurm job array or a
Kubernetes indexed Job.

Exit status: 0 every run ended ok and met every deadline; 1 some run failed or
missed a deadline; 2 usage or input error (a bad file, a missing shard).`

func runMerge(ctx context.Context, e *env, args []string) int {
	fs := newFlags("merge", mergeIntro,
		"fwsim merge shard-*.json",
		"fwsim merge --json shard-1.json shard-2.json > analysis.json",
	)
	var jsonOutput bool
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text report, e.g. --json | jq .deadlines")
	files, code, done := fs.parseFiles(e, args)
	if done {
		return code
	}
	parts := make([]*analysis.Summary, len(files))
	for i, name := range files {
		s, err := readSummaryFile(ctx, name)
		if err != nil {
			return fs.inputError(e, err)
		}
		parts[i] = s
	}
	sum, err := analysis.Merge(parts, files...)
	if err != nil {
		return fs.inputError(e, err)
	}
	// A shard's strings (its topology's name, its nodes') reach the
	// terminal escaped, as messages do; JSON escapes them itself.
	if err := writeSummary(&messageWriter{w: e.stdout}, sum, jsonOutput); err != nil {
		return fs.inputError(e, err)
	}
	return verdict(e, fs, sum)
}

// parseFiles parses the flags, before or after the files as decode takes
// them around its file, and returns the file names. Every flag of merge is
// boolean, so each argument that starts with '-' is a flag, up to "--":
// the arguments after it are files whatever their names. done is as for
// parse, and also when no file is given.
func (fs *flags) parseFiles(e *env, args []string) (files []string, code int, done bool) {
	var flagArgs []string
	for i, arg := range args {
		if arg == "--" {
			files = append(files, args[i+1:]...)
			break
		}
		if strings.HasPrefix(arg, "-") && arg != "-" {
			flagArgs = append(flagArgs, arg)
		} else {
			files = append(files, arg)
		}
	}
	if code, done := fs.parse(e, flagArgs); done {
		return nil, code, true
	}
	if len(files) == 0 {
		return nil, fs.usageError(e, "no files to merge"), true
	}
	return files, exitOK, false
}

func readSummaryFile(ctx context.Context, name string) (*analysis.Summary, error) {
	f, err := openInput(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, withoutPath(err))
	}
	defer f.Close()
	s, err := analysis.ReadSummary(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}
