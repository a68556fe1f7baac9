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

// SchemaVersion is the version of docs/schema that the JSON of every fwsim
// result follows, shards and replay files included (docs/schema/README.md
// says when it changes).
const SchemaVersion = 7
