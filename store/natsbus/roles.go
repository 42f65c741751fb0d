package natsbus

import (
	"slices"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/matchrec/matchrec/store/api"
)

// Role is who a NATS user is to matchrec. NATS itself enforces what each
// role may do (RolePermissions): matchrec adds no checks of its own on top
// of an open bus.
type Role string

const (
	// RoleRecorder is the recorder process: it publishes events, manages
	// the stream and answers API requests.
	RoleRecorder Role = "recorder"
	// RoleClient is the CLI, scripts and `nats` CLI users: API requests,
	// reading events; never publishing them, never rewriting the stream.
	RoleClient Role = "client"
	// RoleViewer only watches: events and the read-only verbs.
	RoleViewer Role = "viewer"
)

// Roles lists every role, recorder first.
var Roles = []Role{RoleRecorder, RoleClient, RoleViewer}

// InboxPrefix is the role's reply-subject prefix (nats.CustomInboxPrefix;
// `nats --inbox-prefix` for the stock CLI). A role may subscribe to its own
// prefix only, so no role receives the replies meant for another, and
// nobody may subscribe to the default _INBOX.>.
func InboxPrefix(r Role) string { return "_INBOX_" + string(r) }

// ViewerVerbs are the API verbs a viewer may call: those that only read
// and cost about what they return. sql and export are reads too, but an
// anonymous query can cost the recorder minutes, so they are the client's.
var ViewerVerbs = []string{
	api.VerbPing, api.VerbMatches, api.VerbState, api.VerbEvents,
	api.VerbBundle, api.VerbBranches, api.VerbDiff, api.VerbBusCheck,
	api.VerbLogCheckpoint, api.VerbLogProve, api.VerbLogConsistency,
}

// JetStream API subjects (the default domain's $JS.API prefix).
const (
	jsAPI = "$JS.API."
	// What reading the stream through an ephemeral ordered consumer needs:
	// stream info, consumer create (both subject forms), info and next.
	jsStreamInfo     = jsAPI + "STREAM.INFO." + StreamName
	jsConsumerCreate = jsAPI + "CONSUMER.CREATE." + StreamName
	jsConsumerInfo   = jsAPI + "CONSUMER.INFO." + StreamName + ".>"
	jsMsgNext        = jsAPI + "CONSUMER.MSG.NEXT." + StreamName + ".>"
)

// streamReaders is what every role needs to read MATCHREC. Deleting,
// pausing or otherwise touching consumers is not in it: a client could
// otherwise stop other people's live feeds.
var streamReaders = []string{jsAPI + "INFO", jsStreamInfo, jsConsumerCreate, jsConsumerCreate + ".>", jsConsumerInfo, jsMsgNext}

// rewriteStream is what no client may do to the stream: delete or purge it
// or its messages, change its configuration, create streams, or create
// durable consumers (the old subject form; the new form cannot be told
// from an ephemeral by subject, see docs/security.md).
var rewriteStream = []string{
	jsAPI + "STREAM.CREATE.>", jsAPI + "STREAM.UPDATE.>", jsAPI + "STREAM.DELETE.>",
	jsAPI + "STREAM.PURGE.>", jsAPI + "STREAM.MSG.DELETE.>", jsAPI + "CONSUMER.DURABLE.CREATE.>",
}

// Permissions are one role's rights, in NATS' own terms. Deny entries
// win over allow entries; anything not allowed is denied.
type Permissions struct {
	PubAllow, PubDeny []string
	SubAllow, SubDeny []string
	// AllowResponses lets the user publish one reply to the reply subject
	// of each request it received, and nothing else there.
	AllowResponses bool
}

// RolePermissions returns what r may do. The tables in docs/security.md
// and its stand-alone server configuration say the same (a test holds
// them to it).
func RolePermissions(r Role) Permissions {
	events := SubjectPrefix + ">"
	apis := APIPrefix + ">"
	cancels := CancelPrefix + "*" // a caller that stops waiting cancels its request
	switch r {
	case RoleRecorder:
		return Permissions{
			// The recorder manages its stream and publishes events; even
			// it may not delete or purge them: that takes the server's
			// operator (docs/security.md, "repair").
			PubAllow: []string{events, jsAPI + ">"},
			PubDeny:  []string{jsAPI + "STREAM.DELETE.>", jsAPI + "STREAM.PURGE.>", jsAPI + "STREAM.MSG.DELETE.>"},
			// Only as the API's queue group.
			// The cancellations of the requests it runs (requestctx.go).
			SubAllow:       []string{apis + " " + APIQueue, cancels, InboxPrefix(r) + ".>"},
			AllowResponses: true,
		}
	case RoleClient:
		return Permissions{
			PubAllow: append([]string{apis, cancels}, streamReaders...),
			PubDeny:  append([]string{events}, rewriteStream...),
			SubAllow: []string{events, InboxPrefix(r) + ".>"},
			SubDeny:  []string{apis, "_INBOX.>"},
		}
	case RoleViewer:
		pub := make([]string, 0, len(ViewerVerbs)+1+len(streamReaders))
		pub = append(pub, cancels)
		for _, v := range ViewerVerbs {
			pub = append(pub, APIPrefix+v)
		}
		return Permissions{
			PubAllow: append(pub, streamReaders...),
			PubDeny:  append([]string{events}, rewriteStream...),
			SubAllow: []string{events, InboxPrefix(r) + ".>"},
			SubDeny:  []string{apis, "_INBOX.>"},
		}
	}
	return Permissions{} // unknown role: nothing allowed
}

// responseExpiry is how long the recorder may answer a request: longer
// than any call's timeout (docs/security.md's configuration says the same).
const responseExpiry = 10 * time.Minute

// jwtPermissions is p for a user JWT (the embedded server's users).
func (p Permissions) jwtPermissions() jwt.Permissions {
	var jp jwt.Permissions
	jp.Pub.Allow.Add(p.PubAllow...)
	jp.Pub.Deny.Add(p.PubDeny...)
	jp.Sub.Allow.Add(p.SubAllow...)
	jp.Sub.Deny.Add(p.SubDeny...)
	if p.AllowResponses {
		jp.Resp = &jwt.ResponsePermission{MaxMsgs: 1, Expires: responseExpiry}
	}
	return jp
}

// Equal reports whether sp, as parsed from a server configuration, grants
// exactly p (order aside). Tests use it to hold docs/security.md's
// configuration to RolePermissions.
func (p Permissions) Equal(sp *server.Permissions) bool {
	if sp == nil {
		return false
	}
	same := func(want []string, got *server.SubjectPermission, allow bool) bool {
		var have []string
		if got != nil {
			have = got.Deny
			if allow {
				have = got.Allow
			}
		}
		return slices.Equal(sorted(want), sorted(have))
	}
	var pub, sub *server.SubjectPermission = sp.Publish, sp.Subscribe
	if !same(p.PubAllow, pub, true) || !same(p.PubDeny, pub, false) ||
		!same(p.SubAllow, sub, true) || !same(p.SubDeny, sub, false) {
		return false
	}
	return (sp.Response != nil) == p.AllowResponses
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
