package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/fwsim/fwsim/bus"
	"github.com/fwsim/fwsim/hwtest"
	"github.com/fwsim/fwsim/internal/jsonout"
	"github.com/fwsim/fwsim/view"
)

const crosscheckIntro = `Usage: fwsim crosscheck (--capture FILE | --probe) [flags]

Compares a real bus with the emulator. For each bus reset of the capture (or
the bus the probe reads now), it turns the self-IDs into a topology (nodes
node-a, node-b ... for phy_IDs 0, 1 ..., with their self-ID fields, port
counts and PHY generations, one cable per parent-child link, no root
forced), emulates it with the observed reset initiators (the nodes with i
set), and compares the self-IDs quadlet by quadlet. Each difference is
printed as node, field, real value and emulated value. With --topology it
emulates that file instead: the bus you expect, to be compared with the one
you have. When that file names every captured node as decode
--emit-topology does, each captured node is compared with the topology node
of its name, whatever phy_ID the emulation gives it, and the initiators
default to the nodes with i set; otherwise nodes are compared by phy_ID and
one PHY drawn from the seed starts the reset, as on a real bus.

Which node wins tree identify or a root contention is chance, not a
prediction. For each generation crosscheck gives the probability that the
emulation elects the captured root and numbers the nodes in the captured
self-ID order (same topology, initiators and seed, no root forced), and the
likeliest root and order when they are likelier: exactly, by exploring
every coin and wait of the emulation (fwsim explore), when that takes at
most --max-states states, and otherwise from 1000 Monte Carlo runs with
their 95% Wilson intervals. Both are over the coins and waits of root
contention, with the PHYs' timer lengths and clock phases that --seed
draws (as explore --seed and analyze --setup-seed fix them): a bus without
a root contention elects its root with probability 0 or 1 for one seed.
When the emulation at --seed elects another root than the capture shows,
that is one finding, and the nodes are compared with the captured root
forced. It is a mismatch only when the emulation forced the other root
(--force-root, or force_root in the topology).

Exit status: 0 every generation matches; 1 one does not (or cannot be
emulated); 2 usage error or unreadable input.`

func runCrosscheck(ctx context.Context, e *env, args []string) int {
	fs := newFlags("crosscheck", crosscheckIntro,
		"fwsim crosscheck --capture hwtest/testdata/raw-two-resets.txt --max-states 0   # 0: no exact part",
		"fwsim crosscheck --capture hwtest/testdata/ohci-two-resets.log --json \\\n"+
			"      | jq '.generations[].diffs'   # needs jq",
		"fwsim crosscheck --probe --device /dev/fw1   # needs a FireWire bus",
		"fwsim crosscheck --capture trace.txt --topology lab.yaml --force-root pc   # needs your bus",
		"fwsim crosscheck --capture hwtest/testdata/raw-chain18.txt --max-states 0   # fast on large buses",
	)
	var (
		file, device, topology string
		format                 captureFormat
		useProbe, jsonOutput   bool
		initiators             list
		opts                   hwtest.CrossOptions
		maxStates              int
	)
	fs.StringVar(&file, "capture", "", "read the real bus from the capture `FILE` (- for stdin), e.g. --capture dmesg.log")
	fs.BoolVar(&useProbe, "probe", false, "read the real bus from the local node's /dev/fw* (Linux; see fwsim help probe),\ne.g. --probe --device /dev/fw1")
	fs.StringVar(&device, "device", "", "with --probe, use `PATH` instead of the first local node, e.g. --device /dev/fw1")
	fs.Var(&format, "format", "read the capture as `F` (see fwsim help decode; default: detected),\ne.g. --format firewire-ohci")
	fs.StringVar(&topology, "topology", "", "emulate the topology `FILE` instead of the one the capture shows,\ne.g. --topology lab.yaml")
	fs.StringVar(&opts.ForceRoot, "force-root", "", "with --topology, force `NODE` to be root (default: the node with\nforce_root in the topology, none otherwise), e.g. --force-root pc")
	fs.Var(&initiators, "initiator", "with --topology, `NODE` starts the reset; repeat for several\n(default: the nodes with i set when the topology names the captured nodes,\none PHY drawn from the seed otherwise), e.g. --initiator pc")
	fs.Var(newSeed(&opts.Seed), "seed", "seed the emulation with `N`, from 1, e.g. --seed 42")
	fs.IntVar(&maxStates, "max-states", hwtest.DefaultOddsStates,
		"compute the odds of the captured root and order exactly when the emulation\nexplores in at most `N` states, else by Monte Carlo (0: always Monte Carlo),\ne.g. --max-states 50000")
	fs.BoolVar(&jsonOutput, "json", false, "write one JSON object instead of the text report, e.g. --json | jq .generations")
	fs.order("capture", "probe", "device", "format", "topology", "force-root", "initiator", "seed", "max-states", "json")
	if code, done := fs.parse(e, args); done {
		return code
	}
	if maxStates < 0 {
		return fs.usageError(e, "--max-states %d: want 0 or more", maxStates)
	}
	if maxStates == 0 {
		maxStates = -1 // no exploration
	}
	opts.Odds = &hwtest.OddsOptions{MaxStates: maxStates, Cache: map[string]*hwtest.Odds{}}
	opts.Interrupt = ctx.Done()
	switch {
	case (file == "") == !useProbe:
		return fs.usageError(e, "give exactly one of --capture FILE and --probe")
	case topology == "" && (opts.ForceRoot != "" || len(initiators) > 0):
		return fs.usageError(e, "--force-root and --initiator need --topology: without it they come from the capture")
	case device != "" && !useProbe:
		return fs.usageError(e, "--device needs --probe")
	}
	if len(initiators) > 0 {
		opts.Initiators = initiators
	}
	if topology != "" {
		t, _, err := (&topologyFlags{file: topology}).load(ctx) // its errors name the file
		if err == nil {
			// A topology that cannot run is the user's input error, not a
			// mismatch of every generation. Out of spec is allowed: a real
			// bus may well be.
			err = t.Validate(bus.ResolveOptions{AllowOutOfSpec: true})
		}
		if err != nil {
			return fs.inputError(e, err)
		}
		opts.Topology = t
	}
	var c *hwtest.Capture
	var err error
	if useProbe {
		c, err = probeCapture(device)
	} else {
		c, err = loadCapture(e, file, hwtest.Format(format))
	}
	if err != nil {
		return fs.inputError(e, err)
	}
	results, err := hwtest.CrossAll(c.Buses, opts)
	switch {
	case errors.Is(err, bus.ErrInterrupted) || ctx.Err() != nil:
		return fs.interrupt(e)
	case err != nil:
		return fs.inputError(e, err) // a --force-root or --initiator the topology lacks
	}
	if jsonOutput {
		if err := jsonout.Write(e.stdout, hwtest.NewCrosscheckJSON(c, opts.Seed, results)); err != nil {
			return fs.inputError(e, err)
		}
	} else {
		view.WriteCrosscheckText(e.stdout, c, opts.Seed, results)
	}
	if bad := hwtest.Mismatches(results); bad > 0 {
		fmt.Fprintf(e.stderr, "fwsim crosscheck: %d of %d generations do not match the emulation\n", bad, len(results))
		return exitFailure
	}
	return exitOK
}
