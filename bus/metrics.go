package bus

// Metric names: the measures of a generation that fwsim analyze and explore
// report, as the keys of their JSON. The times are of the first
// generation: how long after its reset tree identify, self identify and
// root contention took.
const (
	MetricTreeID           = "tree_id_ns"
	MetricSelfID           = "self_id_ns"
	MetricContention       = "contention_ns"
	MetricContentionRounds = "contention_rounds"
)

// TimeMetrics are the metrics a deadline applies to, in the order every
// deadline list gives them.
var TimeMetrics = []string{MetricTreeID, MetricSelfID, MetricContention}

// MetricNames lists every metric, in the order reports show them.
var MetricNames = []string{MetricTreeID, MetricSelfID, MetricContention, MetricContentionRounds}

// Traffic metric names: the totals of a run's traffic phase
// (Options.Until), which a run with traffic measures besides MetricNames.
const (
	MetricCollisions = "collisions" // pairs of transmissions that met
	MetricAcked      = "acked"      // requests acknowledged
	MetricAcksLate   = "acks_late"  // acknowledgements that came after the sender took them missing
	MetricFailed     = "failed"     // requests given up after their last retry
	MetricBusy       = "busy_ns"    // time data passed the root
)

// TrafficMetricNames lists the traffic metrics, in the order reports show
// them.
var TrafficMetricNames = []string{MetricCollisions, MetricAcked, MetricAcksLate, MetricFailed, MetricBusy}

// SchemaVersion is the version of docs/schema that the JSON of every fwsim
// result follows, shards and replay files included (docs/schema/README.md
// says when it changes).
const SchemaVersion = 7
