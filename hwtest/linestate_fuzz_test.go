package hwtest

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadLines: no input makes the line-state readers panic or fail with
// anything but a short one-line ParseError naming a line the input has,
// with the lab's channel map or with fwsim's channel names, with a sample
// rate given or without; what they read
// is a timeline: times increasing, each change a change, within the
// capture.
func FuzzReadLines(f *testing.F) {
	f.Add([]byte(sigrokHeader + "#0 0! 0\" 0# 0$\n#1250 1$\n#2500\n"))
	f.Add([]byte(csvHeader + "41,0,0,0,0\n82,0,0,0,1\n"))
	f.Add([]byte("META samplerate: 24000000\n; Channels (4/4): D0, D1, D2, D3\nlogic,logic,logic,logic\n0,0,0,0\n0,1,0,0\n"))
	f.Add([]byte("$timescale 1ns $end\n$scope module fwsim $end\n$var wire 1 ! a.p0.tpa.hi $end\n$var wire 1 \" a.p0.tpa.lo $end\n" +
		"$var wire 1 # a.p0.tpb.hi $end\n$var wire 1 $ a.p0.tpb.lo $end\n$upscope $end\n$enddefinitions $end\n#0\n$dumpvars\n0!\n0\"\n0#\n0$\n$end\n#4\n1!\n1#\n#9\n"))
	for _, r := range lineRuns[:1] {
		res, trace := emulate(f, r.topo(f), r.opts)
		f.Add(sigrokVCD(f, res, trace))
		csv, _ := sigrokCSV(EmulatedLines(res, trace), 24e6, csvStyle{label: "channel", dedup: true})
		f.Add(csv)
	}
	lab, err := ParseChannelMap(labMap)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, opts := range []LineOptions{{Channels: lab}, {}, {Channels: lab, SampleRateHz: 24_000_000}} {
			lc, err := ReadLines(bytes.NewReader(data), "", opts)
			if err != nil {
				checkReadError(t, data, err)
				continue
			}
			if !(lc.SamplePeriodNs > 0) {
				t.Fatalf("sample period %v", lc.SamplePeriodNs)
			}
			for _, pl := range lc.Ports {
				if len(pl.Changes) == 0 {
					t.Fatalf("%s has no line state", pl.Port)
				}
				for i, c := range pl.Changes {
					if c.State > 8 || c.AtNs < 0 || c.AtNs > lc.EndNs {
						t.Fatalf("%s change %d: %+v, capture ends at %d", pl.Port, i, c, lc.EndNs)
					}
					if i > 0 && (c.AtNs <= pl.Changes[i-1].AtNs || c.State == pl.Changes[i-1].State) {
						t.Fatalf("%s change %d: %+v after %+v", pl.Port, i, c, pl.Changes[i-1])
					}
				}
				for _, e := range Episodes(pl, lc.EndNs) {
					if e.EndNs < e.StartNs || e.HighNs >= 0 && (e.HighNs < e.StartNs || e.HighNs > e.EndNs) {
						t.Fatalf("%s: episode %+v", pl.Port, e)
					}
				}
			}
		}
	})
}

// FuzzChannelMap: a channel map reads, or fails with a ParseError; one that
// reads writes back (Signal=Channel, joined by commas) to itself.
func FuzzChannelMap(f *testing.F) {
	f.Add(labMap)
	f.Add("my.node.p3.tpa.hi = D0 , my.node.p3.tpa.lo=D1,my.node.p3.tpb.hi=D2,my.node.p3.tpb.lo=D3")
	f.Add("a.p0.tpa.hi=D0,a.p0.tpa.hi=D1")
	f.Add("a.p26.tpb.lo=D0")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseChannelMap(s)
		if err != nil {
			checkReadError(t, []byte(s), err)
			return
		}
		var entries []string
		for _, b := range m {
			entries = append(entries, b.Signal()+"="+b.Channel)
		}
		back, err := ParseChannelMap(strings.Join(entries, ","))
		if err != nil {
			t.Fatalf("%q reads, its rewriting %q does not: %v", s, entries, err)
		}
		if len(back) != len(m) {
			t.Fatalf("%q: %v, back %v", s, m, back)
		}
		for i := range m {
			if back[i] != m[i] {
				t.Fatalf("%q: %v, back %v", s, m, back)
			}
		}
	})
}
