package render

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Series is one line of a plot.
type Series struct {
	Name   string
	X, Y   []float64
	Dashed bool
	// Color overrides the palette, so that related lines (one solid, one
	// dashed) can share a colour.
	Color string
}

// Plot describes a simple line chart, rendered as standalone SVG.
type Plot struct {
	Title, XLabel, YLabel string
	Series                []Series
	LogX, LogY            bool
	// Marks are vertical reference lines (for example the lease).
	Marks []Mark
}

// Mark is a labelled vertical line at X.
type Mark struct {
	X     float64
	Label string
}

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf"}

// PaletteColor is the i-th colour of the palette the plots draw from,
// cycling, for a Series.Color that pairs related lines.
func PaletteColor(i int) string { return palette[i%len(palette)] }

func esc(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	return r.Replace(s)
}

// niceTicks returns about n round tick values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

func fmtTick(v float64) string {
	if math.Abs(v) >= 1000 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".")
}

// SVG renders the plot.
func (p Plot) SVG() string {
	const W, H, L, R, T, B = 720.0, 420.0, 70.0, 190.0, 40.0, 55.0
	tx := func(v float64) float64 {
		if p.LogX {
			return math.Log10(math.Max(v, 1e-9))
		}
		return v
	}
	ty := func(v float64) float64 {
		if p.LogY {
			return math.Log10(math.Max(v, 1e-9))
		}
		return v
	}
	xmin, xmax, ymin, ymax := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range p.Series {
		for i := range s.X {
			if math.IsNaN(s.Y[i]) {
				continue
			}
			xmin, xmax = math.Min(xmin, tx(s.X[i])), math.Max(xmax, tx(s.X[i]))
			ymin, ymax = math.Min(ymin, ty(s.Y[i])), math.Max(ymax, ty(s.Y[i]))
		}
	}
	for _, m := range p.Marks {
		xmin, xmax = math.Min(xmin, tx(m.X)), math.Max(xmax, tx(m.X))
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax, ymin, ymax = 0, 1, 0, 1
	}
	if !p.LogY {
		ymin = math.Min(ymin, 0)
	}
	if !p.LogX && xmin > 0 && xmin < (xmax-xmin) {
		xmin = 0
	}
	if xmax == xmin {
		xmax = xmin + 1
	}
	if ymax == ymin {
		ymax = ymin + 1
	}
	ymax += (ymax - ymin) * 0.05
	px := func(v float64) float64 { return L + (tx(v)-xmin)/(xmax-xmin)*(W-L-R) }
	py := func(v float64) float64 { return H - B - (ty(v)-ymin)/(ymax-ymin)*(H-T-B) }
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", W, H, W, H)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%.0f" y="22" font-size="15" font-weight="bold">%s</text>`+"\n", L, esc(p.Title))
	// Axes and ticks.
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", L, H-B, W-R, H-B)
	fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="black"/>`+"\n", L, T, L, H-B)
	ticks := func(lo, hi float64, log bool) []float64 {
		if log {
			var out []float64
			for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
				if e >= lo-1e-9 && e <= hi+1e-9 {
					out = append(out, math.Pow(10, e))
				}
			}
			return out
		}
		return niceTicks(lo, hi, 6)
	}
	for _, v := range ticks(xmin, xmax, p.LogX) {
		x := px(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", x, T, x, H-B)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x, H-B+16, fmtTick(v))
	}
	for _, v := range ticks(ymin, ymax, p.LogY) {
		y := py(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", L, y, W-R, y)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%s</text>`+"\n", L-6, y+4, fmtTick(v))
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", (L+W-R)/2, H-12, esc(p.XLabel))
	fmt.Fprintf(&b, `<text x="16" y="%.1f" text-anchor="middle" transform="rotate(-90 16 %.1f)">%s</text>`+"\n", (T+H-B)/2, (T+H-B)/2, esc(p.YLabel))
	for _, m := range p.Marks {
		x := px(m.X)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#555" stroke-dasharray="4 3"/>`+"\n", x, T, x, H-B)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" fill="#555" font-size="11">%s</text>`+"\n", x+3, T+12, esc(m.Label))
	}
	for i, s := range p.Series {
		color := palette[i%len(palette)]
		if s.Color != "" {
			color = s.Color
		}
		var pts []string
		for j := range s.X {
			if math.IsNaN(s.Y[j]) {
				continue
			}
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", px(s.X[j]), py(s.Y[j])))
		}
		dash := ""
		if s.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, dash, strings.Join(pts, " "))
		if len(s.X) <= 12 {
			for _, pt := range pts {
				xy := strings.Split(pt, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`+"\n", xy[0], xy[1], color)
			}
		}
		ly := T + 10 + float64(i)*18
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="2"%s/>`+"\n", W-R+10, ly, W-R+30, ly, color, dash)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f">%s</text>`+"\n", W-R+35, ly+4, esc(s.Name))
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// CDF returns the empirical distribution of values as a step series: X the
// sorted values, Y the fraction of values <= X.
func CDF(name string, values []float64, scale float64) Series {
	s := slices.Clone(values)
	slices.Sort(s)
	out := Series{Name: name}
	for i, v := range s {
		out.X = append(out.X, v*scale, v*scale)
		prev := float64(i) / float64(len(s))
		out.Y = append(out.Y, prev, float64(i+1)/float64(len(s)))
	}
	return out
}
