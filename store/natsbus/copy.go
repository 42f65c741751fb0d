package natsbus

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store/api"
)

// A match's bus copy, and its repair (`matchrec repair-bus MATCH`).
//
// The stream can never lose a message (DenyDelete, DenyPurge: not even
// the recorder may remove one), so a copy that holds something the
// recorder never wrote — a forgery on an open bus, an answer someone
// steered onto the match's subject — cannot be cleaned where it is. It is
// superseded instead: the relay republishes the match's own events from
// the record, in order, after everything the subject holds (each with the
// expected last subject sequence, so nothing slips in between), and then
// publishes a notice, signed with the recorder's identity, on
// matchrec.events.<match>.copy: the match's copy now starts at that
// stream sequence. Followers (Subscribe), the bus check and the relay
// itself read the subject from the latest notice on, so one match is
// repaired without touching any other — the alternative is deleting the
// whole stream, every match's copy with it.

// CopyDomain is the signature domain of copy notices.
const CopyDomain = auth.BusCopyDomain

// copySuffix ends the subject of a match's copy notices.
const copySuffix = ".copy"

// CopySubject is the subject of match's copy notices.
func CopySubject(match string) (string, error) {
	s, err := Subject(match)
	return s + copySuffix, err
}

// CopyNotice says where a match's current bus copy starts.
type CopyNotice struct {
	Match string `json:"match"`
	// Base is the stream sequence of the copy's first message; First the
	// event it holds (the match's first own event).
	Base  uint64 `json:"base"`
	First uint64 `json:"first"`
	// Superseded counts the messages on the match's subject before Base:
	// the old copies, and whatever the recorder never wrote.
	Superseded uint64    `json:"superseded"`
	Reason     string    `json:"reason,omitempty"`
	Time       time.Time `json:"time"`
}

// copySignature is what a notice's Matchrec-Sig signs: the match, a zero
// byte, then Base, First and Superseded (8 bytes each, big-endian).
func copySignature(n CopyNotice) []byte {
	b := make([]byte, 0, len(n.Match)+1+24)
	b = append(b, n.Match...)
	b = append(b, 0)
	b = binary.BigEndian.AppendUint64(b, n.Base)
	b = binary.BigEndian.AppendUint64(b, n.First)
	return binary.BigEndian.AppendUint64(b, n.Superseded)
}

// newCopyMsg is the message of notice n, signed.
func newCopyMsg(n CopyNotice, sign Signer) (*nats.Msg, error) {
	subj, err := CopySubject(n.Match)
	if err != nil {
		return nil, err
	}
	if sign == nil {
		return nil, errors.New("natsbus: a copy notice must be signed (the relay has no identity)")
	}
	data, err := json.Marshal(n)
	if err != nil {
		return nil, err
	}
	h := nats.Header{HeaderSig: []string{base64.StdEncoding.EncodeToString(sign.Sign(CopyDomain, copySignature(n)))}}
	return &nats.Msg{Subject: subj, Data: data, Header: h}, nil
}

// LatestCopy reads match's newest copy notice from s and checks it is the
// recorder's (signed with key); ok is false when there is none: the copy
// is the subject from its first message. A notice that is not the
// recorder's is an error (ErrNotRecorders).
func LatestCopy(ctx context.Context, s jetstream.Stream, match string, key ed25519.PublicKey) (n CopyNotice, ok bool, err error) {
	subj, err := CopySubject(match)
	if err != nil {
		return n, false, err
	}
	// A stream info first: it needs no more rights than reading does,
	// and a match never repaired (nearly all) costs nothing else.
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(subj))
	if err != nil {
		return n, false, fmt.Errorf("natsbus: copy notices of %s: %w", match, err)
	}
	if info.State.Subjects[subj] == 0 {
		return n, false, nil
	}
	m, err := s.GetLastMsgForSubject(ctx, subj)
	if err != nil {
		return n, false, fmt.Errorf("natsbus: copy notice of %s: %w", match, err)
	}
	if err := json.Unmarshal(m.Data, &n); err != nil || n.Match != match {
		return n, false, fmt.Errorf("%w: the copy notice of %s at stream sequence %d does not read (%v)", ErrNotRecorders, match, m.Sequence, err)
	}
	sig, err := base64.StdEncoding.DecodeString(m.Header.Get(HeaderSig))
	if err != nil || key == nil || !auth.Verify(key, CopyDomain, copySignature(n), sig) {
		return n, false, fmt.Errorf("%w: the copy notice of %s at stream sequence %d is not signed by the recorder", ErrNotRecorders, match, m.Sequence)
	}
	return n, true, nil
}

// copyKeyer is a Check that knows the recorder's key, so Subscribe can
// read the match's copy from its latest notice.
type copyKeyer interface{ copyKey() ed25519.PublicKey }

func (c *SignatureCheck) copyKey() ed25519.PublicKey { return c.Key }
func (c RecordCheck) copyKey() ed25519.PublicKey     { return c.Key }

// copyStart is the stream sequence a follower reads match from: the base
// of its latest copy (0 when there is none, or no key to check one with).
func copyStart(ctx context.Context, js jetstream.JetStream, match string, check Check) (uint64, error) {
	k, ok := check.(copyKeyer)
	if !ok || k.copyKey() == nil {
		return 0, nil
	}
	s, err := js.Stream(ctx, StreamName)
	if err != nil {
		return 0, fmt.Errorf("natsbus: %w", err)
	}
	n, ok, err := LatestCopy(ctx, s, match, k.copyKey())
	if err != nil || !ok {
		return 0, err
	}
	return n.Base, nil
}

// RepairResult says what a repair did.
type RepairResult = api.RepairBusResult

// repairReq is a repair asked of the relay's goroutine.
type repairReq struct {
	match string
	done  chan repairDone
}

type repairDone struct {
	res RepairResult
	err error
}

// Repair makes match's bus copy the record's again (see above): unless
// the copy already equals the record, the relay republishes the match's
// own events after whatever the subject holds and publishes a copy
// notice. It runs on the relay's goroutine, between rounds, so no other
// publish of the match interleaves; it waits for it, or for ctx.
func (r *Relay) Repair(ctx context.Context, match string) (RepairResult, error) {
	if _, err := Subject(match); err != nil {
		return RepairResult{}, api.Errorf(projector.CodeBadRequest, "%v", err)
	}
	req := repairReq{match: match, done: make(chan repairDone, 1)}
	select {
	case r.repairs <- req:
	case <-ctx.Done():
		return RepairResult{}, ctx.Err()
	}
	select {
	case d := <-req.done:
		return d.res, d.err
	case <-ctx.Done():
		return RepairResult{}, ctx.Err()
	}
}

// repair does Repair's work on the relay's goroutine.
func (r *Relay) repair(ctx context.Context, js jetstream.JetStream, match string) (RepairResult, error) {
	res := RepairResult{Match: match}
	if r.stream == nil {
		if err := r.checkStream(ctx, js); err != nil {
			return res, err
		}
	}
	check, err := BusCheck(ctx, js, r.st, match, r.key())
	if err != nil {
		return res, err
	}
	if check.Equal && !r.forged(match) {
		res.Equal = true
		return res, nil
	}
	head, err := r.st.Head(ctx, match)
	if err != nil {
		return res, err
	}
	start, err := r.ownStart(ctx, match)
	if err != nil {
		return res, err
	}
	subj, _ := Subject(match)
	sctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
	last, err := r.stream.GetLastMsgForSubject(sctx, subj)
	cancel()
	var expect uint64
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
	case err != nil:
		return res, fmt.Errorf("natsbus: repair %s: %w", match, err)
	default:
		expect = last.Sequence
	}
	on, err := r.subjectCount(ctx, match)
	if err != nil {
		return res, err
	}
	pos := busPos{stream: expect}
	var base uint64
	for from := start; from <= head.Seq; {
		evs, err := r.readRecord(ctx, match, from, head.Seq, r.opts.Batch)
		if err != nil {
			return res, err
		}
		if len(evs) == 0 {
			break
		}
		for _, e := range evs {
			msg, err := NewMsg(e, r.opts.Sign)
			if err != nil {
				return res, err
			}
			msg.Header[jetstream.ExpectedLastSubjSeqHeader] = []string{strconv.FormatUint(pos.stream, 10)}
			pctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
			pa, err := js.PublishMsg(pctx, msg, jetstream.WithRetryAttempts(0))
			cancel()
			if err != nil {
				// Someone else wrote the subject meanwhile (or the bus went
				// away): what was republished stays, superseded by the next
				// repair.
				r.bus[match] = pos
				return res, fmt.Errorf("natsbus: repair %s: republish event %d: %w", match, e.Seq, err)
			}
			if base == 0 {
				base = pa.Sequence
			}
			pos = busPos{seq: e.Seq, hash: e.Hash, stream: pa.Sequence}
			res.Republished++
			r.health.msgs++
		}
		from = evs[len(evs)-1].Seq + 1
	}
	n := CopyNotice{Match: match, Base: base, First: start, Superseded: on, Time: time.Now().UTC(),
		Reason: fmt.Sprintf("repair-bus: %s", check.Problem)}
	if d, ok := r.Differs(match); ok {
		n.Reason = "repair-bus: " + d.Reason
	}
	if base == 0 { // nothing of its own recorded yet: the copy starts after what is there
		n.Base = expect + 1
	}
	msg, err := newCopyMsg(n, r.opts.Sign)
	if err != nil {
		return res, err
	}
	pctx, cancel := context.WithTimeout(ctx, r.opts.AckTimeout)
	_, err = js.PublishMsg(pctx, msg)
	cancel()
	if err != nil {
		return res, fmt.Errorf("natsbus: repair %s: publish the copy notice: %w", match, err)
	}
	r.health.msgs++
	r.bus[match] = pos
	r.copies[match] = n
	delete(r.pending, match)
	r.backlog.Store(int64(len(r.pending)))
	r.mu.Lock()
	delete(r.diffs, match)
	r.mu.Unlock()
	res.Base, res.Superseded = n.Base, n.Superseded
	r.log.Warn().Str("match", match).Uint64("republished", res.Republished).Uint64("superseded", n.Superseded).
		Uint64("base", n.Base).Str("reason", n.Reason).Msg("repaired the bus copy of a match: it starts anew from the record")
	return res, nil
}

// key is the recorder's public key, when its signer has one.
func (r *Relay) key() ed25519.PublicKey {
	if k, ok := r.opts.Sign.(interface{ PublicKey() ed25519.PublicKey }); ok {
		return k.PublicKey()
	}
	return nil
}

// onCopy is how many of the on messages of match's subject are its
// current copy: those after the superseded ones (all, never repaired), as
// the relay last read its copy notice.
func (r *Relay) onCopy(match string, on uint64) uint64 {
	return on - min(on, r.copies[match].Superseded)
}

// readCopies reads the copy notice of every match the stream has one for
// (subjects lists each subject's message count).
func (r *Relay) readCopies(ctx context.Context, subjects map[string]uint64) error {
	for subj := range subjects {
		match, ok := copyMatch(subj)
		if !ok {
			continue
		}
		n, found, err := LatestCopy(ctx, r.stream, match, r.key())
		if err != nil {
			if errors.Is(err, ErrNotRecorders) {
				r.flag(BusDiff{Match: match, Forged: true, Reason: err.Error()})
				continue
			}
			return err
		}
		if found {
			r.copies[match] = n
		}
	}
	return nil
}

// copyMatch is the match a copy-notice subject belongs to.
func copyMatch(subj string) (string, bool) {
	if len(subj) <= len(SubjectPrefix)+len(copySuffix) || subj[:len(SubjectPrefix)] != SubjectPrefix || subj[len(subj)-len(copySuffix):] != copySuffix {
		return "", false
	}
	match := subj[len(SubjectPrefix) : len(subj)-len(copySuffix)]
	return match, events.ValidMatchID(match)
}
