package demo

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/toolstream/toolstream/proxy/upstreamtest"
)

// recordedRequests is how many requests a scripted model that keeps
// serving records: none is read back, and a model serving for hours must
// not grow.
const recordedRequests = 0

// newModel starts the scripted model, its stream paced by pace (zero:
// as fast as it can write).
func newModel(pace time.Duration) *upstreamtest.Server {
	model := upstreamtest.NewFunc(func(req upstreamtest.Request) upstreamtest.Round {
		r := script(req)
		r.Pace = pace
		return r
	})
	model.Keep(recordedRequests)
	return model
}

// ServeModel serves the demo's scripted model alone, as an
// OpenAI-compatible upstream at http://ADDR/v1, until ctx is done (the
// demo's -model-only): the replicas example, the example clients and a
// first config can run with no model server installed. It writes its
// calls as <tool_call> text, so its upstream entry wants tool_mode: text
// (the proxy reads such text calls in any mode). pace slows its stream,
// as Options.Pace does.
func ServeModel(ctx context.Context, addr string, pace time.Duration, out io.Writer) error {
	if out == nil {
		out = io.Discard
	}
	model := newModel(pace)
	defer model.Close()
	model.SetModels(modelName)
	url, stop, err := serve(model.Handler(), addr)
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintf(out, "The demo's scripted model serves %s/v1 (model %q; Ctrl-C to stop). An upstream entry for it:\n", url, modelName)
	fmt.Fprintf(out, "  upstreams:\n    - name: demo\n      base_url: %s/v1\n      models: [\"*\"]\n      tool_mode: text\n", url)
	<-ctx.Done()
	return nil
}
