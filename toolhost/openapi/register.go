package openapi

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"

	"github.com/toolstream/toolstream/toolhost"
)

// Sources keeps the openapi_tools sources registered in a Host, so that
// a reload can drop those no longer configured.
type Sources struct {
	host *toolhost.Host
	mu   sync.Mutex
	live map[string]*http.Client // by source name
}

// NewSources registers into host.
func NewSources(host *toolhost.Host) *Sources {
	return &Sources{host: host, live: map[string]*http.Client{}}
}

// Apply makes built the registered sources: each one's tools replace its
// earlier ones, and sources no longer built lose theirs. A source whose
// tools cannot register (a name another source holds) keeps none; every
// such problem is returned.
func (s *Sources) Apply(built []Source) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var errs []string
	next := map[string]*http.Client{}
	for _, src := range built {
		next[src.Name] = src.client
		if err := s.host.SetSource(SourcePrefix+src.Name, src.Tools); err != nil {
			errs = append(errs, fmt.Sprintf("openapi_tools %s: %v", src.Name, err))
			_ = s.host.SetSource(SourcePrefix+src.Name, nil)
		}
	}
	gone := make([]string, 0)
	for name, old := range s.live {
		if _, kept := next[name]; !kept {
			gone = append(gone, name)
		}
		// Calls still running finish on their connection; the idle
		// ones would otherwise linger until their timeout.
		if old != nil && old != next[name] {
			old.CloseIdleConnections()
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		_ = s.host.SetSource(SourcePrefix+name, nil)
	}
	s.live = next
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
