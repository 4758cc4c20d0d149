package promqlcheck

// functions are the PromQL functions of Prometheus 2.42, the oldest version the rules and
// dashboards are tested against: a newer function would fail there.
var functions = setOf(
	"abs", "absent", "absent_over_time", "acos", "acosh", "asin", "asinh", "atan", "atanh",
	"avg_over_time", "ceil", "changes", "clamp", "clamp_max", "clamp_min", "cos", "cosh",
	"count_over_time", "day_of_month", "day_of_week", "day_of_year", "days_in_month", "deg",
	"delta", "deriv", "exp", "floor", "histogram_count", "histogram_fraction",
	"histogram_quantile", "histogram_sum", "holt_winters", "hour", "idelta", "increase",
	"irate", "label_join", "label_replace", "last_over_time", "ln", "log10", "log2",
	"max_over_time", "min_over_time", "minute", "month", "pi", "predict_linear",
	"present_over_time", "quantile_over_time", "rad", "rate", "resets", "round", "scalar",
	"sgn", "sin", "sinh", "sort", "sort_desc", "sqrt", "stddev_over_time", "stdvar_over_time",
	"sum_over_time", "tan", "tanh", "time", "timestamp", "vector", "year",
)

// aggregations are the aggregation operators, which take by/without clauses.
var aggregations = setOf(
	"avg", "bottomk", "count", "count_values", "group", "max", "min", "quantile", "stddev",
	"stdvar", "sum", "topk",
)

// binaryKeywords are the binary operators spelled as words.
var binaryKeywords = setOf("and", "or", "unless", "atan2")

// IsFunction reports whether name is a PromQL function or aggregation, so callers can tell a
// call from a metric name.
func IsFunction(name string) bool { return functions[name] || aggregations[name] }

func setOf(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
