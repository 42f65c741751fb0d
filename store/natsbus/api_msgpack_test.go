package natsbus

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/matchrec/matchrec/events"
	"github.com/matchrec/matchrec/events/auth"
	"github.com/matchrec/matchrec/projector"
	"github.com/matchrec/matchrec/store"
	"github.com/matchrec/matchrec/store/api"
)

// A Go client with Msgpack speaks msgpack for the commands, on the same
// subjects, and gets what a JSON client gets: the same results, the same
// errors; the JSON client (the nats CLI's way) is unchanged beside it.
func TestAPIMsgpackClient(t *testing.T) {
	srv := startServer(t, t.TempDir(), EmbeddedOptions{DontListen: true})
	snc, _ := connect(t, srv)
	var encodings []string
	key, _ := auth.GenerateKey("", "")
	h := api.Verbs{
		api.VerbDeclare: func(_ context.Context, body []byte) (any, error) {
			var req api.ExecuteRequest
			if err := api.Bind(body, &req); err != nil {
				return nil, err
			}
			enc := "json"
			if api.IsMsgpack(body) {
				enc = "msgpack"
			}
			encodings = append(encodings, enc)
			if req.Command == nil || req.Command.Type != projector.CmdMove {
				return nil, api.Errorf(projector.CodeWrongPhase, "only moves here")
			}
			return api.Result{
				Match:   req.Match,
				Events:  []api.EventRef{{Seq: req.Head.Seq + 1, Type: events.TypeModelMoved, Hash: events.Hash{7}}},
				Pending: projector.Pending{Kind: "declare", Player: "alice", Text: echo(req)}, // what the handler read
				Receipt: &auth.Receipt{Match: req.Match, Seq: 13, Hash: events.Hash{8}, Recorder: key.Public(), Signature: make([]byte, 64)},
				Request: req.RequestID,
			}, nil
		},
	}
	serve(t, snc, h)
	cnc, _ := connect(t, srv)
	ctx := context.Background()
	x, y := 9.5, 32.0
	req := api.ExecuteRequest{Match: "m1", Token: "t", RequestID: "00ff", Head: &store.Head{Seq: 12, Hash: events.Hash{9}}, Statement: []byte{1, 2},
		Command: &projector.Command{Type: projector.CmdMove, Unit: "dev", Model: "dev-1", X: &x, Y: &y, Weapons: map[string]string{"a": "b"},
			Options: map[string]float64{"o": 1.5}, Models: []string{"m"}, Values: []int{1, 6}, Digital: true, Event: 3, Keys: map[string]string{"k": "v"},
			Snap: true, FocusFire: "2+", Epoch: 2, Upto: 4, At: 5, Kind: "normal", Purpose: "hit", Advance: true, Indices: []int{0}, Hash: "h",
			Commit: "c", Seed: "s", Decision: "d", Dispute: 1, Player: "p", Name: "n", Reason: "r", Match: "b", Target: "tg"}}
	var viaJSON, viaMsgpack api.Result
	if err := (&Client{Conn: cnc, Timeout: 5 * time.Second}).Call(ctx, api.VerbDeclare, req, &viaJSON); err != nil {
		t.Fatal(err)
	}
	mc := &Client{Conn: cnc, Timeout: 5 * time.Second, Msgpack: true}
	if err := mc.Call(ctx, api.VerbDeclare, req, &viaMsgpack); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viaJSON, viaMsgpack) || viaJSON.Pending.Text != echo(req) {
		t.Fatalf("JSON %+v %+v\nmsgpack %+v %+v", viaJSON, viaJSON.Receipt, viaMsgpack, viaMsgpack.Receipt)
	}
	if !reflect.DeepEqual(encodings, []string{"json", "msgpack"}) {
		t.Fatalf("the handler saw %v", encodings)
	}
	// Errors come back the same way.
	bad := req
	bad.Command = &projector.Command{Type: projector.CmdNextTurn}
	err := mc.Call(ctx, api.VerbDeclare, bad, nil)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.Code != projector.CodeWrongPhase {
		t.Fatalf("refusal over msgpack: %v", err)
	}
	// As strictly: an unknown field is bad_request, as in JSON.
	body, _ := events.EncodeValue(map[string]any{"match": "m1", "colour": "red"})
	msg := nats.NewMsg(APIPrefix + api.VerbDeclare)
	msg.Data = body
	msg.Header.Set(HeaderEncoding, EncodingMsgpack)
	rm, err := cnc.RequestMsg(msg, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := decodeMsgpackReply(api.VerbDeclare, rm.Data, nil, nil); !errors.As(err, &ae) || ae.Code != projector.CodeBadRequest {
		t.Fatalf("unknown field over msgpack: %v", err)
	}
	// A JSON body under the msgpack header is refused, not misread.
	msg.Data = []byte(`{"match":"m1"}`)
	if rm, err = cnc.RequestMsg(msg, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := decodeMsgpackReply(api.VerbDeclare, rm.Data, nil, nil); !errors.As(err, &ae) || ae.Code != projector.CodeBadRequest {
		t.Fatalf("JSON under the msgpack header: %v", err)
	}
}

// echo prints a request with what its pointers point to.
func echo(r api.ExecuteRequest) string {
	c, h := *r.Command, *r.Head
	x, y := *c.X, *c.Y
	r.Command, r.Head, c.X, c.Y = nil, nil, nil, nil
	return fmt.Sprintf("%+v %+v %v %v %+v", r, c, x, y, h)
}
