package projtest

import (
	"fmt"
	"regexp"
	"strings"
)

// Grammar checks a line a player reads — a narrated event, a pending
// step, a refusal — for what the editions' words get wrong: a formatting
// slip (a %! verb, a Go value dumped, doubled spaces), a count that does
// not agree ("1 shots", "2 model"), and a unit named in names whose verb
// does not agree with it: names maps each unit name to whether it is
// plural ("Ork Boyz": true, "Squad S": false), fixed by the test, not read
// from the words the code chose.
func Grammar(line string, names map[string]bool) error {
	for _, slip := range []string{"%!", "<nil>", "map[", "&{", "  "} {
		if strings.Contains(line, slip) {
			return fmt.Errorf("%q: %q in it", line, slip)
		}
	}
	if m := oneMany.FindString(line); m != "" {
		return fmt.Errorf("%q: %q (one takes the singular)", line, m)
	}
	if m := manyOne.FindString(line); m != "" {
		return fmt.Errorf("%q: %q (more than one takes the plural)", line, m)
	}
	for name, plural := range names {
		for at := 0; ; {
			k := strings.Index(line[at:], name+" ")
			if k < 0 {
				break
			}
			start := at + k
			at = start + len(name) + 1
			subject := plural
			switch {
			case strings.HasSuffix(line[:start], "unit "):
				subject = false // "unit Ork Boyz has": the subject is the unit
			case strings.HasSuffix(line[:start], "of "), strings.HasSuffix(line[:start], "with "), strings.HasSuffix(line[:start], "at "):
				continue // "no model of Ork Boyz has": the name is not the subject
			}
			verb := strings.ToLower(strings.Fields(line[at:] + " x")[0])
			if want, ok := agreement[verb]; ok && want != subject {
				what := "a singular"
				if subject {
					what = "a plural"
				}
				return fmt.Errorf("%q: %s %s (%s subject)", line, name, verb, what)
			}
		}
	}
	return nil
}

// Counts that do not agree.
var (
	countNouns = `(shot|hit|wound|model|casualt(y|ie)|attack|blow|marker|template|unit|die|save|value|event|pool)`
	oneMany    = regexp.MustCompile(`(^|[^0-9.])1 ` + countNouns + `s\b`)
	manyOne    = regexp.MustCompile(`(^|[^0-9.])([02-9]|[1-9][0-9]+) ` + strings.Replace(countNouns, "casualt(y|ie)", "casualty", 1) + `\b`)
)

// agreement maps the verbs the editions put after a unit's name to
// whether they are the plural form.
var agreement = func() map[string]bool {
	m := map[string]bool{"is": false, "are": true, "has": false, "have": true}
	for _, v := range []string{"shoot", "fire", "charge", "strike", "hold", "fall", "escape", "consolidate", "make", "go",
		"pile", "advance", "move", "test", "pass", "fail", "take", "lose", "win", "sit", "flee", "reach", "start", "stand"} {
		m[v] = true
		if strings.HasSuffix(v, "s") || strings.HasSuffix(v, "h") || v == "go" {
			m[v+"es"] = false
		} else {
			m[v+"s"] = false
		}
	}
	return m
}()
