package toolhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/toolstream/toolstream/toolhost/store"
)

// How long a retry can find the calls of its earlier attempt
// (docs/webhooks.md).
const (
	// BodyAttemptTTL: a retry recognised by x-stainless-retry-count and a
	// byte-identical body from the same key counts within 10 minutes.
	BodyAttemptTTL = 10 * time.Minute
	// KeyAttemptTTL: an Idempotency-Key is honoured for a day, as
	// payment APIs that popularised the header do.
	KeyAttemptTTL = 24 * time.Hour
)

// Origin is who asked for a turn's calls: the client key, what it
// pre-approved, and the retry group the turn belongs to. One Origin is
// shared by every call of a turn; it is safe for concurrent use.
type Origin struct {
	// KeyID is the client key's id (store.KeyID); empty without keys.
	KeyID string
	// Source is the route that asked for the call ("chat", "responses",
	// "messages" or "mcp"), kept in the audit log so a call made by an
	// MCP client is told from one a model made in a turn.
	Source string
	// Approve names tools whose approval: always calls this turn runs
	// without asking ("*": all of them); approval: admin tools still ask.
	Approve []string
	// Attempt is the retry group: attempts of the same request share it
	// ([AttemptFromKey], [AttemptFromBody]; filled when first needed
	// after [Origin.GroupByBody]). Empty: calls are not filed.
	Attempt string
	// Retry says this request is a retry: calls an earlier attempt of the
	// group made are not run again.
	Retry bool
	// Keyed says the group came from an Idempotency-Key (a longer TTL).
	Keyed bool
	// Body is the group of the request's exact body ([AttemptFromBody])
	// when Attempt is an Idempotency-Key's. Calls are filed under it too,
	// for BodyAttemptTTL, so a retry recognised by its body alone
	// (x-stainless-retry-count ≥ 1, no key) finds them.
	Body string
	// BodyRetry says a keyed request is also a body retry
	// (x-stainless-retry-count ≥ 1): the calls an earlier attempt filed
	// under Body, with a key or without one, are not run again either.
	BodyRetry bool
	// Require names tools whose calls need approval this turn though
	// their config does not ask for it (require_approval of an mcp tool
	// naming toolstream on /v1/responses); it never lifts a configured
	// approval.
	Require map[string]bool
	// Park says a call that needs approval is not waited on: its action
	// is created pending and the call ends as StatusAwaiting, for the
	// client to decide in its next request (approvals in OpenAI's wire
	// form; see Call.Action).
	Park bool
	// Tools are the tools this turn brought along (the MCP servers its
	// request named): a call of one of them runs it, with its schema and
	// executor, under every rule a registered tool's call is held to.
	Tools *TurnTools

	mu      sync.Mutex
	loaded  bool
	earlier []store.Replay
	used    []bool

	// byBody, when set, is the request whose body's group fills Attempt
	// or Body the first time a call asks (GroupByBody).
	byBody     func() string
	byBodyOnce sync.Once
}

// GroupByBody files the turn's calls under the retry group of its exact
// body ([AttemptFromBody]): as Attempt, or as Body when Attempt is
// already an Idempotency-Key's group. The body is hashed the first time a
// call needs its group, not before: a turn that calls nothing (most) has
// no use for it, and a long conversation's body is hundreds of KiB. body
// must not change while the turn runs.
func (o *Origin) GroupByBody(keyID string, body []byte) {
	o.byBody = func() string { return AttemptFromBody(keyID, body) }
}

// groups returns Attempt and Body, the body's group hashed first when
// GroupByBody deferred it. Calls of a turn may ask at once.
func (o *Origin) groups() (attempt, body string) {
	o.byBodyOnce.Do(func() {
		if o.byBody == nil {
			return
		}
		if o.Attempt == "" {
			o.Attempt = o.byBody()
		} else {
			o.Body = o.byBody()
		}
		o.byBody = nil
	})
	return o.Attempt, o.Body
}

// AttemptFromKey is the retry group of requests carrying the same
// Idempotency-Key from the same client key.
func AttemptFromKey(keyID, idempotencyKey string) string {
	return attemptHash("key", keyID, []byte(idempotencyKey))
}

// AttemptFromBody is the retry group of byte-identical request bodies from
// the same client key (x-stainless-retry-count retries).
func AttemptFromBody(keyID string, body []byte) string {
	return attemptHash("body", keyID, body)
}

func attemptHash(kind, keyID string, data []byte) string {
	h := sha256.New()
	h.Write([]byte(kind))
	h.Write([]byte{0})
	h.Write([]byte(keyID))
	h.Write([]byte{0})
	h.Write(data)
	return "att_" + hex.EncodeToString(h.Sum(nil))[:40]
}

// preApproved reports whether the client pre-approved calls of name.
func (o *Origin) preApproved(name string) bool {
	return o != nil && (slices.Contains(o.Approve, name) || slices.Contains(o.Approve, "*"))
}

// approval is how a call of tool is approved this turn: its configured
// approval, or always when the request asks for it (Require).
func (o *Origin) approval(tool Tool) string {
	if (tool.Approval == "" || tool.Approval == ApprovalNever) && o != nil && o.Require[tool.Name] {
		return ApprovalAlways
	}
	return tool.Approval
}

func (o *Origin) parks() bool { return o != nil && o.Park }

func (o *Origin) attemptTTL() time.Duration {
	if o.Keyed {
		return KeyAttemptTTL
	}
	return BodyAttemptTTL
}

// claim finds the earliest unclaimed call of an earlier attempt with the
// same tool and arguments, and claims it, so that a turn calling the same
// thing twice replays two recorded calls, not one twice.
func (o *Origin) claim(ctx context.Context, records Records, turnID, tool, hash string) (store.Replay, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.loaded {
		// The two retry rules see each other's attempts: a keyed
		// attempt filed its calls under its body's group too, and a
		// keyed body retry reads that group besides its key's. A call
		// found in both is one call.
		attempt, body := o.groups()
		groups := []string{attempt}
		if o.BodyRetry && body != "" && body != attempt {
			groups = append(groups, body)
		}
		seen := map[string]bool{}
		for _, g := range groups {
			all, err := records.Replays(ctx, g)
			if err != nil {
				return store.Replay{}, false, err
			}
			for _, r := range all {
				if r.TurnID != turnID && !seen[r.AuditID] {
					seen[r.AuditID] = true
					o.earlier = append(o.earlier, r)
				}
			}
		}
		// Oldest first across the groups, as Replays orders one.
		slices.SortStableFunc(o.earlier, func(a, b store.Replay) int { return a.StartedAt.Compare(b.StartedAt) })
		o.loaded = true
		o.used = make([]bool, len(o.earlier))
	}
	for i, r := range o.earlier {
		if !o.used[i] && r.Tool == tool && r.ArgsHash == hash {
			o.used[i] = true
			return r, true, nil
		}
	}
	return store.Replay{}, false, nil
}

// replay answers a call of a retried turn from the earlier attempt: the
// recorded result when that call finished, OUTCOME_UNKNOWN when it may
// have run but nobody saw it finish. An idempotent tool whose earlier call
// has no known outcome simply runs again: running it twice is safe.
func (h *Host) replay(ctx context.Context, call Call, tool Tool, hash string, args json.RawMessage) (Result, bool) {
	o := call.Origin
	if o == nil || !o.Retry || h.records == nil {
		return Result{}, false
	}
	if attempt, _ := o.groups(); attempt == "" {
		return Result{}, false
	}
	r, ok, err := o.claim(ctx, h.records, call.TurnID, call.Name, hash)
	if err != nil {
		// Not knowing whether the call already ran, a non-idempotent tool
		// must not run: answering OUTCOME_UNKNOWN is the safe side.
		h.log.LogAttrs(ctx, slog.LevelError, "reading the earlier attempt failed",
			slog.String("tool", call.Name), slog.String("error", err.Error()))
		if tool.Idempotent {
			return Result{}, false
		}
		r, ok = store.Replay{Status: store.StatusOutcomeUnknown}, true
	}
	if !ok {
		return Result{}, false
	}
	var res Result
	switch r.Status {
	case store.StatusOK:
		res = Result{CallID: call.ID, Name: call.Name, Content: r.Content, IsJSON: r.IsJSON, Status: StatusOK}
	case store.StatusError:
		res = ErrorResult(call, r.ErrorCode, r.ErrorMessage)
	case store.StatusCancelled:
		// Cut before its tool got it (one cut after is outcome_unknown,
		// see Outcome.Sent): it never ran, so this attempt runs it.
		return Result{}, false
	default: // started, outcome_unknown
		if tool.Idempotent {
			return Result{}, false
		}
		res = ErrorResult(call, CodeOutcomeUnknown,
			"an earlier attempt of this request started this call and its outcome is unknown: it may already have run, so it was not run again; check before calling it again")
	}
	res.Arguments = args
	h.log.LogAttrs(ctx, slog.LevelInfo, "tool call replayed from an earlier attempt",
		slog.String("tool", call.Name), slog.String("call_id", call.ID),
		slog.String("earlier_audit_id", r.AuditID), slog.String("status", res.Status))
	return res, true
}
