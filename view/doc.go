// Package view renders fwsim's results for people and their tools. It reads
// results and traces and changes nothing: the world (bus), the analyses
// (analysis, explore), the labs and the hardware path (hwtest) know nothing
// of it.
//
// One file a subject:
//   - a run: run.go (the text report and timeline), vcd.go (the GTKWave
//     dialect; the sigrok dialect is hwtest's, the format it reads), gtkw.go
//     (a GTKWave save file), trace.go (JSON lines), dot.go and svg.go
//     (Graphviz), play.go (the page that plays it, drawn by subpackage
//     player);
//   - analyze and sweep: analysis.go, sweep.go; the HTML report's
//     sections: report.go (the page itself is subpackage report);
//   - explore: explore.go;
//   - the labs: election.go, mutex.go, multicast.go, and compare.go, the
//     one table every lab's --compare prints; play_lab.go, the page that
//     plays a lab's run;
//   - the hardware path: decode.go, crosscheck.go, probe.go, linestates.go;
//   - text.go (the aligned table the texts share), duration.go, progress.go
//     (the progress bar of long commands).
//
// Golden files in testdata pin the run views; tests open them in the tools
// that read them (GTKWave, sigrok-cli, Graphviz) where those are installed.
package view
