package cli

import (
	"html/template"
	"io"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/replay"
)

// rulingsPage writes the ruling record as one self-contained HTML page: no
// script, nothing loaded from elsewhere (the style is in the page), laid
// out for an A4 or Letter sheet when printed. Every name and reason from
// the match is escaped by html/template.
func rulingsPage(w io.Writer, rec *replay.RulingsRecord) error {
	return rulingsTemplate.Execute(w, rec)
}

var rulingsTemplate = template.Must(template.New("rulings").Funcs(template.FuncMap{
	"faces":   replay.Faces,
	"proof":   proof,
	"values":  rulingValues,
	"inForce": inForce,
	"verdict": rulingsVerdict,
	"players": playerList,
	"actor":   actorOf,
	"first":   firstLine,
	"seqs":    seqs,
	"inc":     func(i int) int { return i + 1 },
	"roller": func(rec *replay.RulingsRecord, id string) string {
		return actorOf(rec, events.Actor{Kind: events.ActorPlayer, ID: id})
	},
}).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Ruling record — {{.Match}}{{if .Name}} — {{.Name}}{{end}}</title>
<style>
  @page { size: A4; margin: 12mm; }
  body { font: 10pt/1.35 "DejaVu Sans", Helvetica, Arial, sans-serif; color: #111; margin: 0 auto; max-width: 190mm; padding: 8mm 0; }
  h1 { font-size: 15pt; margin: 0 0 2mm; }
  .meta { margin: 0 0 4mm; color: #333; }
  .meta div { margin: .5mm 0; }
  .hash, .sig { font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 7.5pt; word-break: break-all; }
  .verdict { font-weight: bold; }
  section.dispute { border: 1px solid #999; border-radius: 2mm; padding: 3mm 4mm; margin: 0 0 4mm; break-inside: avoid; page-break-inside: avoid; }
  section.dispute h2 { font-size: 11.5pt; margin: 0 0 2mm; }
  dl { display: grid; grid-template-columns: 28mm 1fr; gap: 1mm 3mm; margin: 0; }
  dt { font-weight: bold; color: #444; }
  dd { margin: 0; }
  ul { margin: .5mm 0; padding-left: 5mm; }
  .mark { color: #8a1c1c; }
  .open { color: #b00; font-weight: bold; }
  .replaced { color: #666; }
  .inforce { font-weight: bold; }
  table.board { border-collapse: collapse; margin: .5mm 0; }
  table.board td { border-top: 1px solid #ddd; padding: .5mm 2mm .5mm 0; vertical-align: top; }
  footer { color: #555; font-size: 8pt; margin-top: 4mm; }
  @media print { body { padding: 0; } a { color: inherit; text-decoration: none; } }
</style>
</head>
<body>
<h1>Ruling record — match {{.Match}}{{if .Name}} — {{.Name}}{{end}}</h1>
<div class="meta">
  <div>{{.Edition}} · players: {{players .Players}} · {{.Events}} events</div>
  <div>audit: <span class="verdict">{{verdict .}}</span></div>
  <div>the record of the log whose last event is <span class="hash">{{.Head}}</span></div>
</div>
{{- $rec := .}}
{{- if not .Disputes}}<p>No dispute was raised in this match.</p>{{end}}
{{- range $i, $d := .Disputes}}
<section class="dispute" data-dispute="{{$d.Dispute.Seq}}">
  <h2>Dispute {{inc $i}} of {{len $rec.Disputes}} — event {{$d.Dispute.Seq}}, by {{actor $rec $d.Dispute.Actor}}: “{{$d.Reason}}”</h2>
  <dl>
    <dt>Raised</dt><dd>{{$d.Dispute.Time}} — <span class="sig">{{proof $d.Dispute}}</span></dd>
    <dt>Disputed</dt><dd>event {{$d.Event.Seq}} ({{$d.Event.Time}}): {{first $d.Event.Text}}
      {{- range $d.Event.Marks}}<div class="mark">! {{.}}</div>{{end}}</dd>
    {{- with $d.Roll}}
    <dt>The roll</dt><dd>{{roller $rec .Roll.Roller}} rolled {{.Roll.Count}} D6 to {{.Roll.Purpose}} needing {{.Need}}+: <b>{{faces .Roll.Values}}</b> — {{.Produced}}
      <ul>{{range .Inputs}}<li>{{.}}</li>{{end}}<li>rule: {{.Rule}}</li></ul></dd>
    {{- end}}
    {{- if $d.Witnesses}}
    <dt>Witnesses</dt><dd>{{range $d.Witnesses}}<div>event {{.Seq}} ({{.Time}}): {{.Text}} — <span class="sig">{{proof .}}</span></div>{{end}}</dd>
    {{- end}}
    {{- with $d.Ruling}}
    <dt>Ruling</dt><dd class="{{if .InForce}}inforce{{else if .Superseded}}replaced{{end}}">event {{.Seq}} ({{.Time}}): <b>{{.Decision}}{{values .}}</b>{{inForce .}}
      {{- if .Note}}<div>the judge's note: “{{.Note}}”</div>{{end}}
      {{- if .Effect}}<div>as ruled: {{.Effect}}</div>{{end}}</dd>
    <dt>On the board</dt><dd>{{if .Board}}<table class="board">{{range .Board}}<tr><td>{{.What}}</td><td>{{.Before}} → {{.After}}</td></tr>{{end}}</table>{{else}}nothing changed{{end}}
      {{- if .Discarded}}<div>later events it left answering nothing: {{seqs .Discarded}}</div>{{end}}</dd>
    <dt>Signed</dt><dd class="sig">{{proof .Said}}</dd>
    {{- else}}
    <dt>Ruling</dt><dd class="open">none yet — the match is UNRESOLVED until the judge rules</dd>
    {{- end}}
  </dl>
</section>
{{- end}}
<footer>Made by matchrec rulings from the match's events alone: matchrec verify and tools/verify.py check the same log from its bundle.</footer>
</body>
</html>
`))
