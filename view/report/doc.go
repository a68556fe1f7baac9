// Package report renders analysis results as SVG plots and a self-contained
// HTML page.
//
// The plots are written by hand, without JavaScript or fetched fonts, and
// are deterministic: the same input gives the same bytes, coordinates with
// one decimal. Three kinds cover a timing analysis:
//
//   - CDF: the empirical distribution of a metric (contention duration, bus
//     initialisation time) with each deadline marked, numbered, and given
//     in the legend with the probability that it is met and its confidence
//     interval;
//   - Histogram: how often each integer value occurred (contention rounds);
//   - Lines: a metric against a swept parameter, with its confidence band,
//     crosses where the correctness conditions are violated and dashed
//     reference lines (a predicted threshold).
//
// Axes span their data (and a CDF's deadlines near it) with round ticks
// (Ticks: 1, 2 or 5 times a power of ten); times in ns are written in ns,
// µs or ms, whichever keeps the labels short. Text never sits on the data:
// legends go below the plot, deadline numbers above it. A plot has a
// viewBox and width 100%, so it scales with the page, up to 800 px.
//
// Page.Write writes the HTML report: a metadata table (command line, seed,
// profile, version), sections of figures and tables, and relative links to
// the raw data written beside it. It embeds the SVGs inline and refers to
// nothing outside its directory, so it can be opened offline or archived
// as it is.
package report
