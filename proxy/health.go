package proxy

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/toolstream/toolstream/proxy/upstream"
)

// upstreamHealth is one upstream as /readyz reports it: how many of its
// servers the health checks hold up. The servers' addresses are left out
// (readyz is open to anyone who reaches the port); the log and
// toolstream_upstream_up name them.
type upstreamHealth struct {
	Name      string `json:"name"`
	Servers   int    `json:"servers"`
	ServersUp int    `json:"servers_up"`
}

// upstreamsHealth reports each upstream of st, and the names of those with
// no server up.
func upstreamsHealth(st *state) (all []upstreamHealth, down []string) {
	for _, u := range st.upstreams {
		h := upstreamHealth{Name: u.Name()}
		for _, s := range u.Servers() {
			h.Servers++
			if s.Up {
				h.ServersUp++
			}
		}
		if h.ServersUp == 0 {
			down = append(down, h.Name)
		}
		all = append(all, h)
	}
	return all, down
}

// upstreamUpCollector is toolstream_upstream_up{upstream,server}, read
// from the health checks at every scrape.
type upstreamUpCollector struct {
	desc      *prometheus.Desc
	upstreams func() []*upstream.Client
}

func newUpstreamUpCollector(upstreams func() []*upstream.Client) *upstreamUpCollector {
	return &upstreamUpCollector{
		desc: prometheus.NewDesc("toolstream_upstream_up",
			"1 when the upstream server passes its health check, 0 when it is held down.", []string{"upstream", "server"}, nil),
		upstreams: upstreams,
	}
}

// Describe implements prometheus.Collector.
func (c *upstreamUpCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *upstreamUpCollector) Collect(ch chan<- prometheus.Metric) {
	for _, u := range c.upstreams() {
		for _, s := range u.Servers() {
			up := 0.0
			if s.Up {
				up = 1
			}
			ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, up, u.Name(), s.Server)
		}
	}
}
