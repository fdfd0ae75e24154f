package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"runtime"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// strip is one column of a strip plot.
type strip struct {
	label string
	s     sample
	c     color.Color
}

var (
	blue = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	red  = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
)

// plotEdits draws the edit latencies of both systems as a PNG with two
// panels: write → the added server is connected, and write → the manager
// begins applying the edit (before the server's own start-up, which is
// the same Node process on both sides and varies by ±100 ms). Every edit
// is a point, spread sideways so equal values stay visible; a black bar
// marks each median.
func (h *harness) plotEdits(path string, ours, theirs, oursApplying, theirsApplying sample) error {
	left, err := stripPlot("Config edit adding one server → it is connected",
		"ms from the file write", []strip{
			{fmt.Sprintf("mcpvisor\n(n=%d, median %s ms)", len(ours), ms(ours.median())), ours, blue},
			{fmt.Sprintf("mcp-hub 4.2.1\n(n=%d, median %s ms)", len(theirs), ms(theirs.median())), theirs, red},
		})
	if err != nil {
		return err
	}
	right, err := stripPlot("The same edit: file write → the manager begins applying it\n(mcpvisor: the server's starting event; mcp-hub: servers_updating)",
		"ms from the file write", []strip{
			{fmt.Sprintf("mcpvisor\n(median %s ms)", ms(oursApplying.median())), oursApplying, blue},
			{fmt.Sprintf("mcp-hub 4.2.1\n(median %s ms)", ms(theirsApplying.median())), theirsApplying, red},
		})
	if err != nil {
		return err
	}
	const w, hgt = 12 * vg.Inch, 5 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w, hgt), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	sty := left.Title.TextStyle
	sty.Font.Size = vg.Points(11)
	dc.FillText(sty, vg.Point{X: w / 2, Y: hgt - vg.Points(6)}, fmt.Sprintf(
		"Node reference MCP servers over stdio, same %d-core machine, alternating runs; each timed by its own event (mcpvisor: server ready; mcp-hub: servers_updated)", runtime.NumCPU()))
	tiles := draw.Tiles{Rows: 1, Cols: 2, PadTop: vg.Points(22), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(10), PadX: vg.Points(30)}
	cs := plot.Align([][]*plot.Plot{{left, right}}, tiles, dc)
	left.Draw(cs[0][0])
	right.Draw(cs[0][1])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func stripPlot(title, ylabel string, cols []strip) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = wholeTicks{}
	p.X.Min, p.X.Max = -0.6, float64(len(cols))-0.4
	lo, hi := 0.0, 0.0
	var names []string
	for i, col := range cols {
		names = append(names, col.label)
		pts := make(plotter.XYs, len(col.s))
		for j, d := range col.s {
			// A deterministic spread in [-0.25, 0.25]: fractional parts of
			// multiples of the golden ratio never bunch up.
			off := math.Mod(float64(j)*0.6180339887, 1) - 0.5
			pts[j] = plotter.XY{X: float64(i) + off*0.5, Y: float64(d) / float64(time.Millisecond)}
			lo, hi = math.Min(lo, pts[j].Y), math.Max(hi, pts[j].Y)
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col.c, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		med := float64(col.s.median()) / float64(time.Millisecond)
		bar, err := plotter.NewLine(plotter.XYs{{X: float64(i) - 0.35, Y: med}, {X: float64(i) + 0.35, Y: med}})
		if err != nil {
			return nil, err
		}
		bar.LineStyle.Width = vg.Points(2)
		bar.LineStyle.Color = color.Black
		p.Add(sc, bar)
	}
	p.Y.Min, p.Y.Max = math.Min(0, lo*1.1), hi*1.1
	p.Add(plotter.NewGrid())
	p.NominalX(names...)
	return p, nil
}

// wholeTicks are gonum's default ticks labelled in whole numbers.
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = fmt.Sprintf("%.0f", ts[i].Value)
		}
	}
	return ts
}

// callStrips are the call latencies of every path, one column each, in
// one colour per path across panels.
func callStrips(peers []*mcpPeer, lat map[string]sample) []strip {
	short := map[string]struct {
		label string
		c     color.Color
	}{
		pathDirect:    {"direct\n(one stdio hop)", color.Black},
		pathServe:     {"serve, stdio", blue},
		pathServeHTTP: {"serve, HTTP", color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}},
		pathRawHTTP:   {"one raw\nHTTP hop", color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}},
		pathHub:       {"mcp-hub\n/mcp", red},
	}
	var out []strip
	for _, p := range peers {
		s := lat[p.name]
		inUS := make(sample, len(s))
		for i, d := range s {
			inUS[i] = d * 1000 // drawn in µs on the ms scale of stripPlot
		}
		out = append(out, strip{label: fmt.Sprintf("%s\n(p50 %s µs)", short[p.name].label, us(s.median())), s: inUS, c: short[p.name].c})
	}
	return out
}

// plotCalls draws the call latencies, one panel per server, on a log
// scale (the tail is ten times the median): every call a point, a black
// bar at each median.
func (h *harness) plotCalls(path string, targets []*callTarget, data map[string][]strip) error {
	var plots []*plot.Plot
	for _, t := range targets {
		p, err := stripPlot("One echo call to the "+t.label+", by path", "µs per call (log scale)", data[t.label])
		if err != nil {
			return err
		}
		lo := math.Inf(1)
		for _, col := range data[t.label] {
			lo = math.Min(lo, float64(col.s.min())/float64(time.Millisecond)) // µs: the strips are scaled
		}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min = lo * 0.8
		plots = append(plots, p)
	}
	w, hgt := vg.Length(len(plots))*9*vg.Inch, 5.5*vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w, hgt), vgimg.UseBackgroundColor(color.White))
	dc := draw.New(img)
	sty := plots[0].Title.TextStyle
	sty.Font.Size = vg.Points(11)
	dc.FillText(sty, vg.Point{X: w / 2, Y: hgt - vg.Points(6)}, fmt.Sprintf(
		"go-sdk client, every path once per round in rotating order, same %d-core machine, one run", runtime.NumCPU()))
	tiles := draw.Tiles{Rows: 1, Cols: len(plots), PadTop: vg.Points(22), PadBottom: vg.Points(6), PadLeft: vg.Points(6), PadRight: vg.Points(10), PadX: vg.Points(30)}
	cs := plot.Align([][]*plot.Plot{plots}, tiles, dc)
	for i, p := range plots {
		p.Draw(cs[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
