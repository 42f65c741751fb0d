package events

import "reflect"

// Hand-written decoders of the core payloads (payloads.go), the ones every
// fold reads most: dice.rolled, shooting.declared, model.moved, the turn
// and phase markers, casualties and hits, and match.created (one per match,
// but a large one). DecodePayload uses them (fastDecoder) and falls back to
// the reflective decoder on errFallback; payloads_decode_test.go checks,
// on every example and on random bytes, that they decode exactly what it
// does. A field added to one of these types must be added here too: the
// test fails until it is.

// fastDecoder is a payload with a hand-written decoder.
type fastDecoder interface {
	decodeMsgpack(r *reader)
}

var (
	_ fastDecoder = (*DiceRolled)(nil)
	_ fastDecoder = (*ShootingDeclared)(nil)
	_ fastDecoder = (*ModelMoved)(nil)
	_ fastDecoder = (*TurnStarted)(nil)
	_ fastDecoder = (*PhaseStarted)(nil)
	_ fastDecoder = (*CasualtiesChosen)(nil)
	_ fastDecoder = (*HitsDistributed)(nil)
	_ fastDecoder = (*MatchEnded)(nil)
	_ fastDecoder = (*MatchCreated)(nil)
)

// decodeFast decodes b into p with its hand-written decoder; ok is false
// when p has none or the bytes are outside what it reads (errFallback),
// and p is then left zero for the reflective decoder.
func decodeFast(p Payload, b []byte) (ok bool, err error) {
	fd, has := p.(fastDecoder)
	if !has {
		return false, nil
	}
	r := reader{b: b}
	fd.decodeMsgpack(&r)
	if r.err == nil && len(r.b) > 0 {
		// Trailing bytes: the reflective decoder ignores them, so let it.
		r.err = errFallback
	}
	switch r.err {
	case nil:
		return true, nil
	case errFallback:
		// The hand-written decoder may have filled some fields: rare
		// enough for reflection.
		reflect.ValueOf(p).Elem().SetZero()
		return false, nil
	}
	return false, r.err
}

func (p *DiceRolled) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "roller":
			p.Roller = r.str()
			return 0
		case "purpose":
			p.Purpose = r.str()
			return 1
		case "need":
			p.Need = int(r.int())
			return 2
		case "count":
			p.Count = int(r.int())
			return 3
		case "values":
			p.Values = r.ints()
			return 4
		case "source":
			p.Source = r.str()
			return 5
		case "entered":
			p.Entered = r.str()
			return 6
		case "reroll":
			if len(r.b) > 0 && r.b[0] == mpNil {
				r.b, p.Reroll = r.b[1:], nil
				return 7
			}
			p.Reroll = &Reroll{}
			p.Reroll.decodeMsgpack(r)
			return 7
		}
		return -1
	})
}

func (p *Reroll) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "seq":
			p.Seq = r.uint()
			return 0
		case "indices":
			p.Indices = r.ints()
			return 1
		case "source":
			p.Source = r.str()
			return 2
		}
		return -1
	})
}

func (p *ShootingDeclared) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "unit":
			p.Unit = r.str()
			return 0
		case "target":
			p.Target = r.str()
			return 1
		case "weapons":
			p.Weapons = r.stringMap()
			return 2
		case "kind":
			p.Kind = r.str()
			return 3
		case "focus_fire":
			p.FocusFire = r.str()
			return 4
		case "snap":
			p.Snap = r.bool()
			return 5
		}
		return -1
	})
}

func (p *ModelMoved) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "unit":
			p.Unit = r.str()
			return 0
		case "model":
			p.Model = r.str()
			return 1
		case "x":
			p.X = r.float()
			return 2
		case "y":
			p.Y = r.float()
			return 3
		case "advance":
			p.Advance = r.bool()
			return 4
		}
		return -1
	})
}

func (p *TurnStarted) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "turn":
			p.Turn = int(r.int())
			return 0
		case "player":
			p.Player = r.str()
			return 1
		}
		return -1
	})
}

func (p *PhaseStarted) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		if string(k) == "phase" {
			p.Phase = r.str()
			return 0
		}
		return -1
	})
}

func (p *CasualtiesChosen) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		if string(k) == "models" {
			p.Models = r.strings()
			return 0
		}
		return -1
	})
}

func (p *HitsDistributed) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		if string(k) == "models" {
			p.Models = r.strings()
			return 0
		}
		return -1
	})
}

func (p *MatchEnded) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "winner":
			p.Winner = r.str()
			return 0
		case "reason":
			p.Reason = r.str()
			return 1
		}
		return -1
	})
}

func (p *MatchCreated) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "edition":
			p.Edition = r.str()
			return 0
		case "name":
			p.Name = r.str()
			return 1
		case "table":
			p.Table.decodeMsgpack(r)
			return 2
		case "players":
			p.Players = list[PlayerSpec](r)
			return 3
		case "units":
			p.Units = list[UnitSpec](r)
			return 4
		case "terrain":
			p.Terrain = list[TerrainSpec](r)
			return 5
		case "first_player":
			p.FirstPlayer = r.str()
			return 6
		case "tokens":
			p.Tokens = r.stringMap()
			return 7
		case "keys":
			p.Keys = r.stringMap()
			return 8
		case "rules":
			p.Rules = int(r.int())
			return 9
		case "geometry":
			p.Geometry = r.str()
			return 10
		}
		return -1
	})
}

func (p *Table) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "w":
			p.W = r.float()
			return 0
		case "h":
			p.H = r.float()
			return 1
		}
		return -1
	})
}

func (p *PlayerSpec) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "id":
			p.ID = r.str()
			return 0
		case "name":
			p.Name = r.str()
			return 1
		}
		return -1
	})
}

func (p *UnitSpec) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "id":
			p.ID = r.str()
			return 0
		case "name":
			p.Name = r.str()
			return 1
		case "player":
			p.Player = r.str()
			return 2
		case "keywords":
			p.Keywords = r.strings()
			return 3
		case "weapons":
			p.Weapons = list[WeaponSpec](r)
			return 4
		case "models":
			p.Models = list[ModelSpec](r)
			return 5
		}
		return -1
	})
}

func (p *WeaponSpec) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "id":
			p.ID = r.str()
			return 0
		case "name":
			p.Name = r.str()
			return 1
		case "range":
			p.Range = r.float()
			return 2
		case "type":
			p.Type = r.str()
			return 3
		case "shots":
			p.Shots = int(r.int())
			return 4
		case "attacks":
			p.Attacks = r.str()
			return 5
		case "s":
			p.S = int(r.int())
			return 6
		case "ap":
			p.AP = int(r.int())
			return 7
		case "d":
			p.D = r.str()
			return 8
		case "bs":
			p.BS = int(r.int())
			return 9
		case "keywords":
			p.Keywords = r.strings()
			return 10
		}
		return -1
	})
}

func (p *ModelSpec) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "id":
			p.ID = r.str()
			return 0
		case "name":
			p.Name = r.str()
			return 1
		case "ws":
			p.WS = int(r.int())
			return 2
		case "bs":
			p.BS = int(r.int())
			return 3
		case "s":
			p.S = int(r.int())
			return 4
		case "t":
			p.T = int(r.int())
			return 5
		case "w":
			p.W = int(r.int())
			return 6
		case "i":
			p.I = int(r.int())
			return 7
		case "a":
			p.A = int(r.int())
			return 8
		case "ld":
			p.Ld = int(r.int())
			return 9
		case "sv":
			p.Sv = int(r.int())
			return 10
		case "inv":
			p.Inv = int(r.int())
			return 11
		case "move":
			p.Move = r.float()
			return 12
		case "height":
			p.Height = r.float()
			return 13
		case "base_mm":
			p.BaseMM = r.float()
			return 14
		case "x":
			p.X = r.float()
			return 15
		case "y":
			p.Y = r.float()
			return 16
		case "weapons":
			p.Weapons = r.strings()
			return 17
		case "keywords":
			p.Keywords = r.strings()
			return 18
		}
		return -1
	})
}

func (p *TerrainSpec) decodeMsgpack(r *reader) {
	r.object(func(k []byte) int {
		switch string(k) {
		case "id":
			p.ID = r.str()
			return 0
		case "name":
			p.Name = r.str()
			return 1
		case "kind":
			p.Kind = r.str()
			return 2
		case "polygon":
			p.Polygon = r.points()
			return 3
		case "visibility":
			p.Visibility = r.float()
			return 4
		}
		return -1
	})
}
