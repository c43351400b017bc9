package main

import (
	"fmt"
	"image"
	"image/color"
	imgdraw "image/draw"
	"image/png"
	"io"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// chartPoint is one line of the chart: a row that has a ratio to its peer
// or to its limit.
type chartPoint struct {
	label         string
	peerX, limitX float64
}

// chartPoints takes the rows with a ratio, labelled with their section's
// number, in table order except that the decoders (section 1, the longest)
// come last, below the end-to-end cases.
func chartPoints(secs []section) []chartPoint {
	var pts, decoders []chartPoint
	shorten := strings.NewReplacer("PLAIN/UNCOMPRESSED", "PLAIN", "the Arrow IPC file", "Arrow IPC", " (compression ratio", " (ratio")
	for _, s := range secs {
		num, _, _ := strings.Cut(s.Title, ".")
		for _, r := range s.Rows {
			if !isFinite(r.peerX) && !isFinite(r.limitX) {
				continue
			}
			label := shorten.Replace(r.Case)
			if len(label) > 52 {
				label = label[:49] + "..."
			}
			p := chartPoint{label: num + ". " + label, peerX: r.peerX, limitX: r.limitX}
			if num == "1" {
				decoders = append(decoders, p)
			} else {
				pts = append(pts, p)
			}
		}
	}
	return append(pts, decoders...)
}

// writeChart draws the ratios of the tables as a dot plot, one line per
// row, on a log scale: tsarrow against its peer (circles) and against the
// machine's limit (triangles), both oriented so that more is better for
// tsarrow, with 1 (parity) marked. Ratios span four decades (a decoder at
// 0.002x memcpy, a device lookup at 800x a full scan), which only a log
// axis shows side by side.
func writeChart(w io.Writer, secs []section, title string) error {
	pts := chartPoints(secs)
	if len(pts) == 0 {
		return fmt.Errorf("no ratios to chart")
	}
	n := len(pts)
	var peer, limit plotter.XYs
	lo, hi := 1.0, 1.0
	var yticks []plot.Tick
	for i, p := range pts {
		y := float64(n - 1 - i)
		yticks = append(yticks, plot.Tick{Value: y, Label: p.label})
		if isFinite(p.peerX) {
			peer = append(peer, plotter.XY{X: p.peerX, Y: y})
			lo, hi = math.Min(lo, p.peerX), math.Max(hi, p.peerX)
		}
		if isFinite(p.limitX) {
			limit = append(limit, plotter.XY{X: p.limitX, Y: y})
			lo, hi = math.Min(lo, p.limitX), math.Max(hi, p.limitX)
		}
	}
	lo, hi = math.Pow(10, math.Floor(math.Log10(lo))), math.Pow(10, math.Ceil(math.Log10(hi)))

	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "ratio (log scale; more is better for tsarrow)"
	p.X.Scale = plot.LogScale{}
	p.X.Min, p.X.Max = lo, hi
	p.X.Tick.Marker = logTicks(lo, hi)
	p.Y.Min, p.Y.Max = -0.8, float64(n)-0.2
	p.Y.Tick.Marker = plot.ConstantTicks(yticks)
	p.Y.Tick.Label.Font.Size = vg.Points(8)
	p.Legend.Top = true
	p.Legend.Left = false

	grid := plotter.NewGrid()
	grid.Horizontal.Color = color.Gray{Y: 235}
	grid.Vertical.Color = color.Gray{Y: 215}
	p.Add(grid)

	parity, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.8}, {X: 1, Y: float64(n) - 0.2}})
	if err != nil {
		return err
	}
	parity.Color = color.Gray{Y: 90}
	parity.Dashes = []vg.Length{vg.Points(3), vg.Points(3)}
	p.Add(parity)

	add := func(xys plotter.XYs, shape draw.GlyphDrawer, c color.Color, name string) error {
		if len(xys) == 0 {
			return nil
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(3), Shape: shape}
		p.Add(s)
		p.Legend.Add(name, s)
		return nil
	}
	if err := add(peer, draw.CircleGlyph{}, color.RGBA{R: 31, G: 119, B: 180, A: 255}, "tsarrow vs peer (speed ratio)"); err != nil {
		return err
	}
	if err := add(limit, draw.TriangleGlyph{}, color.RGBA{R: 230, G: 120, B: 20, A: 255}, "tsarrow vs the machine's limit"); err != nil {
		return err
	}

	c := vgimg.NewWith(vgimg.UseWH(9*vg.Inch, vg.Length(float64(n)*0.17+1.3)*vg.Inch), vgimg.UseDPI(96))
	p.Draw(draw.New(c))
	return encodePaletted(w, c.Image())
}

// encodePaletted writes img as a PNG of few colours: the chart holds
// greys and two hues, and a paletted image of them compresses to a
// fraction of the full-colour one, which keeps the committed file small.
func encodePaletted(w io.Writer, img image.Image) error {
	var pal color.Palette
	for i := 0; i < 32; i++ {
		y := uint8(i * 255 / 31)
		pal = append(pal, color.RGBA{R: y, G: y, B: y, A: 255})
	}
	for _, hue := range []color.RGBA{{R: 31, G: 119, B: 180, A: 255}, {R: 230, G: 120, B: 20, A: 255}} {
		for i := 1; i <= 16; i++ { // the hue blended towards white, for antialiased edges
			t := float64(i) / 16
			mix := func(c uint8) uint8 { return uint8(float64(c)*t + 255*(1-t)) }
			pal = append(pal, color.RGBA{R: mix(hue.R), G: mix(hue.G), B: mix(hue.B), A: 255})
		}
	}
	b := img.Bounds()
	out := image.NewPaletted(b, pal)
	imgdraw.Draw(out, b, img, b.Min, imgdraw.Src)
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	return enc.Encode(w, out)
}

// logTicks labels 1, 2 and 5 times each power of ten between lo and hi.
func logTicks(lo, hi float64) plot.ConstantTicks {
	var ts plot.ConstantTicks
	for d := lo; d <= hi*1.0001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v > hi*1.0001 {
				break
			}
			label := ""
			if m == 1 || hi/lo <= 1e3 {
				label = strings.TrimSuffix(fmt.Sprintf("%g", v), ".0") + "x"
			}
			ts = append(ts, plot.Tick{Value: v, Label: label})
		}
	}
	return ts
}
