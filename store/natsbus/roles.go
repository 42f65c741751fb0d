package natsbus

import (
	"slices"
	"strings"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"

	"github.com/matchrec/matchrec/store/api"
)

// Role is who a NATS user is to matchrec. NATS itself enforces what each
// role may do (RolePermissions): matchrec adds no checks of its own on top
// of an open bus.
type Role string

const (
	// RoleRecorder is the recorder process's bus side: it publishes
	// events and manages the stream.
	RoleRecorder Role = "recorder"
	// RoleAPI is the recorder process's API side: it hears the requests
	// (as the queue group) and answers them, on the callers' inboxes and
	// nowhere else — never on the stream, JetStream's API or another
	// subject a request's reply could name (issue 22: a viewer's ping
	// with the reply subject matchrec.events.<match> made the recorder
	// write its answer into that match's stream).
	RoleAPI Role = "api"
	// RoleClient is the CLI, scripts and `nats` CLI users: API requests,
	// reading events; never publishing them, never rewriting the stream.
	RoleClient Role = "client"
	// RoleViewer only watches: events and the read-only verbs.
	RoleViewer Role = "viewer"
)

// Roles lists every role, the recorder's first.
var Roles = []Role{RoleRecorder, RoleAPI, RoleClient, RoleViewer}

// Callers are the roles that may call verb: every verb the client's, the
// viewer's ViewerVerbs.
func Callers(verb string) []Role {
	if slices.Contains(ViewerVerbs, verb) {
		return []Role{RoleClient, RoleViewer}
	}
	return []Role{RoleClient}
}

// RoleReply reports whether the answer to a request on verb may go to
// reply: into the inbox of a role that may call verb (InboxPrefix + "."
// and a token), on the embedded server, where every caller has its
// role's inbox. It is ServeOptions.Reply there; the API user's
// permissions say the same to the server (RolePermissions(RoleAPI)).
func RoleReply(verb, reply string) bool {
	if !InboxReply(verb, reply) {
		return false
	}
	for _, r := range Callers(verb) {
		if rest, ok := strings.CutPrefix(reply, InboxPrefix(r)+"."); ok && rest != "" {
			return true
		}
	}
	return false
}

// InboxReply reports whether reply is in an inbox namespace — _INBOX.…
// or _INBOX_<name>.… — whatever the verb: the default ServeOptions.Reply,
// for a server matchrec does not configure, whose users may have inbox
// prefixes of their own (one user per person). It never lets a reply
// reach the stream (matchrec.events.>), the API or its cancellations,
// JetStream ($JS.API.>), a KV bucket ($KV.>) or the system ($SYS.>).
func InboxReply(_ string, reply string) bool {
	first, rest, ok := strings.Cut(reply, ".")
	if !ok || rest == "" || strings.HasPrefix(rest, ".") || strings.ContainsAny(reply, "*> \t\r\n") {
		return false
	}
	return first == "_INBOX" || (strings.HasPrefix(first, "_INBOX_") && len(first) > len("_INBOX_"))
}

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
	// A repaired match's latest copy notice (copy.go).
	jsMsgGet = jsAPI + "STREAM.MSG.GET." + StreamName
	// Deleting one's own consumer: the stock nats CLI (and nats.go's
	// ordered consumers on a reset) delete the consumer they made as they
	// leave; refused, every such leave was a permissions violation in the
	// recorder's log.
	jsConsumerDelete = jsAPI + "CONSUMER.DELETE." + StreamName + ".>"
)

// streamReaders is what every role needs to read MATCHREC. Deleting a
// consumer is in it, by name only: a consumer's name is random, known to
// whoever made it, and nobody else can learn it (listing names, consumer
// advisories are not allowed), so nobody stops another's live feed.
// Pausing, resetting or changing consumers is not in it.
var streamReaders = []string{jsAPI + "INFO", jsStreamInfo, jsConsumerCreate, jsConsumerCreate + ".>", jsConsumerInfo, jsMsgNext, jsMsgGet, jsConsumerDelete}

// rewriteStream is what no client may do to the stream: delete or purge it
// or its messages, change its configuration, create streams, or create
// durable consumers (the old subject form; the new form cannot be told
// from an ephemeral by subject, see docs/security.md).
var rewriteStream = []string{
	jsAPI + "STREAM.CREATE.>", jsAPI + "STREAM.UPDATE.>", jsAPI + "STREAM.DELETE.>",
	jsAPI + "STREAM.PURGE.>", jsAPI + "STREAM.MSG.DELETE.>", jsAPI + "CONSUMER.DURABLE.CREATE.>",
}

// Permissions are one role's rights, in NATS' own terms. Deny entries
// win over allow entries; anything not allowed is denied. No role has
// allow_responses: it lets a user publish on any subject a request names
// as its reply, past its allow and deny lists.
type Permissions struct {
	PubAllow, PubDeny []string
	SubAllow, SubDeny []string
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
			// operator (docs/security.md, "repair"). It hears no request:
			// nothing can make it publish where it does not mean to.
			PubAllow: []string{events, jsAPI + ">"},
			PubDeny:  []string{jsAPI + "STREAM.DELETE.>", jsAPI + "STREAM.PURGE.>", jsAPI + "STREAM.MSG.DELETE.>"},
			SubAllow: []string{InboxPrefix(r) + ".>"},
		}
	case RoleAPI:
		// Replies are plain publishes into the callers' inboxes: no
		// allow_responses, which would let it answer on whatever subject a
		// request names, whatever the allow and deny lists say.
		var inboxes []string
		for _, c := range []Role{RoleClient, RoleViewer} {
			inboxes = append(inboxes, InboxPrefix(c)+".>")
		}
		return Permissions{
			PubAllow: inboxes,
			PubDeny:  []string{events, apis, CancelPrefix + ">", "$JS.>", "$KV.>", "$SYS.>", "_INBOX.>"},
			// Only as the API's queue group; the cancellations of the
			// requests it runs (requestctx.go).
			SubAllow: []string{apis + " " + APIQueue, cancels, InboxPrefix(r) + ".>"},
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

// jwtPermissions is p for a user JWT (the embedded server's users).
func (p Permissions) jwtPermissions() jwt.Permissions {
	var jp jwt.Permissions
	jp.Pub.Allow.Add(p.PubAllow...)
	jp.Pub.Deny.Add(p.PubDeny...)
	jp.Sub.Allow.Add(p.SubAllow...)
	jp.Sub.Deny.Add(p.SubDeny...)
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
	return sp.Response == nil
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
