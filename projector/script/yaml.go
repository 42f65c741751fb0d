package script

import (
	"bytes"
	"encoding/json"
	"slices"

	yaml "go.yaml.in/yaml/v3"
)

// YAML encodes v as a script writes it (what `matchrec roster import`
// prints): the names of its JSON form (the script's fields, in their
// order), two-space block style, and each item of a list under one of the
// flow keys on one line, as the examples write models and weapons
// ({id: tac-1, t: 4, ...}).
func YAML(v any, flow ...string) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	// JSON is YAML: read into a node, which keeps the keys' order.
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	restyle(&doc, false, flow)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// restyle makes n block style but under a flow key (and lists of
// scalars, keywords: [INFANTRY, BATTLELINE]), its scalars plain (the
// encoder quotes those that need it).
func restyle(n *yaml.Node, inFlow bool, flow []string) {
	switch n.Kind {
	case yaml.ScalarNode:
		n.Style = 0
		return
	case yaml.MappingNode, yaml.SequenceNode:
		n.Style = 0
		if inFlow || (n.Kind == yaml.SequenceNode && scalars(n)) {
			n.Style = yaml.FlowStyle
		}
	}
	for i, c := range n.Content {
		childFlow := inFlow
		if n.Kind == yaml.MappingNode && i%2 == 1 && c.Kind == yaml.SequenceNode && slices.Contains(flow, n.Content[i-1].Value) {
			// The list stays a block; each of its items is one line.
			restyle(c, false, flow)
			for _, item := range c.Content {
				restyle(item, true, flow)
			}
			continue
		}
		restyle(c, childFlow, flow)
	}
}

func scalars(n *yaml.Node) bool {
	for _, c := range n.Content {
		if c.Kind != yaml.ScalarNode {
			return false
		}
	}
	return len(n.Content) > 0
}
