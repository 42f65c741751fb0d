package projector

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/dice"
)

// Digital dice come in epochs (docs/dice.md): the recorder commits to a
// seed, every player commits to one of theirs, then every player reveals,
// and only then may the epoch's dice be rolled; the recorder reveals its
// seed when the epoch closes. This file folds those events, decides the
// seed commands, and says what an epoch still waits for.

// Commands of the dice epochs. They are the same in every edition.
const (
	CmdSeed       = "seed"        // scheme 1's free player seed: refused since scheme 2
	CmdSeedCommit = "seed-commit" // a player commits to their seed of the current epoch (Epoch, Commit)
	CmdSeedReveal = "seed-reveal" // a player reveals it (Epoch, Seed)
	CmdExcuse     = "excuse"      // the judge leaves a player's unrevealed seed out (Epoch, Player, Reason)
	CmdReveal     = "reveal"      // the judge has the recorder reveal its seed now (a new epoch follows)
)

// DiceState is what the dice need of a match: the recorder's commitments
// and reveals, the players' seeds, and the witness state of every manual
// roll.
type DiceState struct {
	Epoch       int          `json:"epoch"` // the number of the epoch digital rolls use now
	Commits     []SeedCommit `json:"commits,omitempty"`
	PlayerSeeds []string     `json:"player_seeds,omitempty"` // scheme 1: in the order contributed
	Manual      []ManualRoll `json:"manual,omitempty"`
	// Request is the open scheme 3 digital roll, waiting for its
	// contributions (request.go).
	Request *RollRequest `json:"request,omitempty"`
}

// SeedCommit is one epoch: the recorder's commitment and, once revealed,
// its seed; in scheme 2 each player's commitment, reveal or excuse.
type SeedCommit struct {
	// Match recorded the commitment: with Epoch, the epoch's identity.
	Match      string      `json:"match,omitempty"`
	Epoch      int         `json:"epoch"`
	Commit     string      `json:"commit"`
	Scheme     int         `json:"scheme,omitempty"`
	Seq        uint64      `json:"seq"`
	Seed       string      `json:"seed,omitempty"`
	RevealedAt uint64      `json:"revealed_at,omitempty"`
	Players    []EpochSeed `json:"players,omitempty"`
}

// EpochSeed is one player's part of a scheme 2 epoch.
type EpochSeed struct {
	Player  string `json:"player"`
	Commit  string `json:"commit,omitempty"`
	Seed    string `json:"seed,omitempty"`
	Excused bool   `json:"excused,omitempty"`
}

// ID is the epoch's identity.
func (c *SeedCommit) ID() dice.Epoch { return dice.Epoch{Match: c.Match, Number: c.Epoch} }

// V2 reports whether the epoch is of scheme 2.
func (c *SeedCommit) V2() bool { return c.Scheme == dice.SchemeV2 }

func (c *SeedCommit) player(id string) *EpochSeed {
	for i := range c.Players {
		if c.Players[i].Player == id {
			return &c.Players[i]
		}
	}
	return nil
}

// Current returns the epoch digital rolls use now, or nil before any.
func (d *DiceState) Current() *SeedCommit {
	if len(d.Commits) == 0 {
		return nil
	}
	return &d.Commits[len(d.Commits)-1]
}

// Seeds returns the players' revealed seeds of a scheme 2 epoch in player
// order (empty for an excused player), for dice.DeriveV2.
func (c *SeedCommit) Seeds() ([]dice.PlayerSeed, error) {
	out := make([]dice.PlayerSeed, len(c.Players))
	for i, p := range c.Players {
		out[i].Player = p.Player
		if p.Excused {
			continue
		}
		b, err := hex.DecodeString(p.Seed)
		if err != nil || len(b) != dice.SeedSize {
			return nil, fmt.Errorf("player %s's seed of epoch %s is not revealed", p.Player, c.ID())
		}
		out[i].Seed = b
	}
	return out, nil
}

// Awaiting says what a scheme 2 epoch still waits for before its dice can
// be rolled: "" when every player has revealed or been excused, else who
// must commit or reveal. A scheme 1 epoch waits for nothing.
func (c *SeedCommit) Awaiting(s *State) string {
	if !c.V2() {
		return ""
	}
	var commit, reveal []string
	for _, p := range c.Players {
		switch {
		case p.Excused || p.Seed != "":
		case p.Commit == "":
			commit = append(commit, s.PlayerName(p.Player))
		default:
			reveal = append(reveal, s.PlayerName(p.Player))
		}
	}
	switch {
	case len(commit) > 0:
		return fmt.Sprintf("the dice seed commitment of %s for epoch %d", strings.Join(commit, " and "), c.Epoch)
	case len(reveal) > 0:
		return fmt.Sprintf("the dice seed reveal of %s for epoch %d", strings.Join(reveal, " and "), c.Epoch)
	}
	return ""
}

// Seed steps a player may owe an epoch (SeedDue).
const (
	SeedCommitDue = "commit"
	SeedRevealDue = "reveal"
)

// SeedDue says which seed command player owes the current epoch now:
// SeedCommitDue, SeedRevealDue or "". Clients send it before their next
// command, so players never think about seeds (docs/dice.md).
func (s *State) SeedDue(player string) (string, *SeedCommit) {
	c := s.Dice.Current()
	if s.Ended || c == nil || !c.V2() || c.Seed != "" {
		return "", c
	}
	p := c.player(player)
	switch {
	case p == nil || p.Excused || p.Seed != "":
		return "", c
	case p.Commit == "":
		if c.anyRevealed() {
			return "", c // too late: the judge may excuse
		}
		return SeedCommitDue, c
	case c.allCommitted():
		return SeedRevealDue, c
	}
	return "", c
}

func (c *SeedCommit) allCommitted() bool {
	for _, p := range c.Players {
		if !p.Excused && p.Commit == "" {
			return false
		}
	}
	return true
}

func (c *SeedCommit) anyRevealed() bool {
	for _, p := range c.Players {
		if p.Seed != "" {
			return true
		}
	}
	return false
}

// DigitalReady refuses a digital roll the current epoch is not ready for:
// no epoch, a revealed one, or (scheme 2) seeds still awaited.
func (s *State) DigitalReady() error {
	c := s.Dice.Current()
	if c == nil {
		return Refuse(CodeBadCommand, "match %s has no dice commitment: roll physical dice", s.Match)
	}
	if c.Seed != "" {
		return Refuse(CodeBadCommand, "the dice seed of epoch %d is revealed: no more digital rolls in it", c.Epoch)
	}
	if c.V3() {
		switch r := s.Dice.Request; {
		case r == nil:
			return Refuse(CodeWrongStep, "the digital dice of epoch %d are asked for first ('matchrec roll --digital' records the request)", c.Epoch)
		case len(r.Missing()) > 0:
			return Refuse(CodeContributionPending, "the digital roll of event %d waits for the dice contribution of %s", r.Seq, s.waiting(r))
		}
		return nil
	}
	if why := c.Awaiting(s); why != "" {
		return Refuse(CodeSeedsPending, "digital dice wait for %s (their CLI sends it with their next command, or 'matchrec seed')", why)
	}
	return nil
}

// applyDice folds the epoch events; handled is false for other events.
func applyDice(s *State, e *events.Event, p events.Payload) (bool, error) {
	switch p := p.(type) {
	case *events.DiceCommitted:
		c := SeedCommit{Match: e.Match, Epoch: p.Epoch, Commit: p.Commit, Scheme: p.Scheme, Seq: e.Seq}
		if c.V2() {
			for _, pl := range s.Players {
				c.Players = append(c.Players, EpochSeed{Player: pl.ID})
			}
		}
		s.Dice.Epoch = p.Epoch
		s.Dice.Commits = append(s.Dice.Commits, c)
	case *events.SeedContributed:
		s.Dice.PlayerSeeds = append(s.Dice.PlayerSeeds, p.Seed)
	case *events.DiceRevealed:
		// The epoch of this match (a branch never reveals its parent's).
		for i := range s.Dice.Commits {
			if c := &s.Dice.Commits[i]; c.Epoch == p.Epoch && c.Match == e.Match {
				c.Seed, c.RevealedAt = p.Seed, e.Seq
			}
		}
	case *events.SeedCommitted:
		c, ps, err := seedTarget(s, p.Epoch, p.Player)
		if err != nil {
			return true, err
		}
		switch {
		case ps.Commit != "" || ps.Excused:
			return true, fmt.Errorf("%s's seed of epoch %d is already committed or excused", p.Player, p.Epoch)
		case c.anyRevealed():
			return true, fmt.Errorf("a seed of epoch %d is already revealed: commitments are closed", p.Epoch)
		case !dice.ValidCommit(p.Commit):
			return true, fmt.Errorf("a seed commitment is 64 hex digits")
		}
		ps.Commit = p.Commit
	case *events.SeedRevealed:
		c, ps, err := seedTarget(s, p.Epoch, p.Player)
		if err != nil {
			return true, err
		}
		seed, herr := hex.DecodeString(p.Seed)
		switch {
		case ps.Excused || ps.Seed != "":
			return true, fmt.Errorf("%s's seed of epoch %d is already revealed or excused", p.Player, p.Epoch)
		case !c.allCommitted():
			return true, fmt.Errorf("a seed of epoch %d is revealed before every player committed", p.Epoch)
		case herr != nil || len(seed) != dice.SeedSize || !dice.CheckCommit(seed, ps.Commit):
			return true, fmt.Errorf("%s's revealed seed of epoch %d does not match the commitment", p.Player, p.Epoch)
		}
		ps.Seed = p.Seed
	case *events.SeedExcused:
		_, ps, err := seedTarget(s, p.Epoch, p.Player)
		if err != nil {
			return true, err
		}
		if ps.Seed != "" || ps.Excused {
			return true, fmt.Errorf("%s's seed of epoch %d is already revealed or excused", p.Player, p.Epoch)
		}
		ps.Excused = true
	case *events.RevealRequested:
		if c := s.Dice.Current(); c == nil || c.Epoch != p.Epoch || c.Seed != "" {
			return true, fmt.Errorf("epoch %d is not the open epoch", p.Epoch)
		}
	case *events.DiceRolled:
		if p.Source == events.SourceDigital && !e.Legacy && s.Dice.Current() != nil {
			if err := s.DigitalReady(); err != nil {
				return false, err
			}
			if r := s.Dice.Request; r != nil && s.Dice.Current().V3() {
				if p.Roller != r.Roller || p.Count != r.Count {
					return false, fmt.Errorf("the digital roll is not the one requested at event %d (%s, %d dice)", r.Seq, r.Roller, r.Count)
				}
				s.Dice.Request = nil // completed
			}
		}
		return false, nil // the witness fold and the edition fold the roll itself
	case *events.MatchJoined:
		return true, applyJoin(s, e, p)
	case *events.DiceRequested, *events.DiceContributed:
		return true, applyRequest(s, e, p)
	default:
		return false, nil
	}
	return true, nil
}

// seedTarget finds a player's part of the current scheme 2 epoch, which
// must be number epoch and still open.
func seedTarget(s *State, epoch int, player string) (*SeedCommit, *EpochSeed, error) {
	c := s.Dice.Current()
	if c == nil || c.Epoch != epoch || !c.V2() || c.Seed != "" {
		return nil, nil, fmt.Errorf("epoch %d is not the open scheme 2 epoch", epoch)
	}
	ps := c.player(player)
	if ps == nil {
		return nil, nil, fmt.Errorf("%s is not a player of epoch %d", player, epoch)
	}
	return c, ps, nil
}

// decideDice decides the seed commands; handled is false for others.
func decideDice(s *State, actor events.Actor, c Command) ([]events.Payload, bool, error) {
	isPlayer := actor.Kind == events.ActorPlayer && s.Player(actor.ID) != nil
	switch c.Type {
	case CmdSeed:
		return nil, true, Refuse(CodeBadCommand, "free dice seeds are no longer taken: each epoch's seeds are committed and revealed (seed-commit, seed-reveal; the CLI does it)")
	case CmdSeedCommit, CmdSeedReveal:
		if !isPlayer {
			return nil, true, Refuse(CodeWrongPlayer, "only a player of the match has a dice seed")
		}
		if s.Ended {
			return nil, true, Refuse(CodeMatchEnded, "the match is over: no more seeds")
		}
		due, cur := s.SeedDue(actor.ID)
		if cur == nil || cur.Epoch != c.Epoch {
			return nil, true, Refuse(CodeWrongStep, "epoch %d is not the open dice epoch", c.Epoch)
		}
		if c.Type == CmdSeedCommit {
			if due != SeedCommitDue {
				return nil, true, Refuse(CodeWrongStep, "no seed commitment is due from %s in epoch %d", s.PlayerName(actor.ID), c.Epoch)
			}
			if !dice.ValidCommit(c.Commit) {
				return nil, true, Refuse(CodeBadCommand, "a seed commitment is the SHA-256 of the seed: 64 lowercase hex digits")
			}
			return []events.Payload{&events.SeedCommitted{Epoch: c.Epoch, Player: actor.ID, Commit: c.Commit}}, true, nil
		}
		if due != SeedRevealDue {
			return nil, true, Refuse(CodeWrongStep, "no seed reveal is due from %s in epoch %d (%s)", s.PlayerName(actor.ID), c.Epoch, or(cur.Awaiting(s), "nothing is awaited"))
		}
		seed, err := hex.DecodeString(c.Seed)
		if err != nil || len(seed) != dice.SeedSize || !dice.CheckCommit(seed, cur.player(actor.ID).Commit) {
			return nil, true, Refuse(CodeBadCommand, "the seed does not match %s's commitment of epoch %d", s.PlayerName(actor.ID), c.Epoch)
		}
		return []events.Payload{&events.SeedRevealed{Epoch: c.Epoch, Player: actor.ID, Seed: strings.ToLower(c.Seed)}}, true, nil
	case CmdExcuse:
		if actor.Kind != events.ActorJudge {
			return nil, true, Refuse(CodeWrongPlayer, "only the judge may excuse a dice seed")
		}
		cur := s.Dice.Current()
		if cur == nil || cur.Epoch != c.Epoch || !cur.V2() || cur.Seed != "" {
			return nil, true, Refuse(CodeWrongStep, "epoch %d is not the open dice epoch", c.Epoch)
		}
		ps := cur.player(c.Player)
		if ps == nil {
			return nil, true, Refuse(CodeBadCommand, "%q is not a player of this match", c.Player)
		}
		if ps.Seed != "" || ps.Excused {
			return nil, true, Refuse(CodeWrongStep, "%s's seed of epoch %d is already revealed or excused", s.PlayerName(c.Player), c.Epoch)
		}
		return []events.Payload{&events.SeedExcused{Epoch: c.Epoch, Player: c.Player, Reason: c.Reason}}, true, nil
	case CmdReveal:
		if actor.Kind != events.ActorJudge {
			return nil, true, Refuse(CodeNotJudge, "only the judge may have the dice seed revealed")
		}
		cur := s.Dice.Current()
		if s.Ended || cur == nil || cur.Seed != "" {
			return nil, true, Refuse(CodeWrongStep, "no dice epoch is open")
		}
		return []events.Payload{&events.RevealRequested{Epoch: cur.Epoch}}, true, nil
	}
	return nil, false, nil
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// SeedCommand is the seed command player owes the current epoch now, with
// the seed derived from the player's secret (dice.DerivePlayerSeed): what
// a client sends before its next command, so a player never has to think
// about seeds. ok is false when nothing is due.
func (s *State) SeedCommand(player string, secret []byte) (c Command, ok bool) {
	due, cur := s.SeedDue(player)
	if due == "" {
		return Command{}, false
	}
	seed := dice.DerivePlayerSeed(secret, cur.ID(), player)
	if due == SeedCommitDue {
		return Command{Type: CmdSeedCommit, Epoch: cur.Epoch, Commit: dice.Commit(seed)}, true
	}
	return Command{Type: CmdSeedReveal, Epoch: cur.Epoch, Seed: hex.EncodeToString(seed)}, true
}
