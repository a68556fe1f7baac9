// Package view renders fwsim's results for people and their tools: the text
// every command prints, and the files a run writes for a viewer (VCD for
// GTKWave and sigrok, a GTKWave save file, a JSON-lines trace, Graphviz
// DOT, SVG). It reads results and traces and changes nothing: the world
// (bus), the analyses (analysis, explore), the labs and the hardware path
// (hwtest) know nothing of it. The HTML report is its subpackage report.
package view
