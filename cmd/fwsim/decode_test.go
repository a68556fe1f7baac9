package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
)

const captures = "../../hwtest/testdata/"

// runCLIInput is runCLI with stdin.
func runCLIInput(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = Run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestDecodeGolden(t *testing.T) {
	testGoldenCases(t, []goldenCase{
		{name: "ohci-two-resets", args: []string{"decode", captures + "ohci-two-resets.log"}, code: exitOK},
		{name: "raw-linux-checks", args: []string{"decode", captures + "raw-linux-checks.txt"}, code: exitFailure,
			stderr: "fwsim decode: 6 of 7 generations show an inconsistent bus\n"},
		{name: "topology-map", args: []string{"decode", captures + "topology-map.txt"}, code: exitFailure,
			stderr: "fwsim decode: 1 of 2 generations show an inconsistent bus\n"},
		{name: "raw-inverses", args: []string{"decode", captures + "raw-inverses.txt"}, code: exitFailure,
			stderr: "fwsim decode: 1 of 1 generations show an inconsistent bus\n"},
		// A FireBug 2.3 export, saved twice: two replays of the last
		// bus reset, which are no bus resets of their own.
		{name: "firebug-2.3-saved-twice", args: []string{"decode", captures + "firebug-2.3-saved-twice.txt"}, code: exitOK},
		// fwcontrol -t loses an extended packet's ports: the bus cannot be
		// called consistent.
		{name: "fwcontrol", args: []string{"decode", captures + "fwcontrol.txt"}, code: exitFailure,
			stderr: "fwsim decode: 2 of 2 generations show an inconsistent bus\n"},
	}, func(name, format string) string { return "decode/" + name + "." + format })
}

// The JSON names the fields the documentation promises.
func TestDecodeJSONFields(t *testing.T) {
	code, stdout, stderr := runCLI(t, "decode", "--json", captures+"raw-two-resets.txt")
	require.Equal(t, exitOK, code, stderr)
	var out struct {
		Root   *int             `json:"root"`
		Hops   *int             `json:"hops"`
		IRM    *int             `json:"irm"`
		Errors []map[string]any `json:"errors"`
		Nodes  []map[string]any `json:"nodes"`
		Gens   []map[string]any `json:"generations"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.NotNil(t, out.Root)
	assert.Equal(t, 5, *out.Root)
	assert.Equal(t, 4, *out.Hops)
	assert.Equal(t, 5, *out.IRM)
	assert.Empty(t, out.Errors)
	assert.Len(t, out.Gens, 2)
	require.Len(t, out.Nodes, 6)
	for _, key := range []string{"phy_id", "link_active", "gap_count", "speed", "contender", "power_class", "initiated_reset", "ports"} {
		assert.Contains(t, out.Nodes[5], key)
	}
	assert.Equal(t, []any{"child", "child", "ncon"}, out.Nodes[5]["ports"])
	assert.Equal(t, "S100", out.Nodes[0]["speed"], "the camera")
}

func TestDecodeStdin(t *testing.T) {
	data, err := os.ReadFile(captures + "trace-bus-reset-handle.txt")
	require.NoError(t, err)
	_, fromFile, _ := runCLI(t, "decode", captures+"trace-bus-reset-handle.txt")
	for _, args := range [][]string{{"decode"}, {"decode", "-"}, {"decode", "--format", "tracepoint", "-"}, {"decode", "-", "--format=tracepoint"}} {
		code, stdout, stderr := runCLIInput(t, string(data), args...)
		require.Equal(t, exitOK, code, "%v: %s", args, stderr)
		assert.Equal(t, strings.Replace(fromFile, captures+"trace-bus-reset-handle.txt", "stdin", 1), stdout, args)
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"unreadable", "807f0080 xyz\n", []string{"decode", "--format", "raw"},
			`fwsim decode: stdin: raw line 1: quadlet: "xyz" is not a hex quadlet (want 1 to 8 hex digits, 0x optional)`},
		{"not a capture", "hello\n", []string{"decode"},
			`fwsim decode: stdin: format: no self-IDs in this input: no line of a capture format fwsim reads (firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw) and no hex quadlets`},
		{"empty", "", []string{"decode"}, `fwsim decode: stdin: format: no self-IDs in this input`},
		{"only comments", "# a capture to come\n\n", []string{"decode"}, `fwsim decode: stdin: format: no self-IDs in this input`},
		{"a log without self-IDs, format given", "[    1.1] firewire_ohci 0000:05:00.0: added OHCI v1.10 device as card 0\n",
			[]string{"decode", "--format", "firewire-ohci"}, `fwsim decode: stdin: firewire-ohci: input: no self-IDs in this input`},
		{"text, then quadlets", "hello\n807f0080\n", []string{"decode"},
			`fwsim decode: stdin: format: not a capture fwsim can read (formats: firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw); raw line 1: quadlet: "hello" is not a hex quadlet (want 1 to 8 hex digits, 0x optional)`},
		{"bad format flag", "", []string{"decode", "--format", "pcap"},
			`fwsim decode: invalid value "pcap" for flag --format: (want firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw) (see 'fwsim help decode')`},
		{"two files", "", []string{"decode", "a.txt", "b.txt"},
			`fwsim decode: unexpected argument "b.txt" (decode takes flags and one FILE, here "a.txt") (see 'fwsim help decode')`},
		{"directory", "", []string{"decode", "testdata"},
			"fwsim decode: capture testdata: is a directory"},
		{"empty emit-topology", "", []string{"decode", "--emit-topology", ""},
			`fwsim decode: invalid value "" for flag --emit-topology: want a non-empty value (see 'fwsim help decode')`},
		{"missing file", "", []string{"decode", "testdata/no-such-capture.txt"},
			"fwsim decode: capture testdata/no-such-capture.txt: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCLIInput(t, tc.stdin, tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Equal(t, tc.want+"\n", stderr)
		})
	}
}

// decode --emit-topology writes a file that run and crosscheck accept, and
// the bus it describes emulates to the captured self-IDs with nothing more
// than the capture: the initiators come from the capture, and no root is
// forced unless --force-observed-root asks for it.
func TestDecodeEmitTopology(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lab.yaml")
	code, _, stderr := runCLI(t, "decode", captures+"ohci-two-resets.log", "--emit-topology", path)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "fwsim decode: wrote "+path+": the bus of generation 2 (6 nodes); run it with fwsim run --topology "+path+" --initiator node-f\n", stderr)
	topo, err := bus.LoadTopology(path)
	require.NoError(t, err)
	assert.Len(t, topo.Nodes, 6)
	assert.Len(t, topo.Cables, 5)
	for _, n := range topo.Nodes {
		assert.False(t, n.ForceRoot, n.ID)
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), `# The bus of generation 2 of a capture, as fwsim decode read it.
# Node node-a has phy_ID 0 in the capture, node-b phy_ID 1, and so on;
# cable lengths are unknown (4.5 m assumed).
# The observed root is node-f. No node has force_root: the emulation elects
# a root as the real bus did (fwsim crosscheck gives the odds of node-f).
# To make node-f root for sure, as a PHY configuration packet would, add
# "force_root: true" to it, or emit with --force-observed-root.
# No self-ID shows its PHY's generation (docs/hardware.md): 1394-1995 assumed.
# The reset's initiators (i set), which a topology file cannot hold: node-f.
profile: 1394-1995
`), "%s", data)
	code, stdout, stderr := runCLI(t, "crosscheck", "--capture", captures+"ohci-two-resets.log",
		"--topology", path, "--max-states", "0", "--json")
	assert.Equal(t, exitFailure, code, stderr)
	var out hwtest.CrosscheckJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	require.Len(t, out.Generations, 2)
	g := out.Generations[1]
	assert.True(t, g.Match, "the file is the bus of the last generation")
	assert.Equal(t, []string{"node-f"}, g.Initiators)
	require.NotNil(t, g.Likelihood, "the file names the captured nodes")
	assert.Equal(t, "node-f", g.Likelihood.Root)
	assert.Equal(t, *g.Likelihood.PRoot.Count > 0, g.Root == nil || !g.Root.Forced, "an elected root is possible")
	diffs := out.Generations[0].Diffs
	require.Len(t, diffs, 6, "generation 1 differs in the gap count of every node, and only there")
	for i, d := range diffs {
		assert.Equal(t, hwtest.DiffJSON{Node: new(i), NodeID: hwtest.NodeName(i), Field: "gap_count", Real: "63", Emulated: "10", Index: d.Index, Quadlet: d.Quadlet}, d)
	}

	// With --force-observed-root the file forces node-f: the emulation
	// makes it root, and the odds are still those of an election.
	forced := filepath.Join(t.TempDir(), "forced.yaml")
	code, _, stderr = runCLI(t, "decode", captures+"ohci-two-resets.log", "--emit-topology", forced, "--force-observed-root")
	require.Equal(t, exitOK, code, stderr)
	data, err = os.ReadFile(forced)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# The observed root, node-f, has force_root (--force-observed-root): the\n# emulation makes it root, as a PHY configuration packet would.\n")
	topo, err = bus.LoadTopology(forced)
	require.NoError(t, err)
	for _, n := range topo.Nodes {
		assert.Equal(t, n.ID == "node-f", n.ForceRoot, n.ID)
	}
	code, stdout, stderr = runCLI(t, "crosscheck", "--capture", captures+"ohci-two-resets.log",
		"--topology", forced, "--max-states", "0", "--json")
	assert.Equal(t, exitFailure, code, stderr)
	out = hwtest.CrosscheckJSON{}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out))
	g = out.Generations[1]
	assert.True(t, g.Match)
	assert.Equal(t, new("node-f"), g.ForceRoot)
	assert.Nil(t, g.Root, "the forced root is the captured one")
	assert.Less(t, g.Likelihood.PRoot.P, 1.0, "an election's odds, not the forced emulation's")

	code, _, stderr = runCLI(t, "decode", captures+"ohci-two-resets.log", "--force-observed-root")
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim decode: --force-observed-root needs --emit-topology (see 'fwsim help decode')\n", stderr)

	jsonPath := filepath.Join(t.TempDir(), "lab.json")
	code, _, stderr = runCLI(t, "decode", captures+"ohci-two-resets.log", "--emit-topology", jsonPath)
	require.Equal(t, exitOK, code, stderr)
	data, err = os.ReadFile(jsonPath)
	require.NoError(t, err)
	assert.True(t, json.Valid(data))
	assert.Contains(t, string(data), `"gap_count": 10`)

	// No generation forms a tree: nothing to write.
	code, _, stderr = runCLIInput(t, "80000080 81000080 82000070\n", "decode", "--emit-topology", filepath.Join(t.TempDir(), "x.yaml"))
	assert.Equal(t, exitUsage, code)
	assert.Equal(t, "fwsim decode: --emit-topology: the self-IDs do not form a tree (see the problems decode reports)\n", stderr)
}

// The emitted file says which PHY generations the self-IDs show, and on
// what: the profile is the most common one, and the nodes of another carry
// theirs.
func TestDecodeEmitTopologyPHYs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mixed.yaml")
	code, _, stderr := runCLI(t, "decode", captures+"raw-mixed-phys.txt", "--emit-topology", path)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `# PHY generations, from the self-IDs (docs/hardware.md):
#   node-a reports sp = 11 (S800, the 1394b beta code): 1394b-2002
#   node-b reports del = 1 (1394a and 1394b reserve it as 0): 1394-1995
#   the other nodes show none and are taken as 1394a-2000
# The reset's initiators (i set), which a topology file cannot hold: node-d.
profile: 1394a-2000
`)
	topo, err := bus.LoadTopology(path)
	require.NoError(t, err)
	var phys []string
	for _, n := range topo.Nodes {
		phys = append(phys, n.PHY)
	}
	assert.Equal(t, []string{"1394b-2002", "1394-1995", "", ""}, phys)
}

// A capture of more bus resets than the report can sensibly hold is refused
// with advice, not read into gigabytes.
func TestDecodeBoundsTheResets(t *testing.T) {
	oneNode := "0x807f8c56\n\n" // a one-node bus, then a blank line: the next reset
	code, stdout, stderr := runCLIInput(t, strings.Repeat(oneNode, hwtest.MaxCaptureResets+1), "decode")
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim decode: stdin: more than 10000 bus resets: the report keeps every one, so split the capture (e.g. with csplit at the resets)\n", stderr)
}

// A kernel log of a machine without FireWire holds no self-IDs, and decode
// says just that.
func TestDecodeKernelLogWithoutFireWire(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dmesg.txt")
	// Hex numbers, blank lines and PCI addresses, as in a real boot log.
	log := "[    0.000000] Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org) (gcc-12 (Debian 12.2.0-14) 12.2.0) #1 SMP PREEMPT_DYNAMIC\n" +
		"[    0.000000] Command line: BOOT_IMAGE=/boot/vmlinuz-6.1.0-18-amd64 root=UUID=3f1b2c4d-5e6f-7a8b-9c0d-1e2f3a4b5c6d ro quiet\n" +
		"[    0.000000] BIOS-e820: [mem 0x0000000000000000-0x000000000009fbff] usable\n" +
		"\n" +
		"[    0.004000] ACPI: RSDP 0x00000000000F0490 000024 (v02 BOCHS )\n" +
		"[    0.412345] pci 0000:00:1f.2: [8086:2922] type 00 class 0x010601\n" +
		"[    1.234567] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n" +
		"[    2.345678] e1000e 0000:00:19.0 eth0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx\n"
	require.NoError(t, os.WriteFile(path, []byte(log), 0o644))
	code, stdout, stderr := runCLI(t, "decode", path)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "fwsim decode: "+path+": format: no self-IDs in this input: no line of a capture format fwsim reads "+
		"(firewire-ohci, tracepoint, ieee1394, firebug, nosy-dump, fwcontrol, firespy, data-transit, topology-map, raw) and no hex quadlets\n", stderr)
}
