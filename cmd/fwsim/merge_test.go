package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Flags after the files are flags, as decode takes them around its file:
// --json was read as a file. After "--" every argument is a file.
func TestMergeTakesFlagsAfterTheFiles(t *testing.T) {
	files := writeShards(t, t.TempDir(), []string{"analyze", "--gen", "pair", "--runs", "20"}, "1/2", "2/2")
	code, want, stderr := runCLI(t, "merge", "--json", files[0], files[1])
	require.Equal(t, exitOK, code, stderr)
	code, got, stderr := runCLI(t, "merge", files[0], files[1], "--json")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, want, got)
	code, got, stderr = runCLI(t, "merge", files[0], "--json", files[1])
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, want, got)

	code, _, stderr = runCLI(t, "merge", files[0], files[1], "--jsn")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim merge: flag provided but not defined: --jsn (see 'fwsim help merge')\n", stderr)
	code, _, stderr = runCLI(t, "merge", "--", files[0], "--json")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim merge: --json: no such file or directory\n", stderr)
}

// Shards of an analysis with --setup-seed merge: their headers were
// compared as structs, whose setup_seed pointers are never equal, and
// refused as "from another analysis ...: they are equal".
func TestMergeTakesShardsWithASetupSeed(t *testing.T) {
	args := []string{"analyze", "--gen", "pair", "--runs", "20", "--setup-seed", "5"}
	_, want, _ := runCLI(t, append(args, "--json")...)
	files := writeShards(t, t.TempDir(), args, "1/2", "2/2")
	code, got, stderr := runCLI(t, "merge", "--json", files[0], files[1])
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, want, got)
}
