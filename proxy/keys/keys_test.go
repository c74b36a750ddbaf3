package keys

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
	"time"

	"github.com/toolstream/toolstream/config"
	"github.com/toolstream/toolstream/toolhost/store"
)

func hexOf(k string) string {
	s := sha256.Sum256([]byte(k))
	return hex.EncodeToString(s[:])
}

func TestScope(t *testing.T) {
	k := &Key{Models: []string{"qwen*", "fast", "meta-llama/*"}, Tools: []string{"create_*", "list_tasks"}}
	for _, tc := range []struct {
		model string
		ok    bool
	}{
		{"qwen2.5:7b", true}, {"fast", true}, {"faster", false}, {"gpt-4o", false},
		{"meta-llama/Llama-3.1-8B", true}, {"", false},
	} {
		if got := k.AllowsModel(tc.model); got != tc.ok {
			t.Errorf("AllowsModel(%q) = %v, want %v", tc.model, got, tc.ok)
		}
	}
	for _, tc := range []struct {
		tool string
		ok   bool
	}{{"create_task", true}, {"create_card", true}, {"list_tasks", true}, {"delete_task", false}} {
		if got := k.AllowsTool(tc.tool); got != tc.ok {
			t.Errorf("AllowsTool(%q) = %v, want %v", tc.tool, got, tc.ok)
		}
	}
	all := &Key{}
	if !all.AllowsModel("anything/at:all") || !all.AllowsTool("delete_task") || all.Scoped() {
		t.Error("a key without scope must allow everything")
	}
	none := &Key{Tools: []string{}}
	if none.AllowsTool("list_tasks") || !none.Scoped() {
		t.Error("tools: [] must allow no tool")
	}
}

func TestTableLookup(t *testing.T) {
	now := t0
	clock := func() time.Time { return now }
	exp := t0.Add(time.Hour)
	tab := NewTable([]config.ClientKey{
		{Key: "plain-key"},
		{Key: config.Secret("sha256:" + hexOf("hashed-key"))},
		{Name: "kanban-app", Key: "app-key", Tools: []string{"create_card"}, Limits: config.Limits{RequestsPerMinute: 5}},
	}, []store.RuntimeKey{
		{Name: "intern", Hash: hexOf("intern-key"), Tools: []string{"list_tasks"}, ExpiresAt: &exp},
	}, clock)

	for _, tc := range []struct {
		key, name string
		ok        bool
	}{
		{"plain-key", store.KeyID("plain-key"), true},
		{"hashed-key", store.KeyID("hashed-key"), true},
		{"app-key", "kanban-app", true},
		{"intern-key", "intern", true},
		{"sha256:" + hexOf("plain-key"), "", false}, // the hash is not the key
		{"nope", "", false},
		{"", "", false},
	} {
		k, ok := tab.Lookup(tc.key)
		if ok != tc.ok || ok && k.Name != tc.name {
			t.Errorf("Lookup(%q) = %v %v, want %q %v", tc.key, k, ok, tc.name, tc.ok)
		}
	}
	if k, _ := tab.Lookup("app-key"); k.Limiter() == nil {
		t.Error("a limited key has no limiter")
	}
	if k, _ := tab.Lookup("plain-key"); k.Limiter() != nil || k.Scoped() {
		t.Error("a plain key is limited or scoped")
	}
	if tab.Open() {
		t.Error("a table with keys is open")
	}
	if !NewTable(nil, nil, clock).Open() {
		t.Error("an empty table is not open")
	}

	now = exp
	if _, ok := tab.Lookup("intern-key"); ok {
		t.Error("an expired runtime key still works")
	}
}

func TestTableChanges(t *testing.T) {
	tab := NewTable([]config.ClientKey{{Name: "a", Key: "key-a", Limits: config.Limits{RequestsPerMinute: 3}}, {Key: "key-b"}}, nil, func() time.Time { return t0 })

	// A patch makes a new Key; the turn that holds the old one keeps it.
	held := tab.PutRuntime(store.RuntimeKey{Name: "rt", Hash: hexOf("key-rt"), Tools: []string{"x"}, Limits: store.KeyLimits{RequestsPerMinute: 2}})
	held.Limiter().Admit(t0)
	patched := tab.PutRuntime(store.RuntimeKey{Name: "rt", Hash: hexOf("key-rt"), Tools: []string{"y"}, Limits: store.KeyLimits{RequestsPerMinute: 2}})
	if !held.Live(t0) {
		t.Error("a patch revoked the key a running turn holds")
	}
	if k, _ := tab.Lookup("key-rt"); k != patched || !k.AllowsTool("y") || k.AllowsTool("x") {
		t.Error("the next lookup does not see the patch")
	}
	if patched.Limiter() != held.Limiter() {
		t.Error("a patch handed out a fresh limiter: its minute starts over")
	}

	// A revocation reaches the Key a turn holds.
	if !tab.Revoke("rt") || tab.Revoke("rt") {
		t.Error("Revoke reported wrongly")
	}
	if patched.Live(t0) {
		t.Error("a revoked key is live for the turn that holds it")
	}
	if _, ok := tab.Lookup("key-rt"); ok {
		t.Error("a revoked key is found")
	}
	if tab.Revoke("a") {
		t.Error("Revoke removed a key of the config file")
	}

	// A reload that drops a key revokes it; one that keeps it keeps its
	// limiter.
	a, _ := tab.Lookup("key-a")
	b, _ := tab.Lookup("key-b")
	tab.SetConfig([]config.ClientKey{{Name: "a", Key: "key-a", Limits: config.Limits{RequestsPerMinute: 3}}})
	if b.Live(t0) {
		t.Error("a key dropped by a reload is still live")
	}
	a2, _ := tab.Lookup("key-a")
	if !a.Live(t0) || a2.Limiter() != a.Limiter() {
		t.Error("a reload that keeps a key revoked it or reset its limits")
	}
	if _, fromConfig, ok := tab.ByName("a"); !ok || !fromConfig {
		t.Error("ByName does not know the config key")
	}
}
