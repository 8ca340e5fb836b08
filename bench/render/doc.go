// Package render draws and writes the benchmark's reports without knowing
// any scenario: SVG line charts (Plot, CDF), the Markdown cells the reports
// share (Ms, LatencyRow), and the writing of JSON and SVG files.
package render
