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

	// DataPrefix and DataEnd frame every self-ID transmission [U].
	DataPrefix time.Duration
	DataEnd    time.Duration
	// RepeatDelay is how long a PHY takes to repeat a packet it receives to
	// its other ports; ≤ 144 ns for a PHY reporting del = 00 [C].
	RepeatDelay time.Duration

	// ClockHz is the nominal PHY clock, 49.152 MHz [C].
	ClockHz int64
	// BaseRateBitsPerSecond is S100, 98.304 Mbit/s [C]: self-ID packets are
	// sent at this rate.
	BaseRateBitsPerSecond int64
}

// Profile is a named set of timing constants and limits.
type Profile struct {
	// Name is how users choose it: "1394-1995", "1394a-2000" or "prism".
	Name string
	// MaxPorts is the most ports a PHY may have: 27 in 1394-1995 (four
	// self-ID packets), 16 in 1394a (three).
	MaxPorts int
	// ShortReset reports whether the profile has the arbitrated short reset.
	ShortReset bool
	Timing     Timing
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

func timing1995() Timing {
	return Timing{
		RootContendFast:       Window{240 * time.Nanosecond, 260 * time.Nanosecond},
		RootContendSlow:       Window{570 * time.Nanosecond, 600 * time.Nanosecond},
		ResetTime:             166700 * time.Nanosecond,
		ResetWait:             166860 * time.Nanosecond,
		ConfigTimeout:         166700 * time.Nanosecond,
		ForceRootTimeout:      83300 * time.Nanosecond,
		DataPrefix:            140 * time.Nanosecond,
		DataEnd:               240 * time.Nanosecond,
		RepeatDelay:           144 * time.Nanosecond,
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
func Profiles() []Profile {
	return []Profile{
		{Name: "1394-1995", MaxPorts: 27, Timing: timing1995()},
		{Name: "1394a-2000", MaxPorts: 16, ShortReset: true, Timing: timing1394a()},
		{Name: "prism", MaxPorts: 16, ShortReset: true, Timing: timingPRISM()},
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

// Validate reports the first timing constant that makes no sense: a window
// that is empty or not positive, a non-positive duration, or a clock of zero.
func (t Timing) Validate() error {
	if !t.RootContendFast.Valid() {
		return fmt.Errorf("root contend fast window %v is not a positive interval", t.RootContendFast)
	}
	if !t.RootContendSlow.Valid() {
		return fmt.Errorf("root contend slow window %v is not a positive interval", t.RootContendSlow)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"reset time", t.ResetTime}, {"reset wait", t.ResetWait},
		{"config timeout", t.ConfigTimeout}, {"force root timeout", t.ForceRootTimeout},
		{"repeat delay", t.RepeatDelay},
	} {
		if d.v <= 0 {
			return fmt.Errorf("%s %v must be positive", d.name, d.v)
		}
	}
	if t.DataPrefix < 0 || t.DataEnd < 0 || t.ShortResetTime < 0 || t.ConnectTimeout < 0 || t.MaxArbStateTime < 0 {
		return fmt.Errorf("data prefix, data end, short reset, connect timeout and max arb state time must not be negative")
	}
	for _, r := range []struct {
		name string
		w    Window
	}{{"reset time range", t.ResetTimeRange}, {"config timeout range", t.ConfigTimeoutRange}, {"force root timeout range", t.ForceRootTimeoutRange}} {
		if r.w != (Window{}) && !r.w.Valid() {
			return fmt.Errorf("%s %v is not a positive interval", r.name, r.w)
		}
	}
	if t.ClockHz <= 0 || t.ClockHz > 1e9 {
		return fmt.Errorf("PHY clock %d Hz out of range (1 Hz to 1 GHz)", t.ClockHz)
	}
	if t.BaseRateBitsPerSecond <= 0 {
		return fmt.Errorf("base rate %d bit/s must be positive", t.BaseRateBitsPerSecond)
	}
	return nil
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
