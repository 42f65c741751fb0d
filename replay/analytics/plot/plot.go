// Package plot draws the built-in reports (replay/analytics/report) as PNG
// images with gonum.org/v1/plot: the one package that imports it.
package plot

import (
	"errors"
	"fmt"
	"image/color"
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

// Dice draws one histogram of faces per (player, source), with the count
// a fair die would give as a line; flagged groups say so in their title.
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
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s, %s dice (n=%d)", g.Player, g.Source, g.N)
		if g.Flag {
			p.Title.Text += " — LOADED?"
		}
		p.Y.Label.Text = "rolls"
		vals := make(plotter.Values, 6)
		for f, c := range g.Faces {
			vals[f] = float64(c)
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(14))
		if err != nil {
			return err
		}
		bars.Color = plotutil.Color(0)
		if g.Flag {
			bars.Color = color.RGBA{R: 200, A: 255}
		}
		p.Add(bars)
		p.NominalX("1", "2", "3", "4", "5", "6")
		exp := float64(g.N) / 6
		line, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: exp}, {X: 5.5, Y: exp}})
		if err != nil {
			return err
		}
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(line)
		p.Legend.Add("fair", line)
		p.Legend.Top = true
		p.Y.Min = 0
		plots[i/cols][i%cols] = p
	}
	return saveTiles(plots, path, vg.Points(260*float64(cols)), vg.Points(220*float64(rows)))
}

// Luck draws each player's cumulative dice luck match by match.
func Luck(r *report.LuckReport, path string) error {
	if len(r.Players) == 0 {
		return errors.New("plot: nothing to draw")
	}
	p := plot.New()
	p.Title.Text = "Dice luck over time (successes − expected, cumulative)"
	p.X.Label.Text = "match (in date order)"
	p.Y.Label.Text = "luck"
	var args []any
	for _, pl := range r.Players {
		pts := make(plotter.XYs, len(pl.Timeline))
		for i, t := range pl.Timeline {
			pts[i] = plotter.XY{X: float64(i + 1), Y: t.Cumulative}
		}
		args = append(args, fmt.Sprintf("%s (%.0f%%)", pl.Player, pl.Percentile), pts)
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return err
	}
	zero := plotter.NewFunction(func(float64) float64 { return 0 })
	zero.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
	p.Add(zero)
	p.Legend.Top = true
	return save(p, path, 8*vg.Inch, 5*vg.Inch)
}

// Weapons draws each weapon's hit and wound rates beside the expected ones.
func Weapons(r *report.WeaponsReport, path string) error {
	ws := r.Weapons
	if len(ws) == 0 {
		return errors.New("plot: nothing to draw")
	}
	if len(ws) > 16 {
		ws = ws[:16]
	}
	p := plot.New()
	p.Title.Text = "Hit and wound rates against the exact odds"
	p.Y.Label.Text = "rate"
	series := []struct {
		name string
		val  func(report.WeaponStats) float64
	}{
		{"hit", func(w report.WeaponStats) float64 { return w.HitRate }},
		{"hit expected", func(w report.WeaponStats) float64 { return w.ExpHit }},
		{"wound", func(w report.WeaponStats) float64 { return w.WoundRate }},
		{"wound expected", func(w report.WeaponStats) float64 { return w.ExpWound }},
	}
	width := vg.Points(7)
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.Edition + " " + w.Weapon
	}
	for k, s := range series {
		vals := make(plotter.Values, len(ws))
		for i, w := range ws {
			vals[i] = s.val(w)
		}
		b, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return err
		}
		b.Color = plotutil.Color(k)
		b.Offset = vg.Length(k-len(series)/2) * width
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = draw.XRight
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = 0, 1
	return save(p, path, vg.Length(max(8, len(ws)))*vg.Inch*0.8, 5*vg.Inch)
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
