package h1

import "sync"

// aheadBuf is the most Ready reads at once: what an event stream's reader
// reads into while its upstream sends no faster than it is read
// (proxy/upstream/internal/sse).
const aheadBuf = 1 << 10

// aheads are the buffers of Ready's reads, each held only until the body's
// next Read takes its bytes.
var aheads = sync.Pool{New: func() any { return new([aheadBuf]byte) }}
