package phy

import (
	"fmt"
	"strings"
	"time"
)

// Window is a closed interval of durations: a timing constant the standard
// gives as a range, such as ROOT_CONTEND_FAST.
type Window struct {
	Min, Max time.Duration
}

func (w Window) String() string { return fmt.Sprintf("%v–%v", w.Min, w.Max) }

// Valid reports whether the window is a non-empty interval of positive times.
func (w Window) Valid() bool { return w.Min > 0 && w.Min <= w.Max }

// Timing holds the PHY timing constants of docs/protocol.md §6. Every field can be
// overridden; the values of the named profiles are documented there with their
// confidence marks ([C] confirmed, [W] secondary, [U] unconfirmed).
type Timing struct {
	// RootContendFast and RootContendSlow are the back-off windows of root
	// contention (T3). The 1394-1995 windows are the seeds' 240–260 ns and
	// 570–600 ns; the 1394a values are [U]; the prism windows are the
	// formal models' [C].
	RootContendFast Window
	RootContendSlow Window

	// ResetTime is how long R0 drives BUS_RESET after a long reset [U].
	ResetTime time.Duration
	// ResetWait is how long R1 waits for idle ports before resetting again
	// [U]; measured from entry to R1.
	ResetWait time.Duration
	// ConfigTimeout ends T0 when no PARENT_NOTIFY arrives: a loop [U].
	ConfigTimeout time.Duration
	// ForceRootTimeout is how long a node with RHB set holds off in T0 [U].
	ForceRootTimeout time.Duration
	// ShortResetTime is the arbitrated short reset of 1394a [U]; zero where
	// the profile has no short reset.
	ShortResetTime time.Duration
	// ConnectTimeout is the 1394a debounce between a cable connecting and
	// the ports seeing each other, which starts the reset [U]; zero
	// connects at once (1394-1995).
	ConnectTimeout time.Duration
	// MaxArbStateTime is the 1394a watchdog: a PHY that stays longer in
	// one of T1–T3 or S0–S4 initiates a long bus reset [U]; zero where the
	// profile has none (1394-1995).
	MaxArbStateTime time.Duration

	// ResetTimeRange, ConfigTimeoutRange and ForceRootTimeoutRange are the
	// ranges the standard allows for RESET_TIME, CONFIG_TIMEOUT and
	// FORCE_ROOT_TIMEOUT [U]. Real PHYs differ within them, so the bus
	// draws each PHY's values from them (seeded) unless told to use the
	// nominal values above; a zero range, or one that excludes the nominal
	// value's override, pins the nominal value.
	ResetTimeRange        Window
	ConfigTimeoutRange    Window
	ForceRootTimeoutRange Window

	// DataPrefix and DataEnd frame every self-ID transmission: the
	// 1394-2008 typical values, 0.64 and 0.52 µs, of a secondary
	// restatement [W] (docs/protocol.md §6).
	DataPrefix time.Duration
	DataEnd    time.Duration
	// SpeedSignal is SPEED_SIGNAL_LENGTH, how long a parent stays in S3
	// after a child's IDENT_DONE, signalling its speed when it is faster
	// than S100: 100–120 ns [W].
	SpeedSignal time.Duration
	// RepeatDelay is how long a PHY takes to repeat a packet it receives to
	// its other ports; ≤ 144 ns for a PHY reporting del = 00 [C].
	RepeatDelay time.Duration

	// AckGap and IsoGap are the short gaps after self identify: how long a
	// destination waits before its acknowledgement, and how long
	// isochronous talkers wait after a cycle start or an isochronous
	// packet; about 0.04 µs each [W] (docs/protocol.md §9.6).
	AckGap, IsoGap time.Duration
	// SubactionGap and ArbResetGap give the subaction gap and the
	// arbitration reset gap by gap count [U] (docs/protocol.md §9.6).
	SubactionGap, ArbResetGap GapRule

	// ClockHz is the nominal PHY clock, 49.152 MHz [C].
	ClockHz int64
	// BaseRateBitsPerSecond is S100, 98.304 Mbit/s [C]: self-ID packets are
	// sent at this rate.
	BaseRateBitsPerSecond int64
}

// Profile is a named set of timing constants and limits: a generation of
// PHYs. A bus runs one profile, and a node may name another (a bus that
// mixes PHY generations).
type Profile struct {
	// Name is how users choose it: "1394-1995", "1394a-2000",
	// "1394b-2002" or "prism".
	Name string
	// MaxPorts is the most ports a PHY may have: 27 in 1394-1995 (four
	// self-ID packets), 16 in 1394a (three).
	MaxPorts int
	// ShortReset reports whether the profile has the arbitrated short
	// reset (1394a on). A PHY without it drives every reset it takes part
	// in for RESET_TIME: it cannot tell a short one from a long one.
	ShortReset bool
	// LoadsOwnPhyConfig reports whether the PHY loads RHB and the gap
	// count from a PHY configuration packet it sends itself, as 1394a PHYs
	// do; a 1394-1995 PHY loads them only from packets it receives
	// (docs/protocol.md §9.2).
	LoadsOwnPhyConfig bool
	// SimultaneousPowerUp makes every PHY of a bus of this profile power
	// up, and reset, at the same instant by default: the setting of the
	// formal models the prism profile reproduces. Other profiles start
	// from one PHY, as real buses do.
	SimultaneousPowerUp bool
	Timing              Timing
}

// DefaultProfile is the profile used when none is named.
const DefaultProfile = "1394-1995"

// Spec limits that hold in every profile (docs/protocol.md §6, §9.4).
const (
	MaxNodes        = 63   // phy_ID 0–62; 63 is broadcast
	MaxHops         = 16   // cable hops between any two nodes
	MaxCableLengthM = 4.5  // metres per cable
	CableNsPerMetre = 5.05 // propagation delay [C]
)

// NoPhyID is the phy_ID field's broadcast value, 63. A PHY whose ID does not
// fit the field (the 64th node on, out of spec) sends its self-ID packets
// with it.
const NoPhyID = 63

func timing1995() Timing {
	return Timing{
		RootContendFast:       Window{240 * time.Nanosecond, 260 * time.Nanosecond},
		RootContendSlow:       Window{570 * time.Nanosecond, 600 * time.Nanosecond},
		ResetTime:             166700 * time.Nanosecond,
		ResetWait:             166860 * time.Nanosecond,
		ConfigTimeout:         166700 * time.Nanosecond,
		ForceRootTimeout:      83300 * time.Nanosecond,
		DataPrefix:            640 * time.Nanosecond,
		DataEnd:               520 * time.Nanosecond,
		SpeedSignal:           110 * time.Nanosecond,
		RepeatDelay:           144 * time.Nanosecond,
		AckGap:                40 * time.Nanosecond,
		IsoGap:                40 * time.Nanosecond,
		SubactionGap:          GapRule{Offset: 27, PerCount: 16},
		ArbResetGap:           GapRule{Offset: 51, PerCount: 32},
		ResetTimeRange:        Window{166600 * time.Nanosecond, 166800 * time.Nanosecond},
		ConfigTimeoutRange:    Window{166600 * time.Nanosecond, 166800 * time.Nanosecond},
		ForceRootTimeoutRange: Window{83300 * time.Nanosecond, 166700 * time.Nanosecond},
		ClockHz:               49152000,
		BaseRateBitsPerSecond: 98304000,
	}
}

func timing1394a() Timing {
	t := timing1995()
	t.RootContendFast = Window{760 * time.Nanosecond, 800 * time.Nanosecond}
	t.RootContendSlow = Window{1600 * time.Nanosecond, 1640 * time.Nanosecond}
	t.ShortResetTime = 1330 * time.Nanosecond
	t.ConnectTimeout = 340 * time.Millisecond
	t.MaxArbStateTime = 200 * time.Microsecond
	return t
}

func timingPRISM() Timing {
	t := timing1394a()
	t.RootContendFast = Window{760 * time.Nanosecond, 850 * time.Nanosecond}
	t.RootContendSlow = Window{1590 * time.Nanosecond, 1670 * time.Nanosecond}
	// The formal models start both nodes' tree identify together: every
	// PHY keeps the nominal timer values.
	t.ResetTimeRange, t.ConfigTimeoutRange, t.ForceRootTimeoutRange = Window{}, Window{}, Window{}
	return t
}

// Profiles lists the built-in profiles by name, in the order documented.
// 1394b-2002 is a 1394b PHY on legacy (data-strobe) ports: it runs 1394a's
// bus initialisation, with 1394a's timing.
func Profiles() []Profile {
	return []Profile{
		{Name: "1394-1995", MaxPorts: 27, Timing: timing1995()},
		{Name: "1394a-2000", MaxPorts: 16, ShortReset: true, LoadsOwnPhyConfig: true, Timing: timing1394a()},
		{Name: "1394b-2002", MaxPorts: 16, ShortReset: true, LoadsOwnPhyConfig: true, Timing: timing1394a()},
		{Name: "prism", MaxPorts: 16, ShortReset: true, LoadsOwnPhyConfig: true, SimultaneousPowerUp: true, Timing: timingPRISM()},
	}
}

// LookupProfile returns the named profile; the empty name is DefaultProfile.
func LookupProfile(name string) (Profile, error) {
	if name == "" {
		name = DefaultProfile
	}
	var names []string
	for _, p := range Profiles() {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	return Profile{}, fmt.Errorf("unknown profile %q (want %s)", name, strings.Join(names, ", "))
}

// MaxTimingDuration bounds every duration and window of a Timing. It is far
// above every standard value (the longest, CONNECT_TIMEOUT, is 340 ms) and
// keeps the arithmetic safe: at the fastest clock, MaxClockHz, a timer of
// MaxTimingDuration is d·hz = 1e18 ns·Hz, and every virtual time a run
// reaches (scripted events of at most an hour, plus a bounded number of
// timers) stays far below the 9.2e18 ns an int64 holds.
const MaxTimingDuration = time.Second

// MaxClockHz is the fastest nominal PHY clock: a faster one would have edges
// less than a nanosecond apart.
const MaxClockHz = 1_000_000_000

// TimingError is the problem Validate finds: the field at fault, named so
// that callers can translate it to their users' spelling, and what is wrong
// with it.
type TimingError struct {
	// Field is the Go name of the field in Timing, with ".Min" or ".Max"
	// when one end of a window is at fault: "ResetTime",
	// "RootContendFast.Max", "RootContendFast".
	Field string
	// Msg says what the value is and what was expected, without the name.
	Msg string
}

func (e *TimingError) Error() string { return "timing " + e.Field + ": " + e.Msg }

// Validate reports the first timing constant that makes no sense: a window
// that is empty, a duration that is negative, zero where a timer needs one,
// or beyond MaxTimingDuration, a clock outside 1 Hz to MaxClockHz, or a base
// rate that is not positive. The error is a *TimingError.
func (t Timing) Validate() error {
	for _, w := range []struct {
		field string
		w     Window
		none  bool // the zero window is allowed: no range
	}{
		{"RootContendFast", t.RootContendFast, false}, {"RootContendSlow", t.RootContendSlow, false},
		{"ResetTimeRange", t.ResetTimeRange, true}, {"ConfigTimeoutRange", t.ConfigTimeoutRange, true},
		{"ForceRootTimeoutRange", t.ForceRootTimeoutRange, true},
	} {
		if w.none && w.w == (Window{}) {
			continue
		}
		// The field's name is spelled only for an error: a bus of a
		// million nodes validates a million PHYs' timing.
		if problem := durationProblem(w.w.Min, false); problem != "" {
			return &TimingError{w.field + ".Min", problem}
		}
		if problem := durationProblem(w.w.Max, false); problem != "" {
			return &TimingError{w.field + ".Max", problem}
		}
		if w.w.Min > w.w.Max {
			return &TimingError{w.field, fmt.Sprintf("window %v is empty: its min is above its max", w.w)}
		}
	}
	for _, d := range []struct {
		field string
		v     time.Duration
		none  bool // zero is allowed: the profile has no such constant, or it takes no time
	}{
		{"ResetTime", t.ResetTime, false}, {"ResetWait", t.ResetWait, false},
		{"ConfigTimeout", t.ConfigTimeout, false}, {"ForceRootTimeout", t.ForceRootTimeout, false},
		{"ShortResetTime", t.ShortResetTime, true}, {"ConnectTimeout", t.ConnectTimeout, true},
		{"MaxArbStateTime", t.MaxArbStateTime, true}, {"DataPrefix", t.DataPrefix, true},
		{"DataEnd", t.DataEnd, true}, {"SpeedSignal", t.SpeedSignal, true}, {"RepeatDelay", t.RepeatDelay, false},
		{"AckGap", t.AckGap, true}, {"IsoGap", t.IsoGap, true},
	} {
		if problem := durationProblem(d.v, d.none); problem != "" {
			return &TimingError{d.field, problem}
		}
	}
	if t.ClockHz < 1 || t.ClockHz > MaxClockHz {
		return &TimingError{"ClockHz", fmt.Sprintf("%d Hz, want 1 Hz to %d Hz (1 GHz)", t.ClockHz, MaxClockHz)}
	}
	for _, g := range []struct {
		field string
		r     GapRule
	}{{"SubactionGap", t.SubactionGap}, {"ArbResetGap", t.ArbResetGap}} {
		if g.r.Offset < 0 || g.r.PerCount < 0 || g.r.Offset > maxGapTicks || g.r.PerCount > maxGapTicks {
			return &TimingError{g.field, fmt.Sprintf("offset %d and %d per gap count, want 0 to %d ticks each", g.r.Offset, g.r.PerCount, maxGapTicks)}
		}
	}
	if t.BaseRateBitsPerSecond <= 0 {
		return &TimingError{"BaseRateBitsPerSecond", fmt.Sprintf("%d bit/s, want a positive rate", t.BaseRateBitsPerSecond)}
	}
	return nil
}

// durationProblem says what is wrong with a timing constant of d, "" when
// it lies between its least value (1 ns, or 0 when zero is allowed) and
// MaxTimingDuration.
func durationProblem(d time.Duration, zeroAllowed bool) string {
	least := time.Nanosecond
	if zeroAllowed {
		least = 0
	}
	if d < least || d > MaxTimingDuration {
		return fmt.Sprintf("%v, want %v to %v", d, least, MaxTimingDuration)
	}
	return ""
}

// Draw returns the value a PHY uses for a constant whose nominal value is
// nominal and whose allowed range is r: nominal when r is zero or does not
// contain nominal (an override pinned it), else draw(r), a value in r.
func (r Window) Draw(nominal time.Duration, draw func(Window) time.Duration) time.Duration {
	if r == (Window{}) || nominal < r.Min || nominal > r.Max {
		return nominal
	}
	return draw(r)
}
