package mcpserve

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// askState is what a call's retry needs of the call it was asked about:
// the action it was parked on, and the call's and turn's ids, which the
// resumed call takes over.
type askState struct {
	Action string `json:"a"`
	Call   string `json:"c"`
	Turn   string `json:"t"`
}

// stateSeal seals the requestState a client echoes in its retry. The
// client holds it, so it carries a MAC under a key of this process, over
// the state and what the retry must repeat: the client key, the tool and
// the arguments (a retry with other arguments would run what nobody
// approved). A retry that reaches another replica, or this one after a
// restart, is refused; the client calls the tool afresh.
type stateSeal struct{ key []byte }

func newStateSeal() stateSeal {
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand.Read does not fail
	return stateSeal{key: key}
}

var errBadState = errors.New("not one this server issued for this key, tool and arguments; call the tool again")

func (s stateSeal) seal(st askState, keyName, tool string, args json.RawMessage) string {
	body, _ := json.Marshal(st)
	enc := base64.RawURLEncoding.EncodeToString(body)
	return enc + "." + base64.RawURLEncoding.EncodeToString(s.mac(enc, keyName, tool, args))
}

func (s stateSeal) open(token, keyName, tool string, args json.RawMessage) (askState, error) {
	var st askState
	enc, sig, ok := strings.Cut(token, ".")
	got, err := base64.RawURLEncoding.DecodeString(sig)
	if !ok || err != nil || !hmac.Equal(got, s.mac(enc, keyName, tool, args)) {
		return st, errBadState
	}
	body, err := base64.RawURLEncoding.DecodeString(enc)
	if err != nil || json.Unmarshal(body, &st) != nil || st.Action == "" || st.Call == "" {
		return askState{}, errBadState
	}
	return st, nil
}

func (s stateSeal) mac(enc, keyName, tool string, args json.RawMessage) []byte {
	m := hmac.New(sha256.New, s.key)
	for _, part := range [][]byte{[]byte(enc), []byte(keyName), []byte(tool), canonical(args)} {
		m.Write(part)
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// canonical is args as Go writes them (object keys sorted, no spaces;
// numbers as written), so that a client that writes its retry's
// arguments in another order or spacing matches.
func canonical(args json.RawMessage) []byte {
	d := json.NewDecoder(bytes.NewReader(args))
	d.UseNumber()
	var v, rest any
	if d.Decode(&v) != nil || d.Decode(&rest) != io.EOF {
		return args // not one JSON value: compared as it is
	}
	b, err := json.Marshal(v)
	if err != nil {
		return args
	}
	return b
}
