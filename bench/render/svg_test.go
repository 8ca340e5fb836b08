package render

import (
	"strings"
	"testing"
)

func TestCDFAndPlot(t *testing.T) {
	s := CDF("x", []float64{3000, 1000, 2000}, 0.001)
	if len(s.X) != 6 || s.X[0] != 1 || s.Y[len(s.Y)-1] != 1 {
		t.Fatalf("%+v", s)
	}
	svg := Plot{Title: "a <b>", XLabel: "s", YLabel: "f", Series: []Series{s}, Marks: []Mark{{X: 2.5, Label: "lease"}}}.SVG()
	if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "a &lt;b&gt;") || !strings.Contains(svg, "<polyline") {
		t.Fatalf("unexpected SVG: %.200s", svg)
	}
	// A log plot with one point must not produce NaN coordinates.
	one := Plot{LogX: true, LogY: true, Series: []Series{{Name: "p", X: []float64{10}, Y: []float64{5}}}}.SVG()
	if strings.Contains(one, "NaN") || strings.Contains(one, "Inf") {
		t.Fatalf("bad coordinates: %s", one)
	}
}
