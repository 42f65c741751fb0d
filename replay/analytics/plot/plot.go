// Package plot draws the built-in reports (replay/analytics/report) as PNG
// images with gonum.org/v1/plot: the one package that imports it.
package plot

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/matchrec/matchrec/replay/analytics/report"
)

// maxPanels bounds the dice histograms drawn in one image.
const maxPanels = 12

// Readable defaults: images large enough to read on a screen or a slide,
// text sized for them.
const (
	titleSize  = 16
	labelSize  = 14
	tickSize   = 12
	legendSize = 12
)

// styled makes a plot with the package's type sizes.
func styled(title string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(titleSize)
	p.X.Label.TextStyle.Font.Size = vg.Points(labelSize)
	p.Y.Label.TextStyle.Font.Size = vg.Points(labelSize)
	p.X.Tick.Label.Font.Size = vg.Points(tickSize)
	p.Y.Tick.Label.Font.Size = vg.Points(tickSize)
	p.Legend.TextStyle.Font.Size = vg.Points(legendSize)
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.Padding = vg.Points(4)
	return p
}

// Dice draws, per (player, source), how far each face's count is from a
// fair die's (count − n/6), with the band a fair die stays in 95% of the
// time (± 1.96 √(n · 1/6 · 5/6)) shaded: a face outside it is unusual, all
// inside is what fair dice do. Flagged groups say so in their title.
func Dice(r *report.DiceReport, path string) error {
	groups := r.Groups
	if len(groups) == 0 {
		return errors.New("plot: nothing to draw")
	}
	if len(groups) > maxPanels {
		groups = groups[:maxPanels]
	}
	cols := min(3, len(groups))
	rows := (len(groups) + cols - 1) / cols
	plots := make([][]*plot.Plot, rows)
	for i := range plots {
		plots[i] = make([]*plot.Plot, cols)
	}
	for i, g := range groups {
		p := styled(fmt.Sprintf("%s, %s dice (n=%d)", g.Player, g.Source, g.N))
		if g.Flag {
			p.Title.Text += " — LOADED?"
		}
		p.X.Label.Text = "face"
		p.Y.Label.Text = "rolls − fair count"
		exp := float64(g.N) / 6
		band := 1.96 * math.Sqrt(float64(g.N)*(1.0/6)*(5.0/6))
		shade, err := plotter.NewPolygon(plotter.XYs{{X: -0.5, Y: -band}, {X: 5.5, Y: -band}, {X: 5.5, Y: band}, {X: -0.5, Y: band}})
		if err != nil {
			return err
		}
		shade.Color = color.NRGBA{R: 60, G: 120, B: 220, A: 50}
		shade.LineStyle.Width = 0
		p.Add(shade)
		p.Legend.Add("95% band of a fair die", shade)
		vals := make(plotter.Values, 6)
		lo, hi := -band, band
		for f, c := range g.Faces {
			vals[f] = float64(c) - exp
			lo, hi = math.Min(lo, vals[f]), math.Max(hi, vals[f])
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(22))
		if err != nil {
			return err
		}
		bars.Color = color.RGBA{R: 40, G: 80, B: 160, A: 255}
		if g.Flag {
			bars.Color = color.RGBA{R: 200, A: 255}
		}
		p.Add(bars)
		p.Legend.Add("this group", bars)
		p.NominalX("1", "2", "3", "4", "5", "6")
		zero := plotter.NewFunction(func(float64) float64 { return 0 })
		zero.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(zero)
		pad := (hi - lo) * 0.35 // room for the legend above the bars
		p.Y.Min, p.Y.Max = lo-0.05*(hi-lo), hi+pad
		plots[i/cols][i%cols] = p
	}
	return saveTiles(plots, path, vg.Points(420*float64(cols)), vg.Points(340*float64(rows)))
}

// Luck draws luck over time, match by match in date order, against the
// band fair dice stay in 95% of the time (shaded): a line that leaves it
// is unusual luck. One player is drawn in successes (cumulative successes
// − expected, band ± 1.96 √Σ p(1−p)); several in z (each player's
// cumulative luck over its own standard deviation, band ± 1.96), so every
// player is read against the same band.
func Luck(r *report.LuckReport, path string) error {
	if len(r.Players) == 0 {
		return errors.New("plot: nothing to draw")
	}
	players := r.Players
	if len(players) > 10 {
		players = players[:10] // beyond, neither lines nor legend can be told apart
	}
	one := len(players) == 1
	p := styled("Dice luck over time: cumulative z (luck ÷ its standard deviation)")
	p.Y.Label.Text = "z"
	if one {
		p.Title.Text = fmt.Sprintf("Dice luck of %s over time (successes − expected, cumulative)", players[0].Player)
		p.Y.Label.Text = "luck (successes)"
	}
	p.X.Label.Text = "match (in date order)"
	lo, hi := -2.5, 2.5
	longest := 0
	for _, pl := range players {
		longest = max(longest, len(pl.Timeline))
	}
	// The band: of the one player, or the z band shared by all.
	band := make(plotter.XYs, 0, 2*longest)
	if one {
		tl := players[0].Timeline
		for i, t := range tl {
			band = append(band, plotter.XY{X: float64(i + 1), Y: t.Band})
		}
		for i := len(tl) - 1; i >= 0; i-- {
			band = append(band, plotter.XY{X: float64(i + 1), Y: -tl[i].Band})
		}
	} else {
		band = append(band, plotter.XY{X: 1, Y: 1.96}, plotter.XY{X: float64(max(longest, 2)), Y: 1.96},
			plotter.XY{X: float64(max(longest, 2)), Y: -1.96}, plotter.XY{X: 1, Y: -1.96})
	}
	shade, err := plotter.NewPolygon(band)
	if err != nil {
		return err
	}
	shade.Color = color.NRGBA{R: 120, G: 120, B: 120, A: 60}
	shade.LineStyle.Width = 0
	p.Add(shade)
	for _, b := range band {
		lo, hi = math.Min(lo, b.Y), math.Max(hi, b.Y)
	}
	for k, pl := range players {
		pts := make(plotter.XYs, len(pl.Timeline))
		for i, t := range pl.Timeline {
			y := t.Cumulative
			if !one {
				y = 0
				if t.Band > 0 {
					y = t.Cumulative / (t.Band / 1.96)
				}
			}
			pts[i] = plotter.XY{X: float64(i + 1), Y: y}
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(k)
		line.Dashes = plotutil.Dashes(k / len(plotutil.SoftColors))
		line.Width = vg.Points(2)
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s (%.0f%%)", pl.Player, pl.Percentile), line)
	}
	p.Legend.Add("95% band of fair dice", shade)
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(zero)
	// Room above the lines for the legend, one row per entry.
	rows := float64(len(players) + 1)
	p.Y.Min, p.Y.Max = lo-0.05*(hi-lo), hi+(hi-lo)*rows*0.055
	return save(p, path, 12*vg.Inch, 7*vg.Inch)
}

// Weapons draws, per weapon, two panels. Above, its hit rate (hits per
// shot) and wound rate (wounds per hit) as dots beside the rates the exact
// odds expect, each with the interval fair dice stay in 95% of the time:
// a dot outside its whiskers is unusual. The axis grows to the largest
// rate, so a blast or template scoring several hits a shot is drawn, not
// clipped. Below, the z-score of the hits and of the wounds against the
// ±1.96 band (shaded); a count that is not random (a template's hits) has
// none.
func Weapons(r *report.WeaponsReport, path string) error {
	ws := r.Weapons
	if len(ws) == 0 {
		return errors.New("plot: nothing to draw")
	}
	if len(ws) > 16 {
		ws = ws[:16]
	}
	rates, z, err := weaponPanels(ws)
	if err != nil {
		return err
	}
	width := vg.Length(max(12, len(ws))) * vg.Inch * 0.8
	return saveTiles([][]*plot.Plot{{rates}, {z}}, path, width, 12*vg.Inch)
}

// weaponPanels are Weapons' two panels: the rates, and the z-scores.
func weaponPanels(ws []report.WeaponStats) (rates, z *plot.Plot, err error) {
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Edition + " " + w.Weapon
	}
	rates = styled("Hit and wound rates against the exact odds (95% of fair dice within the whiskers)")
	rates.Y.Label.Text = "rate"
	hi := 1.0
	for k, s := range []struct {
		name            string
		dx              float64
		rate, exp, band func(report.WeaponStats) float64
	}{
		{"hits per shot", -0.15, func(w report.WeaponStats) float64 { return w.HitRate },
			func(w report.WeaponStats) float64 { return w.ExpHit }, func(w report.WeaponStats) float64 { return w.HitBand }},
		{"wounds per hit", 0.15, func(w report.WeaponStats) float64 { return w.WoundRate },
			func(w report.WeaponStats) float64 { return w.ExpWound }, func(w report.WeaponStats) float64 { return w.WoundBand }},
	} {
		got, exp := make(plotter.XYs, len(ws)), make(plotter.XYs, len(ws))
		errs := make(plotter.YErrors, len(ws))
		for i, w := range ws {
			x := float64(i) + s.dx
			got[i] = plotter.XY{X: x, Y: s.rate(w)}
			exp[i] = plotter.XY{X: x, Y: s.exp(w)}
			b := s.band(w)
			errs[i].Low, errs[i].High = b, b
			hi = math.Max(hi, math.Max(s.rate(w), s.exp(w)+b))
		}
		c := plotutil.Color(k)
		whiskers, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{exp, errs})
		if err != nil {
			return nil, nil, err
		}
		whiskers.LineStyle.Color, whiskers.LineStyle.Width, whiskers.CapWidth = c, vg.Points(1.5), vg.Points(8)
		expected, err := plotter.NewScatter(exp)
		if err != nil {
			return nil, nil, err
		}
		expected.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
		actual, err := plotter.NewScatter(got)
		if err != nil {
			return nil, nil, err
		}
		actual.GlyphStyle = draw.GlyphStyle{Color: c, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		rates.Add(whiskers, expected, actual)
		rates.Legend.Add(s.name, actual)
		rates.Legend.Add(s.name+", expected ± 95%", expected)
	}
	rates.NominalX(names...)
	rates.X.Min, rates.X.Max = -0.6, float64(len(ws))-0.4
	rates.Legend.Left = false
	rates.Y.Min, rates.Y.Max = 0, hi*1.35 // room for the legend above
	z, err = zPanel(ws, names)
	return rates, z, err
}

// zPoints are the weapons' hit and wound z-scores as points, weapon i at
// x = i ∓ 0.15; a count that is not random (variance 0) has none.
func zPoints(ws []report.WeaponStats) (hits, wounds plotter.XYs) {
	for i, w := range ws {
		if w.HitVar > 1e-12 {
			hits = append(hits, plotter.XY{X: float64(i) - 0.15, Y: w.HitZ})
		}
		if w.WoundVar > 1e-12 {
			wounds = append(wounds, plotter.XY{X: float64(i) + 0.15, Y: w.WoundZ})
		}
	}
	return hits, wounds
}

// zPanel draws each weapon's hit and wound z-scores against the ±1.96
// band fair dice stay in 95% of the time.
func zPanel(ws []report.WeaponStats, names []string) (*plot.Plot, error) {
	p := styled("How far from the odds: z of the hits and of the wounds (fair dice: inside the band 95% of the time)")
	p.Y.Label.Text = "z"
	band, err := plotter.NewPolygon(plotter.XYs{{X: -0.6, Y: -1.96}, {X: float64(len(ws)) - 0.4, Y: -1.96},
		{X: float64(len(ws)) - 0.4, Y: 1.96}, {X: -0.6, Y: 1.96}})
	if err != nil {
		return nil, err
	}
	band.Color = color.NRGBA{R: 120, G: 120, B: 120, A: 50}
	band.LineStyle.Width = 0
	p.Add(band)
	p.Legend.Add("95% band of fair dice", band)
	lo, hi := -2.5, 2.5
	hits, wounds := zPoints(ws)
	for k, s := range []struct {
		name string
		pts  plotter.XYs
	}{{"hits", hits}, {"wounds", wounds}} {
		pts := s.pts
		for _, pt := range pts {
			lo, hi = math.Min(lo, pt.Y), math.Max(hi, pt.Y)
		}
		if len(pts) == 0 {
			continue
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: plotutil.Color(k), Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
		p.Add(sc)
		p.Legend.Add(s.name, sc)
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
	p.Add(zero)
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Min, p.X.Max = -0.6, float64(len(ws))-0.4
	p.Legend.Left = false
	p.Y.Min, p.Y.Max = lo-0.3, hi+(hi-lo)*0.35
	return p, nil
}

func checkPath(path string) error {
	if !strings.EqualFold(filepath.Ext(path), ".png") {
		return fmt.Errorf("plot: %s: only .png files are drawn", path)
	}
	return nil
}

func save(p *plot.Plot, path string, w, h vg.Length) error {
	if err := checkPath(path); err != nil {
		return err
	}
	return writeAtomic(path, func(tmp string) error { return p.Save(w, h, tmp) })
}

func saveTiles(plots [][]*plot.Plot, path string, w, h vg.Length) error {
	if err := checkPath(path); err != nil {
		return err
	}
	img := vgimg.New(w, h)
	dc := draw.New(img)
	t := draw.Tiles{Rows: len(plots), Cols: len(plots[0]), PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, t, dc)
	for i := range plots {
		for j, p := range plots[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
	return writeAtomic(path, func(tmp string) error {
		f, err := os.Create(tmp)
		if err != nil {
			return err
		}
		if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
}

// writeAtomic writes through a temporary file renamed into place, so a
// failure leaves no partial image behind.
func writeAtomic(path string, write func(tmp string) error) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp.png")
	if err := write(tmp); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("plot %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}
