package hwtest

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fwsim/fwsim/phy"
)

// PortRef names one port of one node.
type PortRef struct {
	Node string
	Port int
}

func (p PortRef) String() string { return p.Node + ".p" + strconv.Itoa(p.Port) }

func comparePorts(a, b PortRef) int {
	return cmp.Or(strings.Compare(a.Node, b.Node), cmp.Compare(a.Port, b.Port))
}

// LineChange is a port's received line state from AtNs on.
type LineChange struct {
	AtNs  int64
	State phy.LineState
}

// PortLines is the timeline of the line states one port receives: the
// state at the start of the capture first, then every change.
type PortLines struct {
	Port    PortRef
	Changes []LineChange
}

// LineCapture is a recording of the line states ports receive, as a logic
// analyzer with window comparators on TPA and TPB records them, or as an
// emulation gives them (EmulatedLines).
type LineCapture struct {
	Format Format
	// SamplePeriodNs is the time between two samples: the resolution of
	// every time in the capture.
	SamplePeriodNs float64
	EndNs          int64       // the last instant the capture covers
	Ports          []PortLines // in node, then port order
}

// Pair names a twisted pair of a port: TPA or TPB.
type Pair uint8

// The two pairs.
const (
	TPA Pair = iota
	TPB
)

func (p Pair) String() string { return [2]string{"tpa", "tpb"}[p&1] }

// ChannelBind is one entry of a channel map: the capture's channel that
// records one window comparator, "driven high" (Hi) or "driven low", of
// one pair of one port.
type ChannelBind struct {
	Port    PortRef
	Pair    Pair
	Hi      bool
	Channel string
}

// Signal is the comparator's name, as a channel map spells it:
// "a.p0.tpa.hi".
func (b ChannelBind) Signal() string {
	return b.Port.String() + "." + b.Pair.String() + "." + [2]string{"lo", "hi"}[boolIndex(b.Hi)]
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ChannelMap says which channel of a capture records which comparator.
// Each mapped pair needs both comparators, and each mapped port both pairs:
// fewer cannot tell a line state.
type ChannelMap []ChannelBind

// FormatChannelMap names channel map errors: it is no capture format.
const FormatChannelMap Format = "channel map"

// ParseChannelMap reads a channel map written
// NODE.pPORT.tpa|tpb.hi|lo=CHANNEL, comma-separated, such as
// "a.p0.tpa.hi=D0,a.p0.tpa.lo=D1,a.p0.tpb.hi=D2,a.p0.tpb.lo=D3". A node
// name may hold '.', not ',' or '='.
func ParseChannelMap(s string) (ChannelMap, error) {
	var m ChannelMap
	for entry := range strings.SplitSeq(s, ",") {
		entry = strings.TrimSpace(entry)
		signal, channel, ok := strings.Cut(entry, "=")
		b, err := parseSignal(strings.TrimSpace(signal))
		channel = strings.TrimSpace(channel)
		if err != nil && err != errNotSignal {
			return nil, &ParseError{Format: FormatChannelMap, Field: entry, Reason: err.Error()}
		}
		if !ok || err != nil || channel == "" {
			return nil, &ParseError{Format: FormatChannelMap, Field: entry, Reason: "want NODE.pPORT.tpa|tpb.hi|lo=CHANNEL, such as a.p0.tpa.hi=D0"}
		}
		b.Channel = channel
		m = append(m, b)
	}
	return m, m.check()
}

// errNotSignal is parseSignal's answer to a name of another form.
var errNotSignal = errors.New("not NODE.pPORT.tpa|tpb.hi|lo")

// parseSignal reads NODE.pPORT.tpa|tpb.hi|lo, also the name of a channel of
// fwsim's sigrok dialect once the node is unescaped. It fails with
// errNotSignal for a name of another form, and says why for one whose
// PORT, digits, is no port number.
func parseSignal(s string) (ChannelBind, error) {
	rest, level, _ := cutLast(s)
	rest, pair, _ := cutLast(rest)
	node, port, ok := cutLast(rest)
	digits, isPort := strings.CutPrefix(port, "p")
	if !ok || node == "" || !isPort || digits == "" || strings.Trim(digits, "0123456789") != "" ||
		(pair != "tpa" && pair != "tpb") || (level != "hi" && level != "lo") {
		return ChannelBind{}, errNotSignal
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n >= maxLinePorts || digits != strconv.Itoa(n) {
		return ChannelBind{}, fmt.Errorf("port %s: want p0 to p%d, without leading zeros (a PHY has at most %d ports)", channelName(port), maxLinePorts-1, maxLinePorts)
	}
	return ChannelBind{Port: PortRef{node, n}, Pair: Pair(boolIndex(pair == "tpb")), Hi: level == "hi"}, nil
}

// maxLinePorts is the most ports a PHY has (27, 1394-1995's self-ID limit).
const maxLinePorts = 27

// cutLast splits s at its last '.'.
func cutLast(s string) (before, after string, ok bool) {
	i := strings.LastIndexByte(s, '.')
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}

// check refuses a map that names a comparator or a channel twice, or leaves
// out a comparator of a port it maps.
func (m ChannelMap) check() error {
	signals, channels := map[string]bool{}, map[string]string{}
	ports := map[PortRef]int{} // a bit per comparator
	for _, b := range m {
		sig := b.Signal()
		if signals[sig] {
			return &ParseError{Format: FormatChannelMap, Field: sig, Reason: "mapped twice"}
		}
		if other, dup := channels[b.Channel]; dup {
			return &ParseError{Format: FormatChannelMap, Field: b.Channel, Reason: fmt.Sprintf("records both %s and %s: one channel is one comparator", channelName(other), channelName(sig))}
		}
		signals[sig], channels[b.Channel] = true, sig
		ports[b.Port] |= 1 << (2*int(b.Pair) + boolIndex(b.Hi))
	}
	for _, b := range m {
		sig := b.Signal()
		if bits := ports[b.Port]; bits != 0b1111 {
			for k := range 4 {
				if bits&(1<<k) == 0 {
					missing := ChannelBind{Port: b.Port, Pair: Pair(k / 2), Hi: k%2 == 1}
					return &ParseError{Format: FormatChannelMap, Field: missing.Signal(), Reason: fmt.Sprintf(
						"not mapped, and %s is: a port's line state needs both comparators of both pairs", channelName(sig))}
				}
			}
		}
	}
	return nil
}

// lineDecoder turns comparator samples into line-state timelines: the
// channel readers set channels as the capture changes them and end each
// instant, when the pairs are resolved.
type lineDecoder struct {
	format Format
	binds  []ChannelBind // in port order, four per port: tpa.lo, tpa.hi, tpb.lo, tpb.hi
	levels []bool        // per bind, the channel's level now
	dirty  []bool        // per port, a channel changed in this instant
	out    *LineCapture
}

// newLineDecoder decodes the channels m maps.
func newLineDecoder(f Format, m ChannelMap) *lineDecoder {
	binds := slices.Clone(m)
	slices.SortFunc(binds, func(a, b ChannelBind) int {
		return cmp.Or(comparePorts(a.Port, b.Port), cmp.Compare(a.Pair, b.Pair), cmp.Compare(boolIndex(a.Hi), boolIndex(b.Hi)))
	})
	d := &lineDecoder{format: f, binds: binds, levels: make([]bool, len(binds)), dirty: make([]bool, len(binds)/4),
		out: &LineCapture{Format: f}}
	for i := 0; i < len(binds); i += 4 {
		d.out.Ports = append(d.out.Ports, PortLines{Port: binds[i].Port})
	}
	return d
}

// index is the decoder's position of the comparator a channel records,
// -1 for a channel the map leaves out.
func (d *lineDecoder) index(channel string) int {
	return slices.IndexFunc(d.binds, func(b ChannelBind) bool { return b.Channel == channel })
}

// set records channel i's level in the current instant.
func (d *lineDecoder) set(i int, level bool) {
	if d.levels[i] != level {
		d.levels[i] = level
		d.dirty[i/4] = true
	}
}

// instant ends the instant at: every port whose channels changed gets its
// new line state. line is where the capture gives the instant, for errors.
func (d *lineDecoder) instant(at int64, line int) error {
	for p, dirty := range d.dirty {
		if !dirty && len(d.out.Ports[p].Changes) > 0 {
			continue
		}
		d.dirty[p] = false
		var sig [2]phy.Signal
		for pair := range 2 {
			lo, hi := d.levels[4*p+2*pair], d.levels[4*p+2*pair+1]
			switch {
			case lo && hi:
				b := d.binds[4*p+2*pair]
				return &ParseError{Format: d.format, Line: line, Field: b.Port.String() + "." + b.Pair.String(), Reason: fmt.Sprintf(
					"driven high (%s) and low (%s) at once at %d ns: window comparators cannot both fire; check the channel map",
					channelName(d.binds[4*p+2*pair+1].Channel), channelName(b.Channel), at)}
			case hi:
				sig[pair] = phy.Sig1
			case lo:
				sig[pair] = phy.Sig0
			}
		}
		pl := &d.out.Ports[p]
		s := phy.MakeLineState(sig[0], sig[1])
		if n := len(pl.Changes); n == 0 || pl.Changes[n-1].State != s {
			pl.Changes = append(pl.Changes, LineChange{at, s})
		}
	}
	d.out.EndNs = max(d.out.EndNs, at)
	return nil
}
