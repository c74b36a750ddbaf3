package upstream

// pick chooses the server for the next attempt among those not tried yet,
// and marks it tried: healthy servers first, by the upstream's balance
// (least_busy: fewest rounds in flight, ties in turn; round_robin: in
// turn). When every untried server is down one of them is still tried:
// health checks lag, and a round refused by every server of its pool is
// the fallbacks' to take, which only a try can tell.
func (c *Client) pick(tried []bool) *server {
	n := uint64(len(c.servers))
	start := c.next.Add(1) - 1
	best := -1
	var bestBusy int64
	bestUp := false
	for i := range n {
		j := int((start + i) % n)
		if tried[j] {
			continue
		}
		s := c.servers[j]
		up := s.health.up()
		busy := s.busy.Load()
		switch {
		case best < 0, up && !bestUp:
		case up == bestUp && !c.roundRobin && busy < bestBusy:
		default:
			continue
		}
		best, bestBusy, bestUp = j, busy, up
		if up && c.roundRobin {
			break
		}
	}
	if best < 0 {
		best = int(start % n) // all tried: the caller starts over
		clear(tried)
	}
	tried[best] = true
	return c.servers[best]
}
