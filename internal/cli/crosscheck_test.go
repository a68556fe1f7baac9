package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCrosscheckGolden(t *testing.T) {
	for _, tc := range []struct {
		file string
		code int
	}{
		{"ohci-two-resets.log", exitOK},
		{"raw-port-absent.txt", exitFailure}, // a hub port the emulator cannot leave absent
		{"raw-linux-checks.txt", exitFailure},
	} {
		for _, format := range []string{"txt", "json"} {
			t.Run(tc.file+"."+format, func(t *testing.T) {
				args := []string{"crosscheck", "--capture", captures + tc.file}
				if format == "json" {
					args = append(args, "--json")
				}
				code, stdout, stderr := runCLI(t, args...)
				require.Equal(t, tc.code, code, stderr)
				if tc.code == exitOK {
					assert.Empty(t, stderr)
				} else {
					assert.Contains(t, stderr, "do not match the emulation")
				}
				golden(t, "crosscheck/"+strings.Split(tc.file, ".")[0]+"."+format, stdout)
				_, again, _ := runCLI(t, args...)
				assert.Equal(t, stdout, again, "the same seed gives the same bytes")
			})
		}
	}
}

func TestCrosscheckUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"crosscheck"}, "give exactly one of --capture FILE and --probe"},
		{[]string{"crosscheck", "--capture", "x", "--probe"}, "give exactly one of --capture FILE and --probe"},
		{[]string{"crosscheck", "--capture", "x", "--force-root", "pc"}, "--force-root and --initiator need --topology: without it they come from the capture"},
		{[]string{"crosscheck", "--capture", "x", "--device", "/dev/fw0"}, "--device needs --probe"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		assert.Equal(t, exitUsage, code, tc.args)
		assert.Empty(t, stdout)
		assert.Equal(t, "fwsim crosscheck: "+tc.want+" (see 'fwsim help crosscheck')\n", stderr)
	}
	code, _, stderr := runCLI(t, "crosscheck", "--capture", captures+"raw-two-resets.txt",
		"--topology", "../../examples/default.yaml", "--force-root", "nobody")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown node "nobody"`)
}
